package httpd

import (
	"testing"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// routerAndDispatch registers every keyed operation's template in both a
// fasthttp/router and a dispatch, each handler recording its template.
func routerAndDispatch() (*router.Router, *dispatch, *string) {
	var got string
	r := router.New()
	r.RedirectTrailingSlash, r.RedirectFixedPath = false, false
	var d dispatch
	for _, op := range keyedOperations {
		h := func(*fasthttp.RequestCtx) { got = op.path }
		r.GET(op.path, h)
		d.add(op.path, h)
	}
	// Routes outside dispatch that share its prefixes.
	r.GET("/v1/keys/demo/verify", func(*fasthttp.RequestCtx) { got = "verify" })
	r.GET("/v1/health", func(*fasthttp.RequestCtx) { got = "health" })
	r.NotFound = func(*fasthttp.RequestCtx) { got = "404" }
	return r, &d, &got
}

// agree checks that when dispatch matches a path, the router gives that
// path the same handler.
func agree(t *testing.T, r *router.Router, d *dispatch, got *string, uri string) {
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI(uri)
	ctx.Request.Header.SetMethod("GET")
	h := d.match(ctx.Request.URI().PathOriginal())
	if h == nil {
		return
	}
	h(&ctx)
	mine := *got
	r.Handler(&ctx)
	if *got != mine {
		t.Errorf("%q (path %q): dispatch chose %s, the router %s", uri, ctx.Request.URI().PathOriginal(), mine, *got)
	}
}

// TestDispatchIsTheRouter: the keyed routes' dispatch gives each path the
// handler the router would, and matches every keyed template.
func TestDispatchIsTheRouter(t *testing.T) {
	r, d, got := routerAndDispatch()
	matched := 0
	for _, uri := range []string{
		"/v1/brands", "/v1/brands/volkswagen", "/v1/brands/volkswagen/models", "/v1/models/m_1/generations",
		"/v1/generations/g_1/variants", "/v1/variants", "/v1/variants?fuel=diesel", "/v1/compare?ids=a,b", "/v1/search?q=golf",
		"/v1/variants/v_1", "/v1/variants/v_1/specs", "/v1/variants/v_1/images", "/v1/variants/v_1/prices",
		"/v1/specs/catalog", "/v1/usage", "/v1/export", "/v1/demo",
		"/v1/brands/", "/v1//brands", "/v1/variants/v_1/", "/v1/variants/v_1/specs/x", "/v1/variants//specs", "/V1/brands",
		"/v1/brands/a/b/c/d/e", "/v1/keys/demo/verify", "/v1/health", "/", "", "/v1/specs", "/v1/specs/catalog/",
		"/v1/variants/%2e%2e/specs", "/v1/brands/../variants/v_1", "/v1/variants/v_1?x=/y",
	} {
		agree(t, r, d, got, uri)
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(uri)
		if d.match(ctx.Request.URI().PathOriginal()) != nil {
			matched++
		}
	}
	if matched < len(keyedOperations) {
		t.Errorf("dispatch matched %d of the paths, fewer than the %d keyed templates", matched, len(keyedOperations))
	}
}

func FuzzDispatch(f *testing.F) {
	for _, s := range []string{"/v1/variants/v_1/specs", "/v1/brands/x/models", "/v1//a", "/v1/specs/catalog", "/"} {
		f.Add(s)
	}
	r, d, got := routerAndDispatch()
	f.Fuzz(func(t *testing.T, uri string) {
		agree(t, r, d, got, uri)
	})
}

// BenchmarkDispatch matches the paths of the pinned wrk run's keyed routes.
func BenchmarkDispatch(b *testing.B) {
	_, d, _ := routerAndDispatch()
	paths := [][]byte{[]byte("/v1/variants/v_4f886447"), []byte("/v1/variants/v_4f886447/prices"), []byte("/v1/variants/v_4f886447/specs"),
		[]byte("/v1/brands"), []byte("/v1/brands/volkswagen/models"), []byte("/v1/models/m_89102b00/generations"),
		[]byte("/v1/generations/g_234874d7/variants"), []byte("/v1/specs/catalog"), []byte("/v1/search")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if d.match(paths[i%len(paths)]) == nil {
			b.Fatal("no match")
		}
	}
}
