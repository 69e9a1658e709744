package httpd

import (
	"bytes"
	"strconv"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/openapi"
	"github.com/vspec/catalogue/httpd/openapi/reference"
)

// routes builds the REST routes: the map of the API.
func (s *Service) routes() fasthttp.RequestHandler {
	r := router.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.HandleOPTIONS = true
	get := func(path string, h fasthttp.RequestHandler) fasthttp.RequestHandler {
		h = s.observed(s.obs.Route(path), h)
		r.GET(path, h)
		r.HEAD(path, h)
		s.registered = append(s.registered, openapi.Operation{Method: "GET", Path: path}, openapi.Operation{Method: "HEAD", Path: path})
		return h
	}
	post := func(path string, h fasthttp.RequestHandler) {
		r.POST(path, s.observed(s.obs.Route(path), h))
		s.registered = append(s.registered, openapi.Operation{Method: "POST", Path: path})
	}
	// The probes, outside /v1 and the description (probes.go).
	r.GET("/livez", s.observed(s.obs.Route("/livez"), livez))
	r.GET("/readyz", s.observed(s.obs.Route("/readyz"), s.readyz))
	get("/v1/health", s.health)
	get("/v1/openapi.json", s.openAPI)
	get("/v1/docs", s.docs)
	get("/v1"+reference.Path, s.docsScriptHandler)
	post("/v1/keys/demo", s.keyRequest)
	post("/v1/keys", s.keyRequest)            // alias kept for cached pages and copied commands
	get("/v1/keys/demo/verify", s.keyVerify)  // shows the request: a link opened by a mail scanner stays usable
	post("/v1/keys/demo/verify", s.keyVerify) // confirms it: the key
	// The keyed operations (operation.go): each declares its route, its
	// parameters and its answers from the catalogue and the demo set.
	var keyed dispatch // the keyed operations' GET and HEAD, past the router
	for _, op := range keyedOperations {
		keyed.add(op.path, get(op.path, s.handler(op)))
	}
	unrouted := s.obs.Route("unrouted") // requests no route answers
	r.NotFound = s.observed(unrouted, s.notFound)
	r.MethodNotAllowed = s.observed(unrouted, s.methodNotAllowed)
	r.PanicHandler = s.panicked
	slow := r.Handler
	return func(ctx *fasthttp.RequestCtx) {
		// Every response names the catalogue it was answered from: the
		// keyed operations' handlers name the view they answer from
		// (handler), every other answer the view of now.
		if e := framingRefusal(ctx); e != nil {
			ctx.Response.Header.SetCanonical(headerCatalogueVersion, s.view.Load().version)
			s.observe(ctx, unrouted, func(ctx *fasthttp.RequestCtx) { s.problem(ctx, e) })
			return
		}
		if ctx.IsGet() || ctx.IsHead() {
			if h := keyed.match(ctx.Request.URI().PathOriginal()); h != nil {
				s.recovered(ctx, h)
				return
			}
		}
		ctx.Response.Header.SetCanonical(headerCatalogueVersion, s.view.Load().version)
		slow(ctx)
	}
}

// recovered runs h and answers a panic with 500, as the router's
// PanicHandler does for the routes it dispatches.
func (s *Service) recovered(ctx *fasthttp.RequestCtx, h fasthttp.RequestHandler) {
	defer func() {
		if v := recover(); v != nil {
			s.panicked(ctx, v)
		}
	}()
	h(ctx)
}

// health answers GET /v1/health: 200 while a catalogue is being served.
func (s *Service) health(ctx *fasthttp.RequestCtx) {
	ctx.SetBody(healthBody(s.view.Load()))
	ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
	ctx.Response.Header.SetCanonical(headerCacheControl, noStore)
}

func healthBody(v *view) []byte {
	_, _, _, variants := v.cat.Counts()
	b := append(make([]byte, 0, 160), `{"data":{"status":"ok","active_variants":`...)
	b = strconv.AppendInt(b, int64(variants), 10)
	b = append(b, `},"meta":{"last_synced_at":"`...)
	b = append(b, v.synced...)
	return append(b, `","locale":"en","units":"metric"}}`...)
}

// pathSegment returns segment n of a path ("/v1/variants/v_1/specs" has
// segments "v1", "variants", "v_1", "specs" numbered from 0), or nil.
func pathSegment(path []byte, n int) []byte {
	if len(path) > 0 && path[0] == '/' {
		path = path[1:]
	}
	for ; n > 0; n-- {
		i := bytes.IndexByte(path, '/')
		if i < 0 {
			return nil
		}
		path = path[i+1:]
	}
	if i := bytes.IndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return path
}

var (
	// headerCatalogueVersion carries the SHA-256 of the snapshot file being
	// served (engine.Meta.ContentHash): the hash a fleet's rollout points
	// at, so a client or operator sees which catalogue answered.
	headerCatalogueVersion = canonical("X-Catalogue-Version")
)
