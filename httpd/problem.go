package httpd

import (
	"log"
	"net/http"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/observe"
)

// Error is an API error: what went wrong, as every transport tells it.
// Operations, parameter parsing and admission return one; REST writes it
// as an RFC 9457 problem (writeProblem) and the MCP adapter as a tool
// error, each in one place.
type Error struct {
	Status int    // HTTP status
	Kind   string // the kind of problem (see ProblemKinds); empty: the status's first kind
	Detail string // what was wrong, for a person: names the parameter or id
	// RetryAfter, in seconds, tells when to retry (0: not said).
	RetryAfter int64
	// Header holds further response fields REST sends with the problem
	// (RateLimit, RateLimit-Policy, WWW-Authenticate, Accept-Post), as
	// name, value pairs.
	Header []string
}

// Error says the error in one line: "Title (status): detail".
func (e *Error) Error() string {
	s := e.Title() + " (" + strconv.Itoa(e.Status) + ")"
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Title is the problem's title: the status text (RFC 9110's).
func (e *Error) Title() string {
	if e.Status == http.StatusRequestEntityTooLarge {
		return "Content Too Large"
	}
	return http.StatusText(e.Status)
}

// TypeURI is the problem's type URI: ProblemTypeBase and its kind.
func (e *Error) TypeURI() string {
	if k := e.kindName(); k != "" {
		return ProblemTypeBase + k
	}
	return "about:blank"
}

// kindName is e's kind, or its status's first kind ("" when none).
func (e *Error) kindName() string {
	if e.Kind != "" {
		return e.Kind
	}
	for _, k := range ProblemKinds {
		if k.Status == e.Status {
			return k.Kind
		}
	}
	return ""
}

// kind returns e of another kind.
func (e *Error) kind(k string) *Error {
	e.Kind = k
	return e
}

// ProblemTypeBase prefixes every problem type URI; the kind follows.
const ProblemTypeBase = "https://vspec.example/problems/"

// ProblemKinds are the kinds of problem the API answers, each with its
// status and what it means: the type URIs clients may switch on. A
// status's first kind is the one of an error that names none.
var ProblemKinds = []struct {
	Kind   string
	Status int
	Means  string
}{
	{"invalid-parameter", 400, "A path or query parameter (or an MCP argument) is unknown, repeated, malformed, out of its enumeration or missing; the detail names it."},
	{"invalid-request", 400, "The request itself cannot be read: its framing, its HTTP syntax or the key request's body."},
	{"invalid-payment", 400, "The PAYMENT-SIGNATURE header cannot be read as an x402 version 2 PaymentPayload."},
	{"key-required", 401, "No API key was sent on a route that needs one."},
	{"key-unknown", 401, "The API key sent is not known."},
	{"payment-required", 402, "A payable operation called without a key: the PAYMENT-REQUIRED header carries the offer; also a payment refused or not settled (nothing charged)."},
	{"key-inactive", 403, "The key is not yet activated, or revoked."},
	{"outside-demo", 403, "A demo key reached a route or a car outside the demo set."},
	{"export-not-offered", 403, "Bulk data is never served by the API; the detail links the licensing offer."},
	{"origin-refused", 403, "The MCP endpoint does not answer this Host or Origin (protection against DNS rebinding)."},
	{"not-found", 404, "No such route, resource or id (an undecodable id and an unknown one are the same 404)."},
	{"method-not-allowed", 405, "The route does not take this method; Allow lists those it takes."},
	{"request-timeout", 408, "The request was not received in time."},
	{"conflict", 409, "A key was already issued to this address, or the activation link was used or expired."},
	{"content-too-large", 413, "The request carries a body larger than its route takes (GET and HEAD take none)."},
	{"unsupported-media-type", 415, "The key request's body is not application/json; Accept-Post names the type."},
	{"unprocessable-email", 422, "The email's domain cannot receive mail, is disposable or is not a domain name."},
	{"rate-limited", 429, "The key used its calls of a window (minute, day or month; the detail names it). Retry-After and RateLimit tell when."},
	{"network-rate-limited", 429, "The caller's network reached a per-network limit: keyless paid calls, key requests or connections."},
	{"header-too-large", 431, "The request line and headers are larger than the server reads."},
	{"internal", 500, "A failure of ours that should not happen; it is logged."},
	{"unavailable", 503, "A failure on our side, never a limit of the caller: retry after Retry-After."},
	{"metering-unavailable", 503, "Usage cannot be metered, or the key checked, because the access store cannot be reached in time, so the call is refused rather than served unchecked or uncounted (fail closed)."},
	{"demo-rebuilding", 503, "The demo set is being rebuilt; the demo key is fine."},
	{"facilitator-unavailable", 503, "The x402 payment facilitator cannot be reached; nothing was charged."},
	{"settlement-unknown", 504, "The settlement of a payment has no clear outcome: the answer is withheld and the payment recorded under Payment-Reference."},
}

