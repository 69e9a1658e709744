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
	flagTarget      = flag.String("bench.target", "", "host:port of an external server to drive instead of the in-process one (needs -bench.key)")
	flagKey         = flag.String("bench.key", "", "API key for -bench.target")
	flagOut         = flag.String("bench.out", "", "file to write the Markdown table to")
	flagRoutes      = flag.String("bench.routes", "", "regular expression selecting the routes of the mix to drive; empty drives all")
)

// BenchmarkLoad drives every route of the mix against the real server,
// in process over loopback on the full snapshot ($CATALOGUE_SNAPSHOT or
// generated), and the same bytes from a static handler, and prints the
// table of bench/RESULTS.md. Run it with
//
//	go test -run '^$' -bench Load -benchtime 1x ./bench/
func BenchmarkLoad(b *testing.B) {
	if b.N > 1 {
		b.Skip("run with -benchtime 1x: one load run is the measurement")
	}
	addr, key, routes := *flagTarget, *flagKey, []Route(nil)
	if addr == "" {
		var cat *engine.Catalogue
		var codec *publicid.Codec
		addr, key, cat, codec = startInProcess(b)
		routes = Mix(cat, func(kind publicid.Kind, id uint32) string { return codec.Token(kind, id) })
	} else {
		b.Fatal("-bench.target: the external mode discovers ids through the API; see DiscoverMix")
	}
	static, err := StartStatic()
	if err != nil {
		b.Fatal(err)
	}
	defer static.Close()
	cfg := Config{Addr: addr, Key: key, Concurrency: *flagConcurrency, Duration: *flagDuration}
	var rows []Row
	sel := regexp.MustCompile(*flagRoutes)
	for _, rt := range routes {
		if !sel.MatchString(rt.Name) {
			continue
		}
		ct, body, err := Capture(addr, key, rt)
		if err != nil {
			b.Fatal(err)
		}
		static.Serve(ct, body)
		res, err := Drive(cfg, rt)
		if err != nil {
			b.Fatal(err)
		}
		sc := cfg
		sc.Addr = static.Addr
		ceil, err := Drive(sc, rt)
		if err != nil {
			b.Fatal(err)
		}
		hp, hpConns, err := AtHalfPeak(cfg, rt, res.RPS)
		if err != nil {
			b.Fatal(err)
		}
		staticHalf, _, err := AtHalfPeak(sc, rt, ceil.RPS)
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, Row{Result: res, Ceiling: ceil.RPS, Ratio: res.RPS / ceil.RPS, HalfPeak: hp, StaticHalfPeak: staticHalf, HalfPeakConns: hpConns})
		if res.Errors+hp.Errors > 0 {
			b.Errorf("%s: %d failed requests", rt.Name, res.Errors+hp.Errors)
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "concurrency %d, %s per measurement, GOMAXPROCS %d\n\n", cfg.Concurrency, cfg.Duration, runtimeProcs())
	WriteTable(&buf, rows)
	fmt.Print(buf.String())
	if *flagOut != "" {
		os.WriteFile(*flagOut, buf.Bytes(), 0o644)
	}
}

// startInProcess serves the full catalogue on a loopback port with a fresh
// key, as catalogued does.
func startInProcess(b *testing.B) (addr, key string, cat *engine.Catalogue, codec *publicid.Codec) {
	file, err := loadertest.FullSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	if cat, err = loader.FromBytes(file); err != nil {
		b.Fatal(err)
	}
	state := b.TempDir()
	keys, err := access.Open(filepath.Join(state, "state"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { keys.Close() })
	key, _, err = keys.Create(access.PlanFree, access.StateActive, "", "load run")
	if err != nil {
		b.Fatal(err)
	}
	secret, _ := publicid.LoadOrCreateSecret(state)
	codec, _ = publicid.New(secret)
	svc, err := httpd.New(cat, httpd.Options{Codec: codec, Keys: keys})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := svc.Server()
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String(), key, cat, codec
}
