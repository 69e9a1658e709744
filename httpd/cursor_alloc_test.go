//go:build !race

package httpd_test

import (
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/publicid"
)

// TestListPageAllocations: a list page that opens a cursor and seals the
// next one allocates nothing. Routes with a path parameter allocate in the
// router (fasthttp/router copies the parameter), so there the page with a
// cursor must allocate exactly as much as the page without.
func TestListPageAllocations(t *testing.T) {
	e := newEnv(t, func(o *httpd.Options) { o.BodyCacheBytes = -1 })
	h := e.svc.Handler()
	allocs := func(uri string) float64 {
		t.Helper()
		var ctx fasthttp.RequestCtx
		serveOnce(h, &ctx, uri, e.free)
		if ctx.Response.StatusCode() != 200 {
			t.Fatalf("%s: %d", uri, ctx.Response.StatusCode())
		}
		serveOnce(h, &ctx, uri, e.free)
		return testing.AllocsPerRun(100, func() { serveOnce(h, &ctx, uri, e.free) })
	}
	for _, list := range []string{"/v1/brands?limit=2", "/v1/specs/catalog?limit=2"} {
		_, next := e.page(list, e.free)
		for _, uri := range []string{list, list + "&cursor=" + next} {
			if n := allocs(uri); n != 0 {
				t.Errorf("%s: %.1f allocations per request, want 0", uri, n)
			}
		}
	}
	gen := e.codec.Token(publicid.Generation, e.cat.GenID[e.cat.VarGen[e.cat.Demo[0]]])
	list := "/v1/generations/" + gen + "/variants?limit=1"
	_, next := e.page(list, e.free)
	if with, without := allocs(list+"&cursor="+next), allocs(list); with != without {
		t.Errorf("%s: %.1f allocations per request with a cursor, %.1f without", list, with, without)
	}
}
