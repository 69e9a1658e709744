package httpd_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/netip"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/observe"
	"github.com/vspec/catalogue/httpd/publicid"
)

// TestObservation: every request gets an id (echoed, and in problem
// bodies), a metric by route and status, and an access-log line that names
// the route template and a hash of the key, never the key.
func TestObservation(t *testing.T) {
	var log bytes.Buffer
	ob := observe.New(observe.Options{AccessLog: slog.New(slog.NewJSONHandler(&log, nil))})
	e := newEnv(t, func(o *httpd.Options) { o.Observer = ob })

	r := e.get("/v1/brands?limit=1", e.free)
	id := r.header["X-Request-Id"]
	if r.status != 200 || id == "" {
		t.Fatalf("%d, X-Request-Id %q", r.status, id)
	}
	if again := e.get("/v1/brands?limit=1", e.free).header["X-Request-Id"]; again == id {
		t.Errorf("two requests share the id %s", id)
	}
	// An id sent by a client that is not a trusted proxy is not taken.
	if got := e.get("/v1/brands", e.free, "X-Request-Id", "mine-1").header["X-Request-Id"]; got == "mine-1" {
		t.Error("an untrusted client chose its request id")
	}
	p := e.get("/v1/variants/v_zzzzzzzz", e.free)
	var body map[string]any
	json.Unmarshal(p.body, &body)
	if body["request_id"] != p.header["X-Request-Id"] || p.header["X-Request-Id"] == "" {
		t.Errorf("problem body %s, X-Request-Id %q", p.body, p.header["X-Request-Id"])
	}

	var metrics bytes.Buffer
	ob.WriteMetrics(&metrics)
	for _, want := range []string{
		`catalogue_requests_total{route="/v1/brands",status="200"} 3`,
		`catalogue_requests_total{route="/v1/variants/{id}",status="404"} 1`,
		`catalogue_problems_total{kind="not-found"} 1`,
		`catalogue_request_duration_seconds_bucket{route="/v1/brands",le="10"} 3`,
		"go_goroutines",
	} {
		if !strings.Contains(metrics.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}

	var lines []string // the test's own requests; the validator also fetches the description
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if !strings.Contains(l, "/v1/openapi.json") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d access-log lines for 4 requests:\n%s", len(lines), log.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["route"] != "/v1/brands" || first["status"] != 200.0 || first["id"] != id || first["key"] != observe.KeyHash([]byte(e.free)) || first["method"] != "GET" {
		t.Errorf("access-log line %v", first)
	}
	if strings.Contains(log.String(), e.free) {
		t.Error("the access log holds a key")
	}

	// The caches report their hits and misses.
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	e.get("/v1/variants/"+vt, e.free)
	e.svc.WaitCaches()
	e.get("/v1/variants/"+vt, e.free)
	metrics.Reset()
	ob.WriteMetrics(&metrics)
	for _, want := range []string{`catalogue_cache_requests_total{cache="body",result="miss"}`, `catalogue_cache_requests_total{cache="body",result="hit"}`} {
		if !strings.Contains(metrics.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestRequestIDFromTrustedProxy: a trusted proxy's id is kept, unless it
// is not a sane token.
func TestRequestIDFromTrustedProxy(t *testing.T) {
	e := newEnv(t, func(o *httpd.Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
	if got := e.get("/v1/brands", e.free, "X-Request-Id", "edge-42.a_b").header["X-Request-Id"]; got != "edge-42.a_b" {
		t.Errorf("the proxy's id became %q", got)
	}
	if got := e.get("/v1/brands", e.free, "X-Request-Id", "bad/id").header["X-Request-Id"]; got == "" || got == "bad/id" {
		t.Errorf("an insane id was kept: %q", got)
	}
}
