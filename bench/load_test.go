package bench

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/loadertest"
)

var (
	flagDuration    = flag.Duration("bench.duration", 3*time.Second, "duration of each measurement of the load run")
	flagConcurrency = flag.Int("bench.concurrency", 32, "connections of the load run, one request in flight each")
	flagTarget      = flag.String("bench.target", "", "host:port (or http://host:port) of an external server to drive instead of the in-process one (needs -bench.key); ids are discovered through its API")
	flagKey         = flag.String("bench.key", "", "API key for -bench.target, sent as X-Api-Key; the server's limits for its plan must allow the run (catalogued -limits.<plan>)")
	flagOut         = flag.String("bench.out", "", "file to write the Markdown report of BenchmarkLoad to (it is also written to -bench.dir/load.md)")
	flagDir         = flag.String("bench.dir", "out", "directory, relative to bench/, of the run's outputs (load.md, load.svg, reload.md) and of the database peer's pg.json")
	flagRoutes      = flag.String("bench.routes", "", "regular expression selecting the routes of the mix to drive; empty drives all")
	flagRepeat      = flag.Int("bench.repeat", 1, "measurements of each route and of its ceiling, alternating; the median of each is reported (3 steadies the ratio on a noisy machine)")
	flagHalfPeak    = flag.Bool("bench.halfpeak", true, "also measure each route and its ceiling at the smallest concurrency reaching half of their peak (latency without saturation)")
	flagReloadEvery = flag.Duration("bench.reloadEvery", 5*time.Second, "BenchmarkReload: interval between two reloads of the catalogue")
	flagReloadFor   = flag.Duration("bench.reloadFor", 30*time.Second, "BenchmarkReload: duration of the run")
	flagReloadMix   = flag.String("bench.reloadRoutes", "^(variant|specs|brands|models|generation|filter|compare)", "BenchmarkReload: regular expression selecting the routes driven together; the default leaves out search, whose 10-100 ms requests would make the mixed tail")
)

