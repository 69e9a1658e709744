//go:build !race

package httpd_test

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd"
)

// TestZeroAllocations holds the two hottest reads, with a key check, to no
// allocation per request in steady state.
func TestZeroAllocations(t *testing.T) {
	t.Run("cached", func(t *testing.T) { zeroAllocations(t, newEnv(t)) })
	t.Run("rendered", func(t *testing.T) {
		zeroAllocations(t, newEnv(t, func(o *httpd.Options) { o.BodyCacheBytes = -1 }))
	})
}

func zeroAllocations(t *testing.T, e *env) {
	h := e.svc.Handler()
	for _, suffix := range []string{"", "/specs", "/specs?locale=de", "/specs?locale=el&units=imperial"} {
		uri := variantURI(suffix)(e)
		var ctx fasthttp.RequestCtx
		serveOnce(h, &ctx, uri, e.free)
		if ctx.Response.StatusCode() != 200 {
			t.Fatalf("%s: %d", uri, ctx.Response.StatusCode())
		}
		e.svc.WaitCaches()
		serveOnce(h, &ctx, uri, e.free)
		if n := testing.AllocsPerRun(200, func() { serveOnce(h, &ctx, uri, e.free) }); n != 0 {
			t.Errorf("%s: %.1f allocations per request, want 0", uri, n)
		}
	}
}
