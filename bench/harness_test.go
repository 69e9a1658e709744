package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// startStatic starts a static server that is closed when the test ends.
func startStatic(tb testing.TB) *StaticServer {
	tb.Helper()
	s, err := StartStatic()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// checkFunc returns a check of fn, named name in messages: check(in, want)
// fails the test unless fn(in) is want.
func checkFunc[In, Out comparable](t *testing.T, name string, fn func(In) Out) func(in In, want Out) {
	return func(in In, want Out) {
		t.Helper()
		if got := fn(in); got != want {
			t.Errorf("%s(%#v) = %#v, want %#v", name, in, got, want)
		}
	}
}

func TestDriveAgainstStatic(t *testing.T) {
	s := startStatic(t)
	s.Serve("application/json", []byte(`{"data":[]}`))
	cfg := Config{Addr: s.Addr, Concurrency: 4, Duration: 300 * time.Millisecond}
	r, err := Drive(cfg, Route{Name: "static", Path: "/anything"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests < 100 || r.Errors != 0 || r.RPS <= 0 || r.BytesPerResp != len(`{"data":[]}`) {
		t.Errorf("result %+v", r)
	}
	if !(r.P50 <= r.P99 && r.P99 <= r.P999 && r.P50 > 0) {
		t.Errorf("percentiles out of order: %v %v %v", r.P50, r.P99, r.P999)
	}
	half, conns, err := AtHalfPeak(cfg, Route{Name: "static", Path: "/x"}, r.RPS)
	if err != nil || conns < 1 || half.RPS < r.RPS/2*0.5 {
		t.Errorf("AtHalfPeak: %+v at %d conns, %v", half, conns, err)
	}
	// A paced run stays near its rate.
	paced := cfg
	paced.Rate = 500
	p, err := Drive(paced, Route{Name: "static", Path: "/x"})
	if err != nil || p.RPS > 700 || p.RPS < 300 {
		t.Errorf("paced at 500/s: %.0f req/s, %v", p.RPS, err)
	}
}

// countingServer answers 200 with the request URI as the body, except
// for URIs starting with /missing (404), and counts requests per URI and
// the keys it was sent.
type countingServer struct {
	addr string
	srv  *fasthttp.Server
	mu   sync.Mutex
	hits map[string]int
	keys map[string]int
	fail atomic.Bool // answer 503 to everything
}

func startCounting(t *testing.T) *countingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingServer{addr: ln.Addr().String(), hits: map[string]int{}, keys: map[string]int{}}
	cs.srv = &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		uri := string(ctx.RequestURI())
		cs.mu.Lock()
		cs.hits[uri]++
		cs.keys[string(ctx.Request.Header.Peek("X-Api-Key"))]++
		cs.mu.Unlock()
		if cs.fail.Load() {
			ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
			return
		}
		if strings.HasPrefix(uri, "/missing") {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			ctx.SetBodyString(`{"title":"Not Found"}`)
			return
		}
		ctx.SetBodyString(uri)
	}}
	go cs.srv.Serve(ln)
	t.Cleanup(func() { cs.srv.Shutdown() })
	return cs
}

