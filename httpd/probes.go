package httpd

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/observe"
)

// Probes for orchestrators, keyless and outside /v1 (not part of the API):
// /livez says the process is alive, /readyz whether it should get traffic.
// Before the catalogue is loaded a process answers from Starting; while it
// drains (SetDraining) /readyz turns 503 so that load balancers stop
// sending it requests before it closes.

// livez answers GET /livez: the process serves requests.
func livez(ctx *fasthttp.RequestCtx) {
	probe(ctx, fasthttp.StatusOK, `{"status":"alive"}`)
}

// readyz answers GET /readyz: 200 while a catalogue is served, usage can
// be metered (the shared store answers) and the process is not draining;
// 503 with the reason otherwise.
func (s *Service) readyz(ctx *fasthttp.RequestCtx) {
	switch {
	case s.draining.Load():
		probe(ctx, fasthttp.StatusServiceUnavailable, `{"status":"draining"}`)
	case s.opts.Meter != nil && !s.opts.Meter.Healthy(s.opts.Now()):
		probe(ctx, fasthttp.StatusServiceUnavailable, `{"status":"metering unavailable"}`)
	case s.opts.StoreReachable != nil && s.opts.StoreReachable() != nil:
		probe(ctx, fasthttp.StatusServiceUnavailable, `{"status":"store unreachable"}`)
	default:
		probe(ctx, fasthttp.StatusOK, `{"status":"ready"}`)
	}
}

// SetDraining marks the process as draining: /readyz answers 503 from now
// on, while requests keep being served until the server shuts down.
func (s *Service) SetDraining() { s.draining.Store(true) }

func probe(ctx *fasthttp.RequestCtx, status int, body string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json; charset=utf-8")
	ctx.Response.Header.SetCanonical(headerCacheControl, noStore)
	if status != fasthttp.StatusOK {
		ctx.Response.Header.SetCanonical(headerRetryAfter, []byte("5"))
	}
	ctx.SetBodyString(body)
}

// Starting returns the handler of a process that listens before its
// catalogue is ready (it is being generated or loaded, which takes a
// while): /livez is alive, /readyz is 503, and every other request a 503
// problem with Retry-After saying what is happening. Swap in the Service's
// handler once it exists.
func Starting(what string, since time.Time, obs *observe.Observer) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/livez":
			livez(ctx)
		case "/readyz":
			probe(ctx, fasthttp.StatusServiceUnavailable, `{"status":"starting"}`)
		default:
			writeProblem(ctx, obs, unavailable(5, "The service is starting: "+what+" (for "+time.Since(since).Round(time.Second).String()+" so far). Retry after the Retry-After delay."))
		}
	}
}