// BenchmarkLoad drives every route of the mix against the real server,
// in process over loopback on the full snapshot ($CATALOGUE_SNAPSHOT or
// generated) with limits raised for the run, or against -bench.target, and
// the same bytes from a static handler; it prints the table of
// bench/RESULTS.md, the database peer side by side when
// -bench.dir/pg.json exists (bench/pg/run.sh), memory and load times, and
// writes a chart to -bench.dir/load.svg. Run it with
//
//	go test ./bench -run '^$' -bench Load -benchtime 1x
func BenchmarkLoad(b *testing.B) {
	if b.N > 1 {
		b.Skip("run with -benchtime 1x: one load run is the measurement")
	}
	var ip *inProcess
	addr, key := HostPort(*flagTarget), *flagKey
	if addr == "" {
		ip = startInProcess(b)
		addr, key = ip.addr, ip.key
	}
	ids, err := DiscoverIDs(addr, key)
	if err != nil {
		b.Fatal(err)
	}
	pg, err := ReadPG(filepath.Join(*flagDir, "pg.json"))
	if err != nil {
		b.Fatal(err)
	}
	static := startStatic(b)
	cfg := Config{Addr: addr, Key: key, Concurrency: *flagConcurrency, Duration: *flagDuration}
	var rows []Row
	var notes bytes.Buffer
	sel := regexp.MustCompile(*flagRoutes)
	for _, rt := range Mix(ids) {
		if !sel.MatchString(rt.Name) {
			continue
		}
		table, err := CaptureRoute(addr, key, rt)
		if IsNotFound(err) {
			fmt.Fprintf(&notes, "- %s: skipped: 404 (%s)\n", rt.Name, rt.Path)
			fmt.Printf("%s: skipped: 404\n", rt.Name)
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		static.ServeTable(table)
		sc := cfg
		sc.Addr = static.Addr
		// The route and its ceiling alternate, -bench.repeat times; the
		// median of each is kept.
		var runs, ceils []Result
		failed := 0
		for range max(1, *flagRepeat) {
			res, err := Drive(cfg, rt)
			if err != nil {
				b.Fatal(err)
			}
			ceil, err := Drive(sc, rt)
			if err != nil {
				b.Fatal(err)
			}
			runs, ceils, failed = append(runs, res), append(ceils, ceil), failed+res.Errors
		}
		res, ceil := MedianResult(runs), MedianResult(ceils)
		if ceil.BytesPerResp != res.BytesPerResp {
			b.Fatalf("%s: the static handler replays %d bytes per response, the server sends %d", rt.Name, ceil.BytesPerResp, res.BytesPerResp)
		}
		row := Row{Result: res, Ceiling: ceil.RPS, Ratio: res.RPS / ceil.RPS, CeilingAllocs: ceil.AllocsPerReq, PG: pg.Query(rt.Name)}
		if *flagTarget != "" {
			row.CeilingAllocs = -1 // the server is another process: its allocations are not seen here
		}
		if *flagHalfPeak {
			if row.HalfPeak, row.HalfPeakConns, err = AtHalfPeak(cfg, rt, res.RPS); err != nil {
				b.Fatal(err)
			}
			if row.StaticHalfPeak, _, err = AtHalfPeak(sc, rt, ceil.RPS); err != nil {
				b.Fatal(err)
			}
		}
		fmt.Printf("%s: %.0f req/s, p99 %s, %.0f%% of the ceiling\n", rt.Name, res.RPS, fmtDur(res.P99), 100*row.Ratio)
		rows = append(rows, row)
		if failed+row.HalfPeak.Errors > 0 {
			b.Errorf("%s: %d failed requests", rt.Name, failed+row.HalfPeak.Errors)
		}
	}
	var buf bytes.Buffer
	where := "in process"
	if ip == nil {
		where = "external server " + addr + " (allocs/req counts the client alone)"
	}
	fmt.Fprintf(&buf, "%s, concurrency %d, %s per measurement, median of %d, GOMAXPROCS %d\n\n", where, cfg.Concurrency, cfg.Duration, max(1, *flagRepeat), runtimeProcs())
	WriteTable(&buf, rows)
	if notes.Len() > 0 {
		fmt.Fprintf(&buf, "\n%s", notes.String())
	}
	if pg != nil {
		fmt.Fprintln(&buf)
		if pg.Concurrency != cfg.Concurrency || time.Duration(pg.DurationS)*time.Second != cfg.Duration {
			fmt.Fprintf(&buf, "**Warning:** PostgreSQL ran with %d clients for %d s, this run with %d connections for %s: run bench/pg/run.sh with CONCURRENCY and DURATION to match.\n\n",
				pg.Concurrency, pg.DurationS, cfg.Concurrency, cfg.Duration)
		}
		WritePGTable(&buf, rows, pg)
	}
	if ip != nil {
		if ip.report.AfterRun, err = ReadMemory(); err != nil {
			b.Logf("memory: %v", err)
		}
		fmt.Fprintln(&buf)
		WriteLoadReport(&buf, ip.report)
	}
	fmt.Print("\n", buf.String())
	if err := os.MkdirAll(*flagDir, 0o755); err != nil {
		b.Fatal(err)
	}
	write := func(path string, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Error(err)
		}
	}
	write(filepath.Join(*flagDir, "load.md"), buf.Bytes())
	if *flagOut != "" {
		write(*flagOut, buf.Bytes())
	}
	var svg bytes.Buffer
	title := fmt.Sprintf("Throughput per route against the static ceiling (in process, %d connections, GOMAXPROCS %d)", cfg.Concurrency, runtimeProcs())
	if ip == nil {
		title = fmt.Sprintf("Throughput per route against the static ceiling (%s, %d connections)", addr, cfg.Concurrency)
	}
	if err := WriteChart(&svg, title, rows); err != nil {
		b.Fatal(err)
	}
	write(filepath.Join(*flagDir, "load.svg"), svg.Bytes())
	fmt.Printf("\nwrote %s and %s\n", filepath.Join(*flagDir, "load.md"), filepath.Join(*flagDir, "load.svg"))
}

