package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Route is one request of the load mix.
type Route struct {
	Name string
	Path string // path and query
	// Paths, when set, are sent in turn instead of Path: a route whose
	// parameters vary (typeahead phrases, filter values), so that no cache
	// keyed by the query answers every request and the database peer runs
	// the same list (see cmd/pgtsv). Each connection starts at another
	// offset of the list.
	Paths []string
}

// paths returns the paths the route sends: Paths, or Path alone.
func (r Route) paths() []string {
	if len(r.Paths) > 0 {
		return r.Paths
	}
	return []string{r.Path}
}

// Config configures a load run. The zero value is usable after SetDefaults.
type Config struct {
	// Addr is the server under test (host:port).
	Addr string
	// Key is sent in X-Api-Key.
	Key string
	// Concurrency is the number of connections, each with one request in
	// flight. Default 32.
	Concurrency int
	// Duration of each measurement. Default 3 s.
	Duration time.Duration
	// Rate, when positive, paces the load open-loop at this many requests
	// per second instead of sending as fast as possible; latency is then
	// measured from each request's scheduled time, so a stall is not hidden.
	Rate float64
}

// SetDefaults fills the zero fields of c.
func (c *Config) SetDefaults() {
	if c.Concurrency == 0 {
		c.Concurrency = 32
	}
	if c.Duration == 0 {
		c.Duration = 3 * time.Second
	}
}

func (c *Config) client() *fasthttp.HostClient {
	return &fasthttp.HostClient{
		Addr: c.Addr, MaxConns: c.Concurrency, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		MaxIdleConnDuration: time.Minute,
	}
}

// newRequests builds a request for each path, one worker's set: a worker
// sends them in turn over its own connection. Release them with
// releaseRequests.
func (c *Config) newRequests(paths []string) []*fasthttp.Request {
	reqs := make([]*fasthttp.Request, len(paths))
	for i, p := range paths {
		reqs[i] = c.newRequest(p)
	}
	return reqs
}

// connections runs work on c.Concurrency connections at once and returns
// when every one is done: worker w gets its own requests for paths (see
// newRequests) and its own response.
func (c *Config) connections(paths []string, work func(w int, reqs []*fasthttp.Request, res *fasthttp.Response)) {
	var wg sync.WaitGroup
	for w := 0; w < c.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			reqs := c.newRequests(paths)
			defer releaseRequests(reqs)
			res := fasthttp.AcquireResponse()
			defer fasthttp.ReleaseResponse(res)
			work(w, reqs, res)
		}(w)
	}
	wg.Wait()
}

func releaseRequests(reqs []*fasthttp.Request) {
	for _, r := range reqs {
		fasthttp.ReleaseRequest(r)
	}
}

// newRequest returns a request for path on cfg's server carrying cfg's key.
// The caller releases it with fasthttp.ReleaseRequest.
func (c *Config) newRequest(path string) *fasthttp.Request {
	req := fasthttp.AcquireRequest()
	req.SetRequestURI("http://" + c.Addr + path)
	if c.Key != "" {
		req.Header.Set("X-Api-Key", c.Key)
	}
	return req
}

// StatusError reports a route that answered other than 200 before a run.
type StatusError struct {
	Route, Path string
	Status      int
	Body        string // truncated to 200 bytes
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: GET %s: status %d: %s", e.Route, e.Path, e.Status, e.Body)
}

// IsNotFound tells whether err is a route answering 404: a route the
// server under test does not have (yet), which a run skips.
func IsNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == fasthttp.StatusNotFound
}

// check sends each of the route's paths once and returns the mean body
// size; any status but 200 is a *StatusError.
func check(cfg Config, client *fasthttp.HostClient, route Route) (size int, err error) {
	ps := route.paths()
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(res)
	total := 0
	for _, p := range ps {
		req := cfg.newRequest(p)
		err := client.DoTimeout(req, res, 10*time.Second)
		fasthttp.ReleaseRequest(req)
		if err != nil {
			return 0, fmt.Errorf("%s: GET %s: %w", route.Name, p, err)
		}
		if res.StatusCode() != fasthttp.StatusOK {
			body := res.Body()
			if len(body) > 200 {
				body = body[:200]
			}
			return 0, &StatusError{Route: route.Name, Path: p, Status: res.StatusCode(), Body: string(body)}
		}
		total += len(res.Body())
	}
	return total / len(ps), nil
}

// Result is the outcome of driving one route.
type Result struct {
	Route          string
	Requests       int
	Errors         int
	RPS            float64
	P50, P99, P999 time.Duration
	BytesPerResp   int     // mean over the route's paths
	AllocsPerReq   float64 // whole-process allocations per request (server and client)
}

