package httpd

import (
	"log"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine/jsonenc"
)

const contentProblem = "application/problem+json; charset=utf-8"

// problem writes an RFC 9457 problem response.
func problem(ctx *fasthttp.RequestCtx, status int, title, detail string) {
	b := append(make([]byte, 0, 256), `{"type":"about:blank","title":`...)
	b = jsonenc.AppendString(b, title)
	b = append(b, `,"status":`...)
	b = jsonenc.AppendInt(b, int64(status))
	if detail != "" {
		b = append(b, `,"detail":`...)
		b = jsonenc.AppendString(b, detail)
	}
	b = append(b, '}')
	ctx.SetBody(b)
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentProblem)
	ctx.Response.Header.SetBytesKV(headerCacheControl, noStore)
}

func (s *Service) notFound(ctx *fasthttp.RequestCtx) {
	problem(ctx, fasthttp.StatusNotFound, "Not Found", "No route for "+string(ctx.Path()))
}

func (s *Service) methodNotAllowed(ctx *fasthttp.RequestCtx) {
	problem(ctx, fasthttp.StatusMethodNotAllowed, "Method Not Allowed",
		"The method "+string(ctx.Method())+" is not allowed on "+string(ctx.Path())+"; see the Allow header")
}

func (s *Service) panicked(ctx *fasthttp.RequestCtx, v any) {
	log.Printf("BUG: panic serving %s %s: %v", ctx.Method(), ctx.Path(), v)
	problem(ctx, fasthttp.StatusInternalServerError, "Internal Server Error", "")
}
