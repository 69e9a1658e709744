package httpd_test

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/x402"
)

// env is a running server on a real loopback listener over a small
// generated catalogue, with one key of each kind.
type env struct {
	t     testing.TB
	addr  string
	svc   *httpd.Service
	cat   *engine.Catalogue
	snap  []byte
	codec *publicid.Codec
	keys  *access.Store
	// Payments are on, as on the embedded defaults: x402 with the built-in
	// facilitator recording receipts in payStore.
	payStore *x402.Store

	free, apify, demo, pending, revoked string
}

func newEnv(t testing.TB, opts ...func(*httpd.Options)) *env {
	t.Helper()
	e := &env{t: t, snap: httpdtest.Snapshot(), cat: httpdtest.Catalogue(t)}
	var err error
	if e.codec, err = publicid.New([]byte("test secret of at least thirty-two bytes")); err != nil {
		t.Fatal(err)
	}
	k := httpdtest.NewKeys(t)
	e.keys, e.free, e.apify, e.demo, e.pending, e.revoked = k.Store, k.Free, k.Apify, k.Demo, k.Pending, k.Revoked
	// Limits are raised for the tests; the limit tests set their own.
	high := access.Limits{1 << 30, 1 << 30, 1 << 30}
	e.payStore = testPaymentStore(t)
	o := httpd.Options{Codec: e.codec, Keys: e.keys, LicensingURL: "https://licensing.example/offer", UpgradeURL: "https://upgrade.example/",
		Limits:   map[access.Plan]access.Limits{access.PlanFree: high, access.PlanApify: high, access.PlanDemo: high},
		Payments: testGate(t, e.payStore, nil), PublicURL: "https://api.example.org/v1"}
	for _, f := range opts {
		f(&o)
	}
	e.svc, err = httpd.New(e.cat, o)
	if err != nil {
		t.Fatal(err)
	}
	e.addr = httpdtest.Serve(t, e.svc)
	return e
}

// concurrently calls call from workers goroutines at once, each times in a
// row, and returns how many answers had each status; an answer of a status
// not in want is an error.
func concurrently(t testing.TB, workers, times int, call func() resp, want ...int) map[int]int {
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range times {
				r := call()
				if !slices.Contains(want, r.status) {
					t.Errorf("status %d %s", r.status, r.body)
				}
				mu.Lock()
				statuses[r.status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return statuses
}

// resp is a response read whole.
type resp struct {
	status int
	header map[string]string
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// do sends a request with the key (X-Api-Key) and extra header pairs.
func (e *env) do(method, path, key string, headers ...string) resp {
	e.t.Helper()
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI("http://" + e.addr + path)
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "X-Test-Body" { // the request body, not a header
			req.SetBodyString(headers[i+1])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	e.validate(e.t, req, res)
	r := resp{status: res.StatusCode(), header: map[string]string{}, body: append([]byte(nil), res.Body()...)}
	for k, v := range res.Header.All() {
		r.header[string(k)] = string(v)
	}
	return r
}

func (e *env) get(path, key string, headers ...string) resp {
	e.t.Helper()
	return e.do("GET", path, key, headers...)
}

// ok gets path and expects 200 with a JSON body.
func (e *env) ok(path, key string) map[string]any {
	e.t.Helper()
	r := e.get(path, key)
	if r.status != 200 {
		e.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	return r.json(e.t)
}

// problem expects an RFC 9457 problem with the status whose detail
// contains want.
func (e *env) problem(r resp, status int, want string) {
	e.t.Helper()
	if r.status != status {
		e.t.Errorf("status %d, want %d: %s", r.status, status, r.body)
		return
	}
	if ct := r.header["Content-Type"]; ct != "application/problem+json; charset=utf-8" {
		e.t.Errorf("problem content type %q", ct)
	}
	p := r.json(e.t)
	if !documentedType(p["type"], status) || p["title"] == nil || p["status"] != float64(status) {
		e.t.Errorf("not a problem document of a documented type: %s", r.body)
	}
	if d, _ := p["detail"].(string); !strings.Contains(d, want) {
		e.t.Errorf("detail %q does not contain %q", d, want)
	}
}

// walk follows links.next from path and returns every data element.
func (e *env) walk(path, key string) []map[string]any {
	e.t.Helper()
	var all []map[string]any
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page > 10000 {
			e.t.Fatal("pagination does not end")
		}
		m := e.ok(path, key)
		data, _ := m["data"].([]any)
		links, _ := m["links"].(map[string]any)
		for _, d := range data {
			all = append(all, d.(map[string]any))
		}
		next, ok := links["next"].(string)
		if !ok {
			return all
		}
		if len(data) == 0 {
			e.t.Fatalf("%s: an empty page with links.next", path)
		}
		if seen[next] {
			e.t.Fatalf("%s: cursor %s repeats", path, next)
		}
		seen[next] = true
		path = withParam(path, "cursor", next)
	}
}

// testPayTo receives the tests' payments.
const testPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

func testPaymentStore(t testing.TB) *x402.Store {
	t.Helper()
	st, err := x402.OpenStore(filepath.Join(t.TempDir(), "payments.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// testGate takes payments to testPayTo, through f or the built-in
// facilitator over store.
func testGate(t testing.TB, store *x402.Store, f x402.Facilitator) *x402.Gate {
	t.Helper()
	if f == nil {
		f = &x402.Local{Store: store}
	}
	g, err := x402.New(x402.Config{PayTo: testPayTo, Facilitator: f, Nonces: store})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func withParam(path, k, v string) string {
	u, _ := url.Parse(path)
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	return u.String()
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// newEnvWith starts a second server over the same keys and catalogue as e,
// with other options.
func newEnvWith(t testing.TB, e *env, opts ...func(*httpd.Options)) *env {
	t.Helper()
	e2 := *e
	high := access.Limits{1 << 30, 1 << 30, 1 << 30}
	o := httpd.Options{Codec: e.codec, Keys: e.keys, Limits: map[access.Plan]access.Limits{access.PlanFree: high, access.PlanApify: high, access.PlanDemo: high},
		Payments: testGate(t, e.payStore, nil), PublicURL: "https://api.example.org/v1"}
	for _, f := range opts {
		f(&o)
	}
	var err error
	if e2.svc, err = httpd.New(e.cat, o); err != nil {
		t.Fatal(err)
	}
	e2.addr = httpdtest.Serve(t, e2.svc)
	return &e2
}

// documentedType reports whether typ is the type URI of a kind of problem
// the description documents for status.
func documentedType(typ any, status int) bool {
	for _, k := range httpd.ProblemKinds {
		if typ == httpd.ProblemTypeBase+k.Kind && k.Status == status {
			return true
		}
	}
	return false
}

// problemType is the type member of a problem body.
func problemType(body []byte) any {
	var p map[string]any
	json.Unmarshal(body, &p)
	return p["type"]
}