// Drive sends the route's requests over Concurrency keep-alive connections
// for Duration and measures throughput and latency. Before the run it sends
// each of the route's paths once; a path that does not answer 200 stops it
// with a *StatusError (IsNotFound tells a route the server lacks).
func Drive(cfg Config, route Route) (Result, error) {
	cfg.SetDefaults()
	client := cfg.client()
	size, err := check(cfg, client, route)
	if err != nil {
		return Result{}, err
	}
	paths := route.paths()
	var (
		errs     atomic.Int64
		lat      = latencyBuffers(cfg.Concurrency)
		deadline = time.Now().Add(cfg.Duration)
		start    = time.Now()
	)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cfg.connections(paths, func(w int, reqs []*fasthttp.Request, res *fasthttp.Response) {
		l := lat[w][:0]
		var interval time.Duration
		next := start
		if cfg.Rate > 0 {
			interval = time.Duration(float64(time.Second) * float64(cfg.Concurrency) / cfg.Rate)
			next = start.Add(time.Duration(w) * interval / time.Duration(cfg.Concurrency))
		}
		for i := w; ; i++ {
			t0 := time.Now()
			if interval > 0 {
				if d := time.Until(next); d > 0 {
					time.Sleep(d)
				}
				t0 = next // latency from the scheduled time
				next = next.Add(interval)
			}
			if t0.After(deadline) {
				break
			}
			err := client.Do(reqs[i%len(reqs)], res)
			if err != nil || res.StatusCode() != fasthttp.StatusOK {
				errs.Add(1)
			}
			l = append(l, time.Since(t0))
		}
		lat[w] = l
	})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms1)
	n := 0
	for _, l := range lat {
		n += len(l)
	}
	all := make([]time.Duration, 0, n)
	for _, l := range lat {
		all = append(all, l...)
	}
	sortDurations(all)
	r := Result{Route: route.Name, Requests: len(all), Errors: int(errs.Load()), RPS: float64(len(all)) / elapsed.Seconds(),
		P50: quantile(all, 0.50), P99: quantile(all, 0.99), P999: quantile(all, 0.999), BytesPerResp: size}
	if len(all) > 0 {
		r.AllocsPerReq = float64(ms1.Mallocs-ms0.Mallocs) / float64(len(all))
	}
	return r, nil
}

// MedianResult returns the result of median throughput among rs (the
// upper one of an even count); rs must not be empty.
func MedianResult(rs []Result) Result {
	s := append([]Result(nil), rs...)
	sort.Slice(s, func(i, j int) bool { return s[i].RPS < s[j].RPS })
	return s[len(s)/2]
}

func sortDurations(d []time.Duration) { sort.Slice(d, func(i, j int) bool { return d[i] < d[j] }) }

// quantile returns the p-quantile of sorted, 0 when it is empty.
func quantile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// AtHalfPeak measures the route closed-loop at the smallest concurrency
// (1, 2, 3, 4, 6, 8, ...) whose throughput reaches half of peak, and
// returns that measurement. Closed-loop at low concurrency measures the
// latency of the server rather than the wake-up jitter of a paced client,
// which on a 2-core machine shared with the client dominates the tail.
func AtHalfPeak(cfg Config, route Route, peak float64) (r Result, conns int, err error) {
	cfg.SetDefaults()
	for _, c := range []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32} {
		cfg.Concurrency = c
		if r, err = Drive(cfg, route); err != nil || r.RPS >= peak/2 {
			return r, c, err
		}
	}
	return r, cfg.Concurrency, nil
}

// latBufs are the per-connection latency buffers, reused across runs so
// the harness's own allocations do not trigger collections that would be
// charged to the server (runs are sequential).
var latBufs [][]time.Duration

func latencyBuffers(n int) [][]time.Duration {
	for len(latBufs) < n {
		latBufs = append(latBufs, make([]time.Duration, 0, 1<<18))
	}
	return latBufs[:n]
}

// Capture returns the content type and body the server sends for a path,
// for the static ceiling to replay.
func Capture(addr, key, path string) (contentType string, body []byte, err error) {
	cfg := Config{Addr: addr, Key: key}
	req, res := cfg.newRequest(path), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		return "", nil, err
	}
	if res.StatusCode() != fasthttp.StatusOK {
		return "", nil, &StatusError{Path: path, Status: res.StatusCode()}
	}
	return string(res.Header.ContentType()), append([]byte(nil), res.Body()...), nil
}

// CaptureRoute captures every path of route into a replay table for
// StaticServer.ServeTable.
func CaptureRoute(addr, key string, route Route) (map[string]StaticBody, error) {
	t := make(map[string]StaticBody, len(route.paths()))
	for _, p := range route.paths() {
		ct, body, err := Capture(addr, key, p)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) {
				se.Route = route.Name
			}
			return nil, err
		}
		t[p] = StaticBody{ContentType: ct, Body: body}
	}
	return t, nil
}

// StaticBody is one fixed response of a StaticServer.
type StaticBody struct {
	ContentType string
	Body        []byte
}

// StaticServer serves fixed bytes: the ceiling a route is compared with,
// the same bytes over the same stack with no work at all.
type StaticServer struct {
	Addr  string
	ln    net.Listener
	srv   *fasthttp.Server
	table atomic.Pointer[map[string]*StaticBody]
	def   atomic.Pointer[StaticBody]
}

