package httpd

import (
	"net/http"
	"net/url"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/x402"
)

// This file is the in-process face of the payable operations for the agent
// surface (httpd/mcp): the same handlers, serializers, key checks and
// metering as the REST routes, without an HTTP round trip.

// Caller is whom an in-process call is answered for.
type Caller struct {
	// Key is the caller's key, admitted with Admit; nil for a caller
	// without a key.
	Key *access.Key
	// Paid marks a keyless caller whose x402 payment was verified: it is
	// answered from the full catalogue, as a paying REST caller is. A
	// keyless caller that did not pay is answered from the demo set, as a
	// demo key is.
	Paid bool
}

// Call is an in-process request to a payable operation.
type Call struct {
	Op Operation
	// ID is the variant id of OpSpecs, as the REST path carries it.
	ID string
	// Query holds the query parameters exactly as the REST route takes
	// them (q, locale, limit, cursor, units, ids, filters).
	Query url.Values
}

// Answer is what the REST route answered.
type Answer struct {
	Status int
	// Body is the JSON body: {data, meta, links} on success, a
	// ProblemDetail otherwise.
	Body   []byte
	Header http.Header
}

// OK reports a 2xx answer.
func (a *Answer) OK() bool { return a.Status >= 200 && a.Status <= 299 }

// path returns the REST path of a call.
func (c *Call) path() string {
	switch c.Op {
	case OpSpecs:
		return "/v1/variants/" + url.PathEscape(c.ID) + "/specs"
	case OpSearch:
		return "/v1/search"
	case OpFilter:
		return "/v1/variants"
	}
	return "/v1/compare"
}

// Invoke answers a call as the REST route answers it for the caller,
// without authentication, admission or metering: the agent surface does
// those (Admit, its own limits, x402) and releases the ticket of a call
// that did not succeed.
func (s *Service) Invoke(c Call, who Caller) Answer {
	ctx := new(fasthttp.RequestCtx)
	ctx.Request.Header.SetMethod(fasthttp.MethodGet)
	uri := c.path()
	if q := c.Query.Encode(); q != "" {
		uri += "?" + q
	}
	ctx.Request.SetRequestURI(uri)
	rq := getRequest()
	defer putRequest(rq)
	rq.v = s.view.Load()
	rq.key = who.Key
	h := s.handlers[c.Op]
	switch {
	case who.Key != nil:
		rq.raw = who.Key.Plan == access.PlanApify
		if who.Key.Plan == access.PlanDemo {
			h.demo(ctx, rq)
		} else {
			h.full(ctx, rq)
		}
	case who.Paid:
		h.full(ctx, rq)
	default:
		h.demo(ctx, rq)
	}
	return answerOf(ctx)
}

// Admission is the outcome of Admit.
type Admission struct {
	// Key and Ticket are set when the key was admitted; Release the ticket
	// when the call did not succeed, so it is not counted.
	Key    *access.Key
	Ticket access.Ticket
	// Refused is the REST answer when the key was not admitted: 401
	// unknown, 403 revoked or not yet active, 429 over a limit (with
	// Retry-After and RateLimit), 503 metering unavailable (Retry-After).
	Refused *Answer
	// Header carries RateLimit and RateLimit-Policy of an admitted call.
	Header http.Header
}

// Authenticate checks a key as the REST routes do, without counting a
// call: the key, or the REST refusal (401 unknown, 403 revoked or not yet
// active).
func (s *Service) Authenticate(key string) (*access.Key, *Answer) {
	ctx := new(fasthttp.RequestCtx)
	k, ok := s.authenticate(ctx, []byte(key))
	if !ok {
		a := answerOf(ctx)
		return nil, &a
	}
	return k, nil
}

// Admit checks a key as the REST routes do and reserves one call on its
// counters.
func (s *Service) Admit(key string) Admission {
	k, refused := s.Authenticate(key)
	if refused != nil {
		return Admission{Refused: refused}
	}
	ctx := new(fasthttp.RequestCtx)
	rq := getRequest()
	defer putRequest(rq)
	rq.v = s.view.Load()
	ticket, ok := s.admit(ctx, rq, k)
	if !ok {
		a := answerOf(ctx)
		return Admission{Refused: &a}
	}
	return Admission{Key: k, Ticket: ticket, Header: answerOf(ctx).Header}
}

// Payments returns the x402 gate, nil when payments are off.
func (s *Service) Payments() *x402.Gate { return s.opts.Payments }

// UpgradeURL is where refusals point callers for the full catalogue.
func (s *Service) UpgradeURL() string { return s.opts.UpgradeURL }

func answerOf(ctx *fasthttp.RequestCtx) Answer {
	a := Answer{Status: ctx.Response.StatusCode(), Body: append([]byte(nil), ctx.Response.Body()...), Header: http.Header{}}
	for k, v := range ctx.Response.Header.All() {
		a.Header.Add(string(k), string(v))
	}
	return a
}
