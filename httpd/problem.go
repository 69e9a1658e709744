package httpd

import (
	"log"
	"net/http"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine/jsonenc"
)

// Error is an API error: what went wrong, as every transport tells it.
// Operations, parameter parsing and admission return one; REST writes it
// as an RFC 9457 problem (writeProblem) and the MCP adapter as a tool
// error, each in one place.
type Error struct {
	Status int    // HTTP status
	Type   string // problem type URI; empty means about:blank
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

// TypeURI is the problem's type URI.
func (e *Error) TypeURI() string {
	if e.Type == "" {
		return "about:blank"
	}
	return e.Type
}

// with returns e with a response field added.
func (e *Error) with(name, value string) *Error {
	e.Header = append(e.Header, name, value)
	return e
}

func errorf(status int, detail string) *Error { return &Error{Status: status, Detail: detail} }

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

// writeProblem writes e as an RFC 9457 problem response, never cached.
func writeProblem(ctx *fasthttp.RequestCtx, e *Error) {
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
	b = append(b, '}')
	h := &ctx.Response.Header
	for i := 0; i+1 < len(e.Header); i += 2 {
		h.Set(e.Header[i], e.Header[i+1])
	}
	if e.RetryAfter > 0 {
		h.SetBytesKV(headerRetryAfter, strconv.AppendInt(nil, e.RetryAfter, 10))
	}
	ctx.SetBody(b)
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType(contentProblem)
	h.SetBytesKV(headerCacheControl, noStore)
}

func (s *Service) notFound(ctx *fasthttp.RequestCtx) {
	writeProblem(ctx, notFound("No route for "+string(ctx.Path())))
}

func (s *Service) methodNotAllowed(ctx *fasthttp.RequestCtx) {
	writeProblem(ctx, errorf(fasthttp.StatusMethodNotAllowed, "The method "+string(ctx.Method())+" is not allowed on "+string(ctx.Path())+"; see the Allow header"))
}

func (s *Service) panicked(ctx *fasthttp.RequestCtx, v any) {
	log.Printf("BUG: panic serving %s %s: %v", ctx.Method(), ctx.Path(), v)
	writeProblem(ctx, errorf(fasthttp.StatusInternalServerError, ""))
}
