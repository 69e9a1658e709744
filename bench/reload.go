package bench

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/tick"
)

// Swap is one reload during a run, in time since the run started.
type Swap struct {
	Start     time.Duration // the reload began: decoding the snapshot
	Decoded   time.Duration // the new catalogue is ready
	Installed time.Duration // Install returned: new requests see it
}

// Window is the latency of the requests that started in one kind of
// interval of a reload run.
type Window struct {
	Name                string
	Requests, Errors    int
	P50, P99, P999, Max time.Duration
}

// ReloadResult is the outcome of RunUnderReload.
type ReloadResult struct {
	Routes      []string // routes driven (those answering 404 are skipped)
	Skipped     []string
	Requests    int
	Errors      int
	FirstErrors []string // up to 10, for the report
	RPS         float64
	Duration    time.Duration
	Window      time.Duration // ReloadPlan.Window
	Swaps       []Swap
	// Overall is every request; Reloading the requests that started while
	// a new catalogue was being decoded (the decoder competes for the
	// CPU); AfterSwap those that started in the second after an Install
	// (cold response caches, the old catalogue becoming garbage); Steady
	// the rest.
	Overall, Reloading, AfterSwap, Steady Window
}

// ReloadPlan says when RunUnderReload reloads.
type ReloadPlan struct {
	// Every is the interval between the starts of two reloads.
	Every time.Duration
	// Window is how long after each Install requests count as "after a
	// swap". Default 1 s. No reload starts less than Window+Every/2 before
	// the end of the run, so every window lies inside it.
	Window time.Duration
}

type sample struct {
	at, lat int64 // ns since the run's start; ns
	failed  bool
}

// RunUnderReload drives all paths of routes at once, each connection
// cycling through them from its own offset, for cfg.Duration, and every
// plan.Every decodes a fresh catalogue with decode and installs it with
// install, as SIGHUP does in catalogued. It reports failed requests (any
// transport error or status other than 200; the target is 0) and latency
// overall, while decoding, in the second after each swap and otherwise.
func RunUnderReload[C any](cfg Config, routes []Route, plan ReloadPlan, decode func() (C, error), install func(C)) (ReloadResult, error) {
	cfg.SetDefaults()
	if plan.Window == 0 {
		plan.Window = time.Second
	}
	client := cfg.client()
	res := ReloadResult{Window: plan.Window}
	var paths []string
	for _, rt := range routes {
		if _, err := check(cfg, client, rt); err != nil {
			if IsNotFound(err) {
				res.Skipped = append(res.Skipped, rt.Name)
				continue
			}
			return res, err
		}
		res.Routes = append(res.Routes, rt.Name)
		paths = append(paths, rt.paths()...)
	}
	if len(paths) == 0 {
		return res, fmt.Errorf("no route to drive")
	}
	var (
		mu       sync.Mutex
		samples  = make([][]sample, cfg.Concurrency)
		start    = time.Now()
		deadline = start.Add(cfg.Duration)
		stop     = make(chan struct{})
		reloadWG sync.WaitGroup
		reloadEr error
	)
	reloadWG.Add(1)
	go func() {
		defer reloadWG.Done()
		tick.While(plan.Every, stop, func() bool {
			// Leave a whole window after the last swap inside the run.
			if time.Until(deadline) < plan.Window+plan.Every/2 {
				return false
			}
			s := Swap{Start: time.Since(start)}
			c, err := decode()
			if err != nil {
				reloadEr = fmt.Errorf("cannot reload: %w", err)
				return false
			}
			s.Decoded = time.Since(start)
			install(c)
			s.Installed = time.Since(start)
			res.Swaps = append(res.Swaps, s)
			return true
		})
	}()
	cfg.connections(paths, func(w int, reqs []*fasthttp.Request, resp *fasthttp.Response) {
		ss := make([]sample, 0, 1<<16)
		for i := w * len(paths) / cfg.Concurrency; ; i++ {
			t0 := time.Now()
			if t0.After(deadline) {
				break
			}
			req := reqs[i%len(reqs)]
			err := client.Do(req, resp)
			failed := err != nil || resp.StatusCode() != fasthttp.StatusOK
			ss = append(ss, sample{at: int64(t0.Sub(start)), lat: int64(time.Since(t0)), failed: failed})
			if failed {
				mu.Lock()
				if len(res.FirstErrors) < 10 {
					what := fmt.Sprint(err)
					if err == nil {
						what = fmt.Sprintf("status %d: %.120s", resp.StatusCode(), resp.Body())
					}
					res.FirstErrors = append(res.FirstErrors, fmt.Sprintf("%.1fs GET %s: %s", t0.Sub(start).Seconds(), req.URI().RequestURI(), what))
				}
				mu.Unlock()
			}
		}
		samples[w] = ss
	})
	res.Duration = time.Since(start)
	close(stop)
	reloadWG.Wait()
	if reloadEr != nil {
		return res, reloadEr
	}
	res.classify(samples)
	return res, nil
}

