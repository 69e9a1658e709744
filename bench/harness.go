package bench

import (
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

// Concurrency of a result's run is recorded by the caller.

// SetDefaults fills the zero fields of c.
func (c *Config) SetDefaults() {
	if c.Concurrency == 0 {
		c.Concurrency = 32
	}
	if c.Duration == 0 {
		c.Duration = 3 * time.Second
	}
}

// Result is the outcome of driving one route.
type Result struct {
	Route          string
	Requests       int
	Errors         int
	RPS            float64
	P50, P99, P999 time.Duration
	BytesPerResp   int
	AllocsPerReq   float64 // whole-process allocations per request (server and client)
}

// Drive sends the route's request over Concurrency keep-alive connections
// for Duration and measures throughput and latency.
func Drive(cfg Config, route Route) (Result, error) {
	cfg.SetDefaults()
	client := &fasthttp.HostClient{
		Addr: cfg.Addr, MaxConns: cfg.Concurrency, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		MaxIdleConnDuration: time.Minute,
	}
	// One request first: the response size, and a check the route works.
	var size int
	{
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://" + cfg.Addr + route.Path)
		req.Header.Set("X-Api-Key", cfg.Key)
		if err := client.Do(req, res); err != nil {
			return Result{}, fmt.Errorf("%s: %w", route.Name, err)
		}
		if res.StatusCode() != 200 {
			return Result{}, fmt.Errorf("%s: status %d: %s", route.Name, res.StatusCode(), res.Body())
		}
		size = len(res.Body())
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(res)
	}
	var (
		wg       sync.WaitGroup
		errs     atomic.Int64
		lat      = latencyBuffers(cfg.Concurrency)
		deadline = time.Now().Add(cfg.Duration)
		start    = time.Now()
	)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(res)
			req.SetRequestURI("http://" + cfg.Addr + route.Path)
			req.Header.Set("X-Api-Key", cfg.Key)
			l := lat[w][:0]
			var interval time.Duration
			next := start
			if cfg.Rate > 0 {
				interval = time.Duration(float64(time.Second) * float64(cfg.Concurrency) / cfg.Rate)
				next = start.Add(time.Duration(w) * interval / time.Duration(cfg.Concurrency))
			}
			for {
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
				err := client.Do(req, res)
				if err != nil || res.StatusCode() != 200 {
					errs.Add(1)
				}
				l = append(l, time.Since(t0))
			}
			lat[w] = l
		}(w)
	}
	wg.Wait()
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
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	q := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(p*float64(len(all))))]
	}
	r := Result{Route: route.Name, Requests: len(all), Errors: int(errs.Load()), RPS: float64(len(all)) / elapsed.Seconds(),
		P50: q(0.50), P99: q(0.99), P999: q(0.999), BytesPerResp: size}
	if len(all) > 0 {
		r.AllocsPerReq = float64(ms1.Mallocs-ms0.Mallocs) / float64(len(all))
	}
	return r, nil
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

// Capture returns the status, headers and body the server sends for a
// route, for the static ceiling to replay.
func Capture(addr, key string, route Route) (contentType string, body []byte, err error) {
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI("http://" + addr + route.Path)
	req.Header.Set("X-Api-Key", key)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		return "", nil, err
	}
	if res.StatusCode() != 200 {
		return "", nil, fmt.Errorf("%s: status %d", route.Name, res.StatusCode())
	}
	return string(res.Header.ContentType()), append([]byte(nil), res.Body()...), nil
}

// StaticServer serves fixed bytes for any request: the ceiling a route is
// compared with, the same bytes over the same stack with no work at all.
type StaticServer struct {
	Addr string
	ln   net.Listener
	srv  *fasthttp.Server
	body atomic.Pointer[[]byte]
	ct   atomic.Pointer[string]
}

// StartStatic listens on a loopback port.
func StartStatic() (*StaticServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &StaticServer{Addr: ln.Addr().String(), ln: ln}
	s.srv = &fasthttp.Server{NoDefaultContentType: true, Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.SetContentType(*s.ct.Load())
		ctx.Response.SetBodyRaw(*s.body.Load())
	}}
	go s.srv.Serve(ln)
	return s, nil
}

// Serve makes the server answer with body.
func (s *StaticServer) Serve(contentType string, body []byte) {
	s.ct.Store(&contentType)
	s.body.Store(&body)
}

// Close stops the server.
func (s *StaticServer) Close() error { return s.srv.Shutdown() }

// Row is one line of a report: a route against its ceiling.
type Row struct {
	Result
	Ceiling  float64 // static handler's requests per second for the same bytes
	Ratio    float64 // RPS / Ceiling
	HalfPeak Result  // the route paced at half of its peak
	// StaticHalfPeak is the static handler paced at half of its own peak:
	// the latency floor of the machine and the harness.
	StaticHalfPeak Result
	HalfPeakConns  int
}

// WriteTable writes rows as a Markdown table.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| route | req/s | p50 | p99 | p99.9 | bytes | allocs/req | static req/s | ratio | at half peak: conns, req/s, p50 / p99 | static at half its peak: p50 / p99 |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s | %d | %.1f | %.0f | %.0f%% | %d, %.0f, %s / %s | %s / %s |\n", r.Route, r.RPS, fmtDur(r.P50), fmtDur(r.P99), fmtDur(r.P999),
			r.BytesPerResp, r.AllocsPerReq, r.Ceiling, 100*r.Ratio, r.HalfPeakConns, r.HalfPeak.RPS, fmtDur(r.HalfPeak.P50), fmtDur(r.HalfPeak.P99), fmtDur(r.StaticHalfPeak.P50), fmtDur(r.StaticHalfPeak.P99))
	}
}

func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
