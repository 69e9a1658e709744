package httpd

import (
	"bytes"
	"log"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/observe"
)

// The REST adapter of the keyed operations: the key a request sends, its
// admission, the path and query parsed into the operation's parameters,
// the answer sent with its caching headers (send) or the error written as
// a problem (writeProblem).

var (
	headerAPIKey        = []byte("X-Api-Key")
	headerAuthorization = []byte("Authorization")
	bearerPrefix        = []byte("bearer ")
)

// apiKey returns the key a request sends: X-Api-Key, or else the token of
// Authorization: Bearer.
func apiKey(ctx *fasthttp.RequestCtx) []byte {
	if k := ctx.Request.Header.PeekBytes(headerAPIKey); len(k) > 0 {
		return bytes.TrimSpace(k)
	}
	a := ctx.Request.Header.PeekBytes(headerAuthorization)
	if len(a) > len(bearerPrefix) && bytes.EqualFold(a[:len(bearerPrefix)], bearerPrefix) {
		return bytes.TrimSpace(a[len(bearerPrefix):])
	}
	return nil
}

// handler returns the REST handler of a keyed operation. No or an unknown
// key is 401, a key not yet active or revoked is 403, a key over one of
// its plan's limits is 429, and while usage cannot be metered the request
// is refused with 503 (fail closed). A demo key is answered by the demo
// operation and never reaches the full one. A call is counted only when it
// served a body: a GET answered 2xx; a 304 and a HEAD are admitted like any
// call but not counted, so clients that cache and revalidate are not
// charged for it.
//
// A payable operation called without a key is paid per call with x402
// (paid), when payments are on; with a key it is answered as any keyed
// call (never 402, any PAYMENT-SIGNATURE ignored).
func (s *Service) handler(op *operation) fasthttp.RequestHandler {
	pay, payable := payableOf(op)
	return func(ctx *fasthttp.RequestCtx) {
		// The catalogue this request is answered from, named on every
		// answer to it, errors included (the edge leaves it to the keyed
		// handlers, so a swap between the two cannot misname the body).
		v := s.view.Load()
		ctx.Response.Header.SetCanonical(headerCatalogueVersion, v.version)
		raw := apiKey(ctx)
		if payable && s.opts.Payments != nil && len(raw) == 0 {
			s.paid(ctx, v, pay)
			return
		}
		k, err := s.authenticate(raw)
		if err != nil {
			s.problem(ctx, err)
			return
		}
		rq := getRequest()
		defer putRequest(rq)
		ticket, err := s.admit(rq, k, requestTime(ctx, &s.opts))
		if err != nil {
			s.problem(ctx, err)
			return
		}
		ctx.Response.Header.SetCanonical(headerRateLimitPolicy, s.policy[k.Plan])
		ctx.Response.Header.SetCanonical(headerRateLimit, rq.hdr)
		if k.Plan == access.PlanFree {
			s.deprecated(&ctx.Response.Header)
		}
		rq.key, rq.raw = k, k.Plan == access.PlanApify
		t := tierFull
		if k.Plan == access.PlanDemo {
			t = tierDemo
		}
		s.answer(ctx, rq, v, op, t)
		if ctx.Response.StatusCode() >= 300 || ctx.IsHead() {
			ticket.Release()
		}
	}
}

// answer answers op from v for a caller of tier t: the answer sent or the
// error written.
func (s *Service) answer(ctx *fasthttp.RequestCtx, rq *request, v *view, op *operation, t tier) {
	if err := s.run(ctx, rq, v, op, t); err != nil {
		s.problem(ctx, asError(err))
		return
	}
	s.send(ctx, rq)
}

// run answers op from v for a caller of tier t into rq: the path's
// parameter and the query parsed into its parameters, then the operation.
func (s *Service) run(ctx *fasthttp.RequestCtx, rq *request, v *view, op *operation, t tier) error {
	if len(op.params) > 0 && op.params[0].In == "path" {
		rq.p.Path = pathSegment(ctx.Path(), 2)
	}
	return s.ops.answer(rq, v, op, t, ctx.QueryArgs(), false)
}

// asError is err as an *Error; any other error is a bug, answered 500.
func asError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	log.Printf("BUG: an operation failed with %T: %v", err, err)
	return errorf(fasthttp.StatusInternalServerError, "")
}

// payableOf returns the payable operation op is, if it is one.
func payableOf(op *operation) (Operation, bool) {
	for i, p := range payable {
		if p.op == op {
			return Operation(i), true
		}
	}
	return 0, false
}

var headerRequestID = canonical(observe.HeaderRequestID)

// freeDeprecated is when the free plan was deprecated (it is no longer
// issued), as the Deprecation field (RFC 9745) gives it.
const freeDeprecated = "@1764547200" // 2025-12-01T00:00:00Z

// deprecated marks the answer to a key of the deprecated free plan: when
// it was deprecated, when it stops working, and where to go instead.
func (s *Service) deprecated(h *fasthttp.ResponseHeader) {
	h.SetCanonical(headerDeprecation, freeDeprecatedValue)
	h.SetCanonical(headerSunset, s.sunset)
	h.SetCanonical(headerLink, s.upgrade)
}

var (
	headerDeprecation   = canonical("Deprecation")
	headerSunset        = canonical("Sunset")
	headerLink          = canonical("Link")
	freeDeprecatedValue = []byte(freeDeprecated)
)

// observed returns h recorded under rt: see observe.
func (s *Service) observed(rt *observe.Route, h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) { s.observe(ctx, rt, h) }
}

// observe answers a request with h under its request id (echoed, and in
// every problem body), then records its metrics and access-log line.
func (s *Service) observe(ctx *fasthttp.RequestCtx, rt *observe.Route, h fasthttp.RequestHandler) {
	start := ctx.Time() // when fasthttp started on the request
	if start.IsZero() { // not through a server (tests)
		start = time.Now()
	}
	var buf [32]byte
	p := peer(ctx)
	id := s.obs.RequestID(buf[:0], p, s.opts.TrustedProxies, func() []byte { return ctx.Request.Header.PeekBytes(headerRequestID) })
	ctx.Response.Header.SetCanonical(headerRequestID, id)
	h(ctx)
	end := start.Add(time.Since(start)) // one clock read (the monotonic one), not time.Now's two
	rt.Done(&observe.Request{Method: ctx.Method(), Status: ctx.Response.StatusCode(), Bytes: len(ctx.Response.Body()),
		ID: id, Key: apiKey(ctx), Peer: p, Duration: end.Sub(start), At: end})
}
