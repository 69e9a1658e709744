package httpd_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
)

// TestLimitExactUnderConcurrency sends many concurrent requests with room
// for exactly N: N are served, the rest get 429, and only served requests
// are counted.
func TestLimitExactUnderConcurrency(t *testing.T) {
	const perMinute = 37
	e := newEnv(t, func(o *httpd.Options) {
		o.Limits = map[access.Plan]access.Limits{access.PlanFree: {perMinute, 1000, 1000}}
	})
	statuses := concurrently(t, 16, 10, func() resp { return e.get("/v1/brands/volkswagen", e.free) }, 200, 429)
	// The minute may roll over during the test: at most two windows' worth.
	if n := statuses[200]; n != perMinute && !(n > perMinute && n <= 2*perMinute && time.Now().Second() < 5) {
		t.Errorf("%d requests served with a limit of %d per minute (%d refused)", n, perMinute, statuses[429])
	}
	r := e.get("/v1/brands/volkswagen", e.free)
	e.problem(r, 429, "used its 37 calls per minute of the free plan")
	if ra, err := strconv.Atoi(r.header["Retry-After"]); err != nil || ra < 1 || ra > 61 {
		t.Errorf("Retry-After %q", r.header["Retry-After"])
	}
	if !strings.HasPrefix(r.header["Ratelimit"], `"minute";r=0;t=`) || !strings.Contains(r.header["Ratelimit-Policy"], `"minute";q=37;w=60`) {
		t.Errorf("RateLimit %q, RateLimit-Policy %q", r.header["Ratelimit"], r.header["Ratelimit-Policy"])
	}
}

func TestLimitCountsOnlyServed(t *testing.T) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC) // no minute turns during the test
	e := newEnv(t, func(o *httpd.Options) {
		o.Limits = map[access.Plan]access.Limits{access.PlanFree: {3, 1000, 1000}}
		o.Now = func() time.Time { return now }
	})
	for i := 0; i < 10; i++ {
		e.problem(e.get("/v1/variants/v_00000000", e.free), 404, "No variant")
		e.problem(e.get("/v1/brands?limit=0", e.free), 400, "limit")
	}
	for i := 0; i < 3; i++ {
		r := e.get("/v1/brands/volkswagen", e.free)
		if r.status != 200 {
			t.Fatalf("request %d after errors: %d", i, r.status)
		}
		if want := `"minute";r=` + strconv.Itoa(2-i) + ";t="; !strings.HasPrefix(r.header["Ratelimit"], want) {
			t.Errorf("RateLimit %q, want %s...", r.header["Ratelimit"], want)
		}
	}
	e.problem(e.get("/v1/brands/volkswagen", e.free), 429, "3 calls per minute")
}

func TestMeteringFailsClosed(t *testing.T) {
	e := newEnv(t)
	m := httpdtest.FastMeter(t, e.keys)
	e2 := newEnvWith(t, e, func(o *httpd.Options) { o.Meter = m })
	if r := e2.get("/v1/brands/volkswagen", e2.free); r.status != 200 {
		t.Fatalf("healthy metering: %d", r.status)
	}
	m.BreakForTest(errors.New("disk full"))
	deadline := time.Now().Add(5 * time.Second) // FastMeter reports down after 1 s
	var r resp
	for time.Now().Before(deadline) {
		if r = e2.get("/v1/brands/volkswagen", e2.free); r.status == 503 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	e2.problem(r, 503, "not a limit of your key")
	if r.header["Retry-After"] == "" {
		t.Error("503 without Retry-After")
	}
	m.BreakForTest(nil)
	for time.Now().Before(deadline.Add(5 * time.Second)) {
		if r = e2.get("/v1/brands/volkswagen", e2.free); r.status == 200 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("metering did not recover: %d", r.status)
}

// TestRevalidationIsFree: a 304 and a HEAD are admitted but not counted, so
// a client that caches and revalidates is not charged for it; only GETs
// answered 2xx use the quota.
func TestRevalidationIsFree(t *testing.T) {
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC) // no minute turns during the test
	e := newEnv(t, func(o *httpd.Options) {
		o.Limits = map[access.Plan]access.Limits{access.PlanFree: {3, 1000, 1000}}
		o.Now = func() time.Time { return now }
	})
	const p = "/v1/brands/volkswagen"
	first := e.get(p, e.free)
	tag := first.header["Etag"]
	if first.status != 200 || tag == "" {
		t.Fatalf("first GET: %d, ETag %q", first.status, tag)
	}
	for i := 0; i < 10; i++ {
		if r := e.get(p, e.free, "If-None-Match", tag); r.status != 304 {
			t.Fatalf("revalidation %d: %d", i, r.status)
		}
		if r := e.do("HEAD", p, e.free); r.status != 200 {
			t.Fatalf("HEAD %d: %d", i, r.status)
		}
	}
	for i := 0; i < 2; i++ {
		if r := e.get(p, e.free); r.status != 200 {
			t.Fatalf("GET %d after 20 free revalidations: %d (they were counted)", i+2, r.status)
		}
	}
	e.problem(e.get(p, e.free), 429, "3 calls per minute")
}