// BenchmarkReload drives the whole mix at once against the
// in-process server for -bench.reloadFor while a fresh catalogue is
// decoded from the same snapshot bytes and installed every
// -bench.reloadEvery (what SIGHUP does), and reports failed requests (the
// target is 0) and latency while decoding and in the second after each
// swap against the rest. Run it with
//
//	go test ./bench -run '^$' -bench Reload -benchtime 1x
func BenchmarkReload(b *testing.B) {
	if b.N > 1 {
		b.Skip("run with -benchtime 1x: one load run is the measurement")
	}
	if *flagTarget != "" {
		b.Skip("the reload run drives the in-process server; against an external one, send SIGHUP or POST /admin/reload during BenchmarkLoad")
	}
	ip := startInProcess(b)
	ids, err := DiscoverIDs(ip.addr, ip.key)
	if err != nil {
		b.Fatal(err)
	}
	var routes []Route
	sel := regexp.MustCompile(*flagReloadMix)
	for _, rt := range Mix(ids) {
		if sel.MatchString(rt.Name) {
			routes = append(routes, rt)
		}
	}
	cfg := Config{Addr: ip.addr, Key: ip.key, Concurrency: *flagConcurrency, Duration: *flagReloadFor}
	decode := func() (*engine.Catalogue, error) { return loader.FromBytes(ip.file) }
	r, err := RunUnderReload(cfg, routes, ReloadPlan{Every: *flagReloadEvery}, decode, ip.svc.Install)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "in process, concurrency %d, %s, a reload every %s, GOMAXPROCS %d; routes: %v\n\n", cfg.Concurrency, cfg.Duration, *flagReloadEvery, runtimeProcs(), r.Routes)
	WriteReload(&buf, r)
	fmt.Print(buf.String())
	if err := os.MkdirAll(*flagDir, 0o755); err == nil {
		os.WriteFile(filepath.Join(*flagDir, "reload.md"), buf.Bytes(), 0o644)
	}
	if r.Errors > 0 {
		b.Errorf("%d failed requests during reloads (the target is 0)", r.Errors)
	}
	if len(r.Swaps) == 0 {
		b.Errorf("no reload happened: -bench.reloadFor %s is too short for -bench.reloadEvery %s", *flagReloadFor, *flagReloadEvery)
	}
}

// inProcess is the real server on the full catalogue, on a loopback port.
type inProcess struct {
	addr, key string
	svc       *httpd.Service
	file      []byte // the snapshot, for reloads
	report    LoadReport
}

// serviceOptions opens a key store and the token codec in a fresh state
// directory, as catalogued does, and returns the options of a service with
// them and unlimited limits.
func serviceOptions(tb testing.TB) httpd.Options {
	tb.Helper()
	state := tb.TempDir()
	keys, err := access.Open(filepath.Join(state, "state"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { keys.Close() })
	secret, err := publicid.LoadOrCreateSecret(state)
	if err != nil {
		tb.Fatal(err)
	}
	codec, err := publicid.New(secret)
	if err != nil {
		tb.Fatal(err)
	}
	return httpd.Options{Codec: codec, Keys: keys, Limits: unlimited()}
}

// newKey creates an active key of plan in keys and returns its text.
func newKey(tb testing.TB, keys access.Backend, plan access.Plan, note string) string {
	tb.Helper()
	text, _, err := keys.Create(plan, access.StateActive, "", note)
	if err != nil {
		tb.Fatal(err)
	}
	return text
}

// unlimited returns limits no load run reaches for every plan (the
// counters are 32-bit).
func unlimited() map[access.Plan]access.Limits {
	var l access.Limits
	for i := range l {
		l[i] = 1 << 31
	}
	return map[access.Plan]access.Limits{access.PlanDemo: l, access.PlanApify: l, access.PlanFree: l}
}

// startInProcess serves the full catalogue on a loopback port with a fresh
// key and limits raised, as catalogued does (without metering to disk),
// and measures the load, a reload and the memory after each.
func startInProcess(b *testing.B) *inProcess {
	file, err := loadertest.FullSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	ip := &inProcess{file: file}
	r := &ip.report
	r.SnapshotBytes = len(file)
	r.Before, _ = ReadMemory()
	t0 := time.Now()
	cat, err := loader.FromBytes(file)
	if err != nil {
		b.Fatal(err)
	}
	r.Decode = time.Since(t0)
	opts := serviceOptions(b)
	ip.key = newKey(b, opts.Keys, access.PlanFree, "load run")
	t0 = time.Now()
	if ip.svc, err = httpd.New(cat, opts); err != nil {
		b.Fatal(err)
	}
	r.New = time.Since(t0)
	r.AfterLoad, _ = ReadMemory()
	t0 = time.Now()
	fresh, err := loader.FromBytes(file)
	if err != nil {
		b.Fatal(err)
	}
	r.ReloadDecode = time.Since(t0)
	t0 = time.Now()
	ip.svc.Install(fresh)
	r.ReloadInstall = time.Since(t0)
	r.AfterReload, _ = ReadMemory()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := ip.svc.Server()
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Shutdown() })
	ip.addr = ln.Addr().String()
	return ip
}