// StartStatic listens on a loopback port.
func StartStatic() (*StaticServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &StaticServer{Addr: ln.Addr().String(), ln: ln}
	s.def.Store(&StaticBody{})
	s.srv = &fasthttp.Server{NoDefaultContentType: true, Handler: func(ctx *fasthttp.RequestCtx) {
		b := s.def.Load()
		if t := s.table.Load(); t != nil {
			if tb, ok := (*t)[string(ctx.RequestURI())]; ok {
				b = tb
			}
		}
		ctx.Response.Header.SetContentType(b.ContentType)
		ctx.Response.SetBodyRaw(b.Body)
	}}
	go s.srv.Serve(ln)
	return s, nil
}

// Serve makes the server answer every request with body.
func (s *StaticServer) Serve(contentType string, body []byte) {
	s.table.Store(nil)
	s.def.Store(&StaticBody{ContentType: contentType, Body: body})
}

// ServeTable makes the server answer each request URI (path and query) of
// t with its body, and any other with the last body given to Serve.
func (s *StaticServer) ServeTable(t map[string]StaticBody) {
	m := make(map[string]*StaticBody, len(t))
	for k, v := range t {
		m[k] = &v
	}
	s.table.Store(&m)
}

// Close stops the server.
func (s *StaticServer) Close() error { return s.srv.Shutdown() }

// Row is one line of a report: a route against its ceiling.
type Row struct {
	Result
	Ceiling float64 // static handler's requests per second for the same bytes
	Ratio   float64 // RPS / Ceiling
	// CeilingAllocs is the static run's whole-process allocations per
	// request: the client's own, since the static handler sends a
	// preallocated body. AllocsPerReq minus it estimates the server's.
	// Negative when the server is another process.
	CeilingAllocs float64
	HalfPeak      Result // the route at the smallest concurrency reaching half of its peak
	// StaticHalfPeak is the static handler at half of its own peak: the
	// latency floor of the machine and the harness.
	StaticHalfPeak Result
	HalfPeakConns  int
	// PG is the database peer's run of the same query, nil when there is
	// none (see PGRun).
	PG *PGQuery
}

// ServerAllocsPerReq estimates the server's allocations per request: the
// route's whole-process figure less the static run's, which has the same
// client, the same bytes and a server that allocates nothing.
func (r Row) ServerAllocsPerReq() float64 { return max(0, r.AllocsPerReq-r.CeilingAllocs) }

// WriteTable writes rows as a Markdown table.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| route | req/s | p50 | p99 | p99.9 | bytes | allocs/req: process, server | static req/s | ratio | at half peak: conns, req/s, p50 / p99 | static at half its peak: p50 / p99 | PostgreSQL req/s | × PostgreSQL |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		half, staticHalf := "–", "–"
		if r.HalfPeakConns > 0 {
			half = fmt.Sprintf("%d, %.0f, %s / %s", r.HalfPeakConns, r.HalfPeak.RPS, fmtDur(r.HalfPeak.P50), fmtDur(r.HalfPeak.P99))
			staticHalf = fmt.Sprintf("%s / %s", fmtDur(r.StaticHalfPeak.P50), fmtDur(r.StaticHalfPeak.P99))
		}
		pg, x := "", ""
		if r.PG != nil && r.PG.TPS > 0 {
			pg, x = fmt.Sprintf("%.0f", r.PG.TPS), fmt.Sprintf("%.1f×", r.RPS/r.PG.TPS)
		}
		server := "–"
		if r.CeilingAllocs >= 0 {
			server = fmt.Sprintf("%.1f", r.ServerAllocsPerReq())
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s | %d | %.1f, %s | %.0f | %.0f%% | %s | %s | %s | %s |\n", r.Route, r.RPS, fmtDur(r.P50), fmtDur(r.P99), fmtDur(r.P999),
			r.BytesPerResp, r.AllocsPerReq, server, r.Ceiling, 100*r.Ratio, half, staticHalf, pg, x)
	}
}

// WritePGTable writes the rows that have a database peer side by side
// with it: our route (lookup, rendering and HTTP included) against the
// query alone in PostgreSQL, at the same concurrency.
func WritePGTable(w io.Writer, rows []Row, pg *PGRun) {
	n := 0
	for _, r := range rows {
		if r.PG != nil {
			n++
		}
	}
	if n == 0 || pg == nil {
		return
	}
	fmt.Fprintf(w, "Against %s, the query alone over %d rows (pgbench -c %d -T %ds, %s):\n\n", pg.Version, pg.Rows, pg.Concurrency, pg.DurationS, pg.Protocol)
	fmt.Fprintln(w, "| route | req/s | p50 | p99 | PostgreSQL req/s | PostgreSQL p50 | PostgreSQL p99 | × PostgreSQL |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		if r.PG == nil {
			continue
		}
		x := ""
		if r.PG.TPS > 0 {
			x = fmt.Sprintf("**%.1f×**", r.RPS/r.PG.TPS)
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %.0f | %s | %s | %s |\n", r.Route, r.RPS, fmtDur(r.P50), fmtDur(r.P99),
			r.PG.TPS, fmtMillis(r.PG.P50Ms), fmtMillis(r.PG.P99Ms), x)
	}
}

func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

func fmtMillis(ms float64) string { return fmtDur(time.Duration(ms * float64(time.Millisecond))) }