// classify fills the windows from the samples and the swaps.
func (r *ReloadResult) classify(samples [][]sample) {
	var all, reloading, after, steady []sample
	for _, ss := range samples {
		for _, s := range ss {
			all = append(all, s)
			at := time.Duration(s.at)
			kind := 0
			for _, sw := range r.Swaps {
				if at >= sw.Installed && at < sw.Installed+r.Window {
					kind = 2
					break
				}
				if at >= sw.Start && at < sw.Installed {
					kind = 1
				}
			}
			switch kind {
			case 0:
				steady = append(steady, s)
			case 1:
				reloading = append(reloading, s)
			case 2:
				after = append(after, s)
			}
		}
	}
	r.Overall = window("overall", all)
	r.Reloading = window("while decoding a new catalogue", reloading)
	r.AfterSwap = window(fmt.Sprintf("in the %s after each Install", r.Window), after)
	r.Steady = window("otherwise (steady)", steady)
	r.Requests, r.Errors = r.Overall.Requests, r.Overall.Errors
	r.RPS = float64(r.Requests) / r.Duration.Seconds()
}

func window(name string, ss []sample) Window {
	w := Window{Name: name, Requests: len(ss)}
	lat := make([]time.Duration, len(ss))
	for i, s := range ss {
		lat[i] = time.Duration(s.lat)
		if s.failed {
			w.Errors++
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	w.P50, w.P99, w.P999 = quantile(lat, 0.5), quantile(lat, 0.99), quantile(lat, 0.999)
	if len(lat) > 0 {
		w.Max = lat[len(lat)-1]
	}
	return w
}

// WriteReload writes a reload run as Markdown.
func WriteReload(w io.Writer, r ReloadResult) {
	fmt.Fprintf(w, "%d requests in %.1f s (%.0f req/s) over %d routes, **%d failed**; %d swaps", r.Requests, r.Duration.Seconds(), r.RPS, len(r.Routes), r.Errors, len(r.Swaps))
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "; skipped (404): %v", r.Skipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	if len(r.Swaps) > 0 {
		var dec, inst, maxDec, maxInst time.Duration
		for _, s := range r.Swaps {
			d, i := s.Decoded-s.Start, s.Installed-s.Decoded
			dec, inst = dec+d, inst+i
			maxDec, maxInst = max(maxDec, d), max(maxInst, i)
		}
		n := time.Duration(len(r.Swaps))
		fmt.Fprintf(w, "Under load, decoding the snapshot took %s on average (max %s) and Install %s (max %s).\n\n",
			fmtDur(dec/n), fmtDur(maxDec), fmtDur(inst/n), fmtDur(maxInst))
	}
	fmt.Fprintln(w, "| requests started | requests | failed | p50 | p99 | p99.9 | max |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, x := range []Window{r.Overall, r.Steady, r.Reloading, r.AfterSwap} {
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s |\n", x.Name, x.Requests, x.Errors, fmtDur(x.P50), fmtDur(x.P99), fmtDur(x.P999), fmtDur(x.Max))
	}
	for _, e := range r.FirstErrors {
		fmt.Fprintf(w, "\n- failed: %s", e)
	}
	if len(r.FirstErrors) > 0 {
		fmt.Fprintln(w)
	}
}
