package httpd_test

import (
	"runtime"
	"testing"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/publicid"
)

// Sink keeps benchmark results alive.
var Sink int

// serveOnce runs the handler on a reused RequestCtx, as the server does
// for a keep-alive connection.
func serveOnce(h fasthttp.RequestHandler, ctx *fasthttp.RequestCtx, uri, key string, headers ...string) {
	ctx.Request.Reset()
	ctx.Response.Reset()
	ctx.Request.SetRequestURI(uri)
	ctx.Request.Header.Set("X-Api-Key", key)
	for i := 0; i+1 < len(headers); i += 2 {
		ctx.Request.Header.Set(headers[i], headers[i+1])
	}
	h(ctx)
}

func benchRoute(b *testing.B, uri func(e *env) string, headers ...string) {
	benchRouteOpts(b, uri, nil, headers...)
}

func benchRouteOpts(b *testing.B, uri func(e *env) string, opt func(*httpd.Options), headers ...string) {
	var opts []func(*httpd.Options)
	if opt != nil {
		opts = append(opts, opt)
	}
	e := newEnv(b, opts...)
	h := e.svc.Handler()
	u := uri(e)
	var ctx fasthttp.RequestCtx
	serveOnce(h, &ctx, u, e.free, headers...)
	e.svc.WaitCaches()
	if code := ctx.Response.StatusCode(); code != 200 && code != 304 {
		b.Fatalf("%s: %d %s", u, code, ctx.Response.Body())
	}
	b.SetBytes(int64(len(ctx.Response.Body())))
	b.ReportAllocs()
	// The handler runs on this goroutine, locked to its thread, so the
	// thread's CPU time is the handler's own: a figure that other load on a
	// shared machine does not inflate, unlike ns/op.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		serveOnce(h, &ctx, u, e.free, headers...)
	}
	b.ReportMetric(float64(threadCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	Sink += len(ctx.Response.Body())
}

// threadCPU is the CPU time the calling thread has used, in nanoseconds.
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

func variantURI(suffix string) func(e *env) string {
	return func(e *env) string {
		return "/v1/variants/" + e.codec.Token(publicid.Variant, e.cat.VarID[e.cat.Demo[0]]) + suffix
	}
}

func BenchmarkHandlers(b *testing.B) {
	b.Run("variant-uncached", func(b *testing.B) {
		benchRouteOpts(b, variantURI(""), func(o *httpd.Options) { o.BodyCacheBytes = -1 })
	})
	b.Run("specs-de-uncached", func(b *testing.B) {
		benchRouteOpts(b, variantURI("/specs?locale=de"), func(o *httpd.Options) { o.BodyCacheBytes = -1 })
	})
	b.Run("variant", func(b *testing.B) { benchRoute(b, variantURI("")) })
	b.Run("specs-en", func(b *testing.B) { benchRoute(b, variantURI("/specs")) })
	b.Run("specs-de", func(b *testing.B) { benchRoute(b, variantURI("/specs?locale=de")) })
	b.Run("specs-ar-imperial", func(b *testing.B) { benchRoute(b, variantURI("/specs?locale=ar&units=imperial")) })
	b.Run("images", func(b *testing.B) { benchRoute(b, variantURI("/images")) })
	b.Run("prices", func(b *testing.B) { benchRoute(b, variantURI("/prices")) })
	b.Run("brands", func(b *testing.B) { benchRoute(b, func(*env) string { return "/v1/brands" }) })
	b.Run("models", func(b *testing.B) { benchRoute(b, func(*env) string { return "/v1/brands/volkswagen/models" }) })
	b.Run("generations", func(b *testing.B) {
		benchRoute(b, func(e *env) string {
			return "/v1/models/" + e.codec.Token(publicid.Model, e.cat.ModelID[e.cat.GenModel[e.cat.VarGen[e.cat.Demo[0]]]]) + "/generations"
		})
	})
	b.Run("spec-catalogue", func(b *testing.B) { benchRoute(b, func(*env) string { return "/v1/specs/catalog" }) })
	b.Run("generation-variants", func(b *testing.B) {
		benchRoute(b, func(e *env) string {
			return "/v1/generations/" + e.codec.Token(publicid.Generation, e.cat.GenID[e.cat.VarGen[e.cat.Demo[0]]]) + "/variants"
		})
	})
	// Filter, search and compare with the body and search caches off and on
	// (only search's first pages are cached; filter and compare render always).
	compare := func(e *env) string {
		u := "/v1/compare?ids="
		for i := 0; i < 4; i++ {
			if i > 0 {
				u += ","
			}
			u += e.codec.Token(publicid.Variant, e.cat.VarID[e.cat.Demo[i]])
		}
		return u + "&locale=de"
	}
	queries := map[string]func(*env) string{
		"filter-2":    func(*env) string { return "/v1/variants?fuel=diesel&power_min=150" },
		"filter-3":    func(*env) string { return "/v1/variants?fuel=petrol&body=suv&year=2020" },
		"search":      func(*env) string { return "/v1/search?q=golf+gti" },
		"search-typo": func(*env) string { return "/v1/search?q=volkswagn+glf" },
		"compare-4":   compare,
	}
	for _, name := range []string{"filter-2", "filter-3", "search", "search-typo", "compare-4"} {
		uri := queries[name]
		b.Run(name+"-uncached", func(b *testing.B) {
			benchRouteOpts(b, uri, func(o *httpd.Options) { o.BodyCacheBytes, o.SearchCacheBytes = -1, -1 })
		})
		b.Run(name, func(b *testing.B) { benchRoute(b, uri) })
	}
	b.Run("specs-gzip-cached", func(b *testing.B) { benchRoute(b, variantURI("/specs?locale=de"), "Accept-Encoding", "gzip") })
	b.Run("specs-304", func(b *testing.B) {
		e := newEnv(b)
		var ctx fasthttp.RequestCtx
		serveOnce(e.svc.Handler(), &ctx, variantURI("/specs")(e), e.free)
		tag := string(ctx.Response.Header.Peek("ETag"))
		benchRoute(b, variantURI("/specs"), "If-None-Match", tag)
	})
}

// BenchmarkRouting compares fasthttp/router's {id} route with the prefix
// dispatch the service uses for the two hottest reads: the router costs
// allocations per request, the prefix dispatch none.
func BenchmarkRouting(b *testing.B) {
	b.Run("router-param", func(b *testing.B) {
		r := router.New()
		r.GET("/v1/variants/{id}", func(ctx *fasthttp.RequestCtx) { Sink += len(ctx.UserValue("id").(string)) })
		h := r.Handler
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/v1/variants/v_0123abcd")
		ctx.Request.Header.SetMethod("GET")
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h(&ctx)
		}
	})
	b.Run("service-fast-path", func(b *testing.B) {
		benchRoute(b, variantURI(""))
	})
}
