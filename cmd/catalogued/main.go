// Command catalogued serves the vehicle catalogue API.
//
// It loads the snapshot (generating the default catalogue first when the
// file does not exist), serves /v1 over HTTP, reloads the snapshot on
// SIGHUP without dropping a request, and on SIGTERM or SIGINT stops
// accepting, drains the requests in flight and exits. Each step logs how
// long it took.
//
// Every flag has an environment-variable twin: -snapshot is also
// CATALOGUED_SNAPSHOT, -http.readTimeout is CATALOGUED_HTTP_READTIMEOUT.
// A flag given on the command line wins over the environment.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/loader"
)

var (
	listenAddr   = flag.String("listen", ":8080", "TCP address to serve the API on, e.g. 127.0.0.1:8080 or :8080")
	snapshotPath = flag.String("snapshot", "data/snapshots/catalogue.snap", "catalogue snapshot to serve; when the file does not exist the default catalogue (seed 1, 103,372 variants) is generated there first. SIGHUP reloads it. See also: catalogue gen")
	stateDir     = flag.String("state", "state", "directory of the service's durable state (created when missing)")
	readTimeout  = flag.Duration("http.readTimeout", 10*time.Second, "maximum duration for reading a whole request, including the body")
	writeTimeout = flag.Duration("http.writeTimeout", 10*time.Second, "maximum duration for writing a response")
	idleTimeout  = flag.Duration("http.idleTimeout", 60*time.Second, "keep-alive connections idle for longer are closed")
	drainTimeout = flag.Duration("http.drainTimeout", 30*time.Second, "on SIGTERM, how long requests in flight may take to finish before the process exits anyway")
)

func main() {
	flag.Usage = usage
	flag.Parse()
	if err := applyEnv(flag.CommandLine); err != nil {
		log.Fatalf("cannot apply environment: %v", err)
	}
	log.SetFlags(log.LstdFlags | log.Lmicroseconds | log.LUTC)
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	start := time.Now()
	// Take the signals before anything else: SIGHUP's default action kills
	// the process, so one arriving during startup must be queued, not fatal.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	if err := os.MkdirAll(*stateDir, 0o700); err != nil {
		return fmt.Errorf("cannot create state directory: %w", err)
	}
	if _, err := os.Stat(*snapshotPath); os.IsNotExist(err) {
		log.Printf("no snapshot at %s: generating the default catalogue there first", *snapshotPath)
	}
	generated, err := loader.EnsureFile(*snapshotPath)
	if err != nil {
		return err
	}
	if generated {
		log.Printf("generated the default catalogue at %s in %s", *snapshotPath, time.Since(start).Round(time.Millisecond))
	}
	t := time.Now()
	cat, err := loader.Load(*snapshotPath)
	if err != nil {
		return err
	}
	_, _, _, variants := cat.Counts()
	log.Printf("loaded snapshot %s (identity %s, %d variants) in %s", *snapshotPath, cat.Meta.Identity, variants, time.Since(t).Round(time.Millisecond))
	holder := engine.NewHolder(cat)
	reloader := &loader.Reloader{Path: *snapshotPath, Holder: holder}

	srv := httpd.New(holder, httpd.Options{ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout})
	ln, err := net.Listen("tcp", *listenAddr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", *listenAddr, err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Printf("serving http://%s/v1 (started in %s)", ln.Addr(), time.Since(start).Round(time.Millisecond))

	for {
		select {
		case err := <-serveErr:
			return fmt.Errorf("HTTP server stopped: %w", err)
		case sig := <-signals:
			if sig == syscall.SIGHUP {
				// Load in the background: requests keep being served from
				// the current catalogue until the new one is ready.
				go func() {
					id, took, err := reloader.Reload()
					if err != nil {
						_, failures, _ := reloader.Stats()
						log.Printf("reload refused, still serving the previous catalogue (%d refused so far): %v", failures, err)
						return
					}
					log.Printf("reloaded snapshot %s (identity %s) in %s", *snapshotPath, id, took.Round(time.Millisecond))
				}()
				continue
			}
			log.Printf("received %s: draining requests in flight (at most %s)", sig, *drainTimeout)
			t := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), *drainTimeout)
			err := srv.ShutdownWithContext(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("drain incomplete after %s: %w", time.Since(t).Round(time.Millisecond), err)
			}
			log.Printf("stopped in %s", time.Since(t).Round(time.Millisecond))
			return nil
		}
	}
}

// applyEnv sets every flag not given on the command line from its
// environment twin CATALOGUED_<NAME>, dots and dashes becoming underscores.
func applyEnv(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, e)
			}
		}
	})
	return err
}

func envName(flagName string) string {
	return "CATALOGUED_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(flagName))
}

func usage() {
	fmt.Fprintf(os.Stderr, "usage: catalogued [flags]\n\nServes the vehicle catalogue API. Flags (environment twin in brackets):\n\n")
	flag.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(os.Stderr, "  -%s (%s, default %q)\n    \t%s\n", f.Name, envName(f.Name), f.DefValue, f.Usage)
	})
}
