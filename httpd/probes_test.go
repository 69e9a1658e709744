package httpd_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/observe"
)

// TestProbes: alive and ready while serving; not ready once draining.
func TestProbes(t *testing.T) {
	e := newEnv(t)
	if r := e.get("/livez", ""); r.status != 200 {
		t.Errorf("livez: %d %s", r.status, r.body)
	}
	if r := e.get("/readyz", ""); r.status != 200 || string(r.body) != `{"status":"ready"}` {
		t.Errorf("readyz: %d %s", r.status, r.body)
	}
	e.svc.SetDraining()
	if r := e.get("/readyz", ""); r.status != 503 || r.header["Retry-After"] == "" {
		t.Errorf("readyz while draining: %d %s", r.status, r.body)
	}
	if r := e.get("/livez", ""); r.status != 200 {
		t.Errorf("livez while draining: %d", r.status)
	}
	if r := e.get("/v1/brands?limit=1", e.free); r.status != 200 {
		t.Errorf("a request while draining: %d", r.status)
	}
}

// TestProbesStoreUnreachable: with a shared store, /readyz follows its
// reachability (a load balancer then takes the replica out) while the
// process stays alive.
func TestProbesStoreUnreachable(t *testing.T) {
	var down atomic.Bool
	e := newEnv(t, func(o *httpd.Options) {
		o.StoreReachable = func() error {
			if down.Load() {
				return errors.New("Redis did not answer PING")
			}
			return nil
		}
	})
	if r := e.get("/readyz", ""); r.status != 200 || string(r.body) != `{"status":"ready"}` {
		t.Errorf("readyz: %d %s", r.status, r.body)
	}
	down.Store(true)
	if r := e.get("/readyz", ""); r.status != 503 || string(r.body) != `{"status":"store unreachable"}` || r.header["Retry-After"] == "" {
		t.Errorf("readyz with the store unreachable: %d %s %v", r.status, r.body, r.header)
	}
	if r := e.get("/livez", ""); r.status != 200 {
		t.Errorf("livez with the store unreachable: %d", r.status)
	}
	down.Store(false)
	if r := e.get("/readyz", ""); r.status != 200 {
		t.Errorf("readyz with the store back: %d %s", r.status, r.body)
	}
}

// TestStarting: before the catalogue is ready the process is alive, not
// ready, and answers the API with a 503 saying why.
func TestStarting(t *testing.T) {
	h := httpd.Starting("generating the default catalogue", time.Now(), observe.New(observe.Options{}))
	get := func(path string) *fasthttp.Response {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(path)
		h(&ctx)
		var r fasthttp.Response
		ctx.Response.CopyTo(&r)
		return &r
	}
	if r := get("/livez"); r.StatusCode() != 200 {
		t.Errorf("livez: %d", r.StatusCode())
	}
	if r := get("/readyz"); r.StatusCode() != 503 {
		t.Errorf("readyz: %d", r.StatusCode())
	}
	r := get("/v1/brands")
	if r.StatusCode() != 503 || string(r.Header.Peek("Retry-After")) != "5" || string(r.Header.ContentType()) != "application/problem+json; charset=utf-8" ||
		!documentedType(problemType(r.Body()), 503) {
		t.Errorf("the API while starting: %d %s", r.StatusCode(), r.Body())
	}
}