// with returns e with a response field added.
func (e *Error) with(name, value string) *Error {
	e.Header = append(e.Header, name, value)
	return e
}

func errorf(status int, detail string) *Error { return &Error{Status: status, Detail: detail} }

// badRequest is the 400 of a parameter.
func badRequest(detail string) *Error { return errorf(http.StatusBadRequest, detail) }
func notFound(detail string) *Error   { return errorf(http.StatusNotFound, detail) }
func forbidden(detail string) *Error  { return errorf(http.StatusForbidden, detail) }

// unavailable is a 503: a failure on our side, retried after retry seconds.
func unavailable(retry int64, detail string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Detail: detail, RetryAfter: retry}
}

// quoted quotes a value a caller sent for a detail, cut short.
func quoted(b []byte) string { return strconv.Quote(truncate(string(b), 64)) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

const contentProblem = "application/problem+json; charset=utf-8"

// problem writes e as an RFC 9457 problem response: see writeProblem.
func (s *Service) problem(ctx *fasthttp.RequestCtx, e *Error) { writeProblem(ctx, s.obs, e) }

// writeProblem writes e as an RFC 9457 problem response, never cached,
// with the request's id, and counts it by kind.
func writeProblem(ctx *fasthttp.RequestCtx, obs *observe.Observer, e *Error) {
	obs.Problem(e.kindName())
	b := append(make([]byte, 0, 256), `{"type":`...)
	b = jsonenc.AppendString(b, e.TypeURI())
	b = append(b, `,"title":`...)
	b = jsonenc.AppendString(b, e.Title())
	b = append(b, `,"status":`...)
	b = jsonenc.AppendInt(b, int64(e.Status))
	if e.Detail != "" {
		b = append(b, `,"detail":`...)
		b = jsonenc.AppendString(b, e.Detail)
	}
	h := &ctx.Response.Header
	if id := h.Peek(observe.HeaderRequestID); len(id) > 0 {
		b = append(b, `,"request_id":`...)
		b = jsonenc.AppendString(b, string(id))
	}
	b = append(b, '}')
	for i := 0; i+1 < len(e.Header); i += 2 {
		h.Set(e.Header[i], e.Header[i+1])
	}
	if e.RetryAfter > 0 {
		h.SetCanonical(headerRetryAfter, strconv.AppendInt(nil, e.RetryAfter, 10))
	}
	ctx.SetBody(b)
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType(contentProblem)
	h.SetCanonical(headerCacheControl, noStore)
}

func (s *Service) notFound(ctx *fasthttp.RequestCtx) {
	s.problem(ctx, notFound("No route for "+string(ctx.Path())))
}

func (s *Service) methodNotAllowed(ctx *fasthttp.RequestCtx) {
	s.problem(ctx, errorf(fasthttp.StatusMethodNotAllowed, "The method "+string(ctx.Method())+" is not allowed on "+string(ctx.Path())+"; see the Allow header"))
}

func (s *Service) panicked(ctx *fasthttp.RequestCtx, v any) {
	log.Printf("BUG: panic serving %s %s: %v", ctx.Method(), ctx.Path(), v)
	s.problem(ctx, errorf(fasthttp.StatusInternalServerError, ""))
}