func TestDriveRotatesPaths(t *testing.T) {
	cs := startCounting(t)
	paths := []string{"/a?q=1", "/bb?q=2", "/ccc?q=3"}
	r, err := Drive(Config{Addr: cs.addr, Key: "k1", Concurrency: 3, Duration: 200 * time.Millisecond}, Route{Name: "rot", Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != 0 || r.BytesPerResp != (6+7+8)/3 {
		t.Errorf("result %+v", r)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, p := range paths {
		// Each path gets about a third of the run (and one check request).
		if n := cs.hits[p]; n < r.Requests/6 {
			t.Errorf("%s sent %d times of %d", p, n, r.Requests)
		}
	}
	if len(cs.keys) != 1 || cs.keys["k1"] == 0 {
		t.Errorf("keys sent: %v", cs.keys)
	}
}

func TestDriveSkipsMissingRoute(t *testing.T) {
	cs := startCounting(t)
	_, err := Drive(Config{Addr: cs.addr, Concurrency: 2, Duration: 100 * time.Millisecond}, Route{Name: "search", Path: "/missing/search?q=golf"})
	if !IsNotFound(err) {
		t.Fatalf("want a 404 StatusError, got %v", err)
	}
	var se *StatusError
	if !errors.As(err, &se) || se.Route != "search" || !strings.Contains(err.Error(), "Not Found") {
		t.Errorf("error %v", err)
	}
	if _, err := CaptureRoute(cs.addr, "", Route{Name: "search", Paths: []string{"/ok", "/missing"}}); !IsNotFound(err) {
		t.Errorf("CaptureRoute: want a 404, got %v", err)
	}
	if IsNotFound(io.EOF) {
		t.Errorf("IsNotFound(io.EOF)")
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.hits["/missing/search?q=golf"] != 1 {
		t.Errorf("a missing route must be tried once, not driven: %d requests", cs.hits["/missing/search?q=golf"])
	}
}

func TestStaticServesTable(t *testing.T) {
	cs := startCounting(t)
	rt := Route{Name: "rot", Paths: []string{"/x?q=a", "/y?q=%C5%A0koda+Oct"}}
	table, err := CaptureRoute(cs.addr, "", rt)
	if err != nil {
		t.Fatal(err)
	}
	s := startStatic(t)
	s.Serve("text/plain", []byte("default"))
	s.ServeTable(table)
	get := func(uri string) string {
		t.Helper()
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		req.SetRequestURI("http://" + s.Addr + uri)
		if err := fasthttp.Do(req, res); err != nil {
			t.Fatal(err)
		}
		return string(res.Body())
	}
	if got := get("/x?q=a"); got != "/x?q=a" {
		t.Errorf("table body %q", got)
	}
	if got := get("/y?q=%C5%A0koda+Oct"); got != "/y?q=%C5%A0koda+Oct" {
		t.Errorf("table body %q", got)
	}
	if got := get("/other"); got != "default" {
		t.Errorf("default body %q", got)
	}
	r, err := Drive(Config{Addr: s.Addr, Concurrency: 2, Duration: 100 * time.Millisecond}, rt)
	if err != nil || r.BytesPerResp != (6+19)/2 {
		t.Errorf("static replay: %+v, %v", r, err)
	}
}

func TestRunUnderReloadCounts(t *testing.T) {
	cs := startCounting(t)
	routes := []Route{{Name: "a", Path: "/a"}, {Name: "b", Paths: []string{"/b1", "/b2"}}, {Name: "gone", Path: "/missing"}}
	var installed []int
	var mu sync.Mutex
	n := 0
	decode := func() (int, error) { n++; time.Sleep(20 * time.Millisecond); return n, nil }
	install := func(v int) { mu.Lock(); installed = append(installed, v); mu.Unlock() }
	plan := ReloadPlan{Every: 150 * time.Millisecond, Window: 200 * time.Millisecond}
	r, err := RunUnderReload(Config{Addr: cs.addr, Concurrency: 3, Duration: 1500 * time.Millisecond}, routes, plan, decode, install)
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != 0 || r.Requests < 100 || len(r.Swaps) < 2 || len(installed) != len(r.Swaps) {
		t.Errorf("result: %d requests, %d errors, %d swaps, %d installs", r.Requests, r.Errors, len(r.Swaps), len(installed))
	}
	if strings.Join(r.Routes, ",") != "a,b" || strings.Join(r.Skipped, ",") != "gone" {
		t.Errorf("routes %v, skipped %v", r.Routes, r.Skipped)
	}
	if got := r.Steady.Requests + r.Reloading.Requests + r.AfterSwap.Requests; got != r.Overall.Requests {
		t.Errorf("windows hold %d requests, overall %d", got, r.Overall.Requests)
	}
	if r.AfterSwap.Requests == 0 || r.Reloading.Requests == 0 {
		t.Errorf("no request in a swap window: %+v %+v", r.Reloading, r.AfterSwap)
	}
	for _, s := range r.Swaps {
		if !(s.Start <= s.Decoded && s.Decoded <= s.Installed && s.Installed+plan.Window <= r.Duration+50*time.Millisecond) {
			t.Errorf("swap %+v in a run of %s", s, r.Duration)
		}
	}
	cs.mu.Lock()
	if cs.hits["/b1"] == 0 || cs.hits["/b2"] == 0 || cs.hits["/missing"] != 1 {
		t.Errorf("hits %v", cs.hits)
	}
	cs.mu.Unlock()
	var buf bytes.Buffer
	WriteReload(&buf, r)
	for _, want := range []string{"**0 failed**", "skipped (404): [gone]", "200ms after each Install", "| overall |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestRunUnderReloadReportsFailures(t *testing.T) {
	cs := startCounting(t)
	// After the first swap, the server answers 503: every request fails.
	route := Route{Name: "a", Path: "/a"}
	decode := func() (int, error) { return 0, nil }
	install := func(int) { cs.fail.Store(true) }
	plan := ReloadPlan{Every: 100 * time.Millisecond, Window: 100 * time.Millisecond}
	r, err := RunUnderReload(Config{Addr: cs.addr, Concurrency: 2, Duration: 800 * time.Millisecond}, []Route{route}, plan, decode, install)
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors == 0 || len(r.FirstErrors) == 0 || !strings.Contains(r.FirstErrors[0], "status 503") {
		t.Errorf("failures not reported: %d errors, %v", r.Errors, r.FirstErrors)
	}
}

func TestReadPG(t *testing.T) {
	dir := t.TempDir()
	if r, err := ReadPG(filepath.Join(dir, "none.json")); r != nil || err != nil {
		t.Errorf("a missing file: %v, %v", r, err)
	}
	path := filepath.Join(dir, "pg.json")
	os.WriteFile(path, []byte(`{"version":"PostgreSQL 15.18","rows":103372,"concurrency":32,"threads":2,"duration_s":3,"protocol":"simple",
		"queries":[{"route":"search prefixes","script":"search_prefixes.sql","tps":812.5,"transactions":2437,"failed":0,"latency_avg_ms":39.4,"p50_ms":30.1,"p99_ms":140.2}]}`), 0o644)
	r, err := ReadPG(path)
	if err != nil {
		t.Fatal(err)
	}
	q := r.Query(RouteSearchPrefixes)
	if q == nil || q.TPS != 812.5 || q.P99Ms != 140.2 || r.Rows != 103372 {
		t.Errorf("read %+v, query %+v", r, q)
	}
	if r.Query("brands") != nil || (*PGRun)(nil).Query("x") != nil {
		t.Errorf("a route without a peer has a query")
	}
	os.WriteFile(path, []byte(`{"rows":`), 0o644)
	if _, err := ReadPG(path); err == nil {
		t.Errorf("a truncated file reads")
	}
	rows := []Row{
		{Result: Result{Route: "brands", RPS: 30000, P50: time.Millisecond, AllocsPerReq: 5.5}, Ceiling: 40000, Ratio: 0.75, CeilingAllocs: 2.25},
		{Result: Result{Route: RouteSearchPrefixes, RPS: 8125, P50: 2 * time.Millisecond, AllocsPerReq: 1}, Ceiling: 40000, Ratio: 0.2, PG: q, CeilingAllocs: -1},
	}
	if got := rows[0].ServerAllocsPerReq(); got != 3.25 {
		t.Errorf("server allocations %v, want 5.5 - 2.25", got)
	}
	var buf bytes.Buffer
	WriteTable(&buf, rows)
	WritePGTable(&buf, rows, r)
	out := buf.String()
	for _, want := range []string{"PostgreSQL req/s", "| 812 | 10.0× |", "**10.0×**", "30.10 ms", "140.20 ms", "pgbench -c 32 -T 3s", "| 5.5, 3.2 |", "| 1.0, – |"} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "| brands |") != 1 {
		t.Errorf("brands has no peer and belongs to the first table only:\n%s", out)
	}
}

func TestWriteChart(t *testing.T) {
	rows := []Row{
		{Result: Result{Route: "variant detail", RPS: 33990}, Ceiling: 35633, Ratio: 0.95},
		{Result: Result{Route: "search <typos> & more", RPS: 5000}, Ceiling: 30000, Ratio: 1.0 / 6, PG: &PGQuery{TPS: 700}},
	}
	var buf bytes.Buffer
	if err := WriteChart(&buf, "Throughput & ceiling", rows); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML with one bar per figure.
	d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, buf.String())
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// Background, 3 legend keys, 2+3 bars.
	if rects != 1+3+5 {
		t.Errorf("%d rects", rects)
	}
	for _, want := range []string{"variant detail", "search &lt;typos&gt; &amp; more", "34k (95%)", "700", "40k"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if err := WriteChart(failingWriter{}, "x", rows); err == nil {
		t.Errorf("a write error is not reported")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestMedianResult(t *testing.T) {
	rs := []Result{{Route: "a", RPS: 30}, {Route: "b", RPS: 10}, {Route: "c", RPS: 20}}
	if m := MedianResult(rs); m.Route != "c" || rs[0].Route != "a" {
		t.Errorf("median %+v, input %+v", m, rs)
	}
	if m := MedianResult(rs[:1]); m.Route != "a" {
		t.Errorf("median of one %+v", m)
	}
}

func TestNiceCeilAndKilo(t *testing.T) {
	f := checkFunc(t, "niceCeil", niceCeil)
	f(35633, 50000)
	f(20000, 20000)
	f(21000, 25000)
	f(7, 10)
	f(101, 200)
	k := checkFunc(t, "kilo", kilo)
	k(950, "950")
	k(1250, "1.2k")
	k(33990, "34k")
}

func TestMemory(t *testing.T) {
	f := func(status string, want int64, ok bool) {
		t.Helper()
		got, err := parseVmRSS([]byte(status))
		if (err == nil) != ok || got != want {
			t.Errorf("parseVmRSS(%q) = %d, %v", status, got, err)
		}
	}
	f("Name:\tx\nVmPeak:\t  2000 kB\nVmRSS:\t   1234 kB\nThreads: 4\n", 1234<<10, true)
	f("Name:\tx\n", 0, false)
	f("VmRSS:\t12 MB\n", 0, false)
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m, err := ReadMemory()
	if err != nil || m.RSS < 1<<20 || m.HeapAlloc == 0 {
		t.Errorf("ReadMemory: %+v, %v", m, err)
	}
	var buf bytes.Buffer
	WriteLoadReport(&buf, LoadReport{SnapshotBytes: 18 << 20, Decode: 610 * time.Millisecond, AfterLoad: m})
	if !strings.Contains(buf.String(), "| snapshot | 18.0 MiB |") || !strings.Contains(buf.String(), "610.00 ms") || !strings.Contains(buf.String(), "after loading") {
		t.Errorf("report:\n%s", buf.String())
	}
}
