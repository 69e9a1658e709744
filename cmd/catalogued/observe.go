package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strconv"
	"time"

	"golang.org/x/term"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/logbuf"
	"github.com/vspec/catalogue/httpd/observe"
)

// Flags of what an operator sees: logs and the access log. The metrics are
// on the admin listener (GET /metrics, behind its token).
var (
	logFormat    = flag.String("log.format", "auto", "log format: text, json, or auto (text on a terminal, JSON otherwise)")
	accessLog    = flag.Bool("log.access", true, "log one line per request (route, status, bytes, duration, request id, a hash of the key; never the key)")
	accessSample = flag.Uint64("log.accessSample", 1, "log one request in N in the access log; the metrics count every request")
)

// checkLogFlags reports what is wrong with the logging flags.
func checkLogFlags(bad func(name, format string, args ...any)) {
	switch *logFormat {
	case "auto", "text", "json":
	default:
		bad("log.format", "want text, json or auto")
	}
	if *accessSample < 1 {
		bad("log.accessSample", "want 1 or more (1 logs every request)")
	}
}

// startLogging sends the process's logs, those of the log package
// included, to standard error in the chosen format, and returns the
// observer of requests and the writer in front of standard error, to be
// closed last.
//
// In JSON the access log is rendered by hand and batched (httpd/logbuf):
// one write per batch rather than per request, a few microseconds of every
// request; the process's own lines are written at once, after the access
// lines before them. A terminal's text lines go through slog.
func startLogging() (*observe.Observer, *logbuf.Writer) {
	tty := term.IsTerminal(int(os.Stderr.Fd()))
	out := logbuf.New(os.Stderr, logbuf.DefaultInterval, logbuf.DefaultBatch)
	logger := slog.New(logHandler(out, *logFormat, tty))
	slog.SetDefault(logger) // the log package's lines go through it too
	log.SetFlags(0)         // the handler writes the time
	o := observe.Options{Sample: *accessSample}
	switch {
	case !*accessLog:
	case logJSON(*logFormat, tty):
		o.AccessLines = out
	default:
		o.AccessLog = logger.With("log", "access")
	}
	return observe.New(o), out
}

// logJSON reports whether a format writes JSON: json, or auto when
// standard error is not a terminal (tty false).
func logJSON(format string, tty bool) bool { return format == "json" || format == "auto" && !tty }

// logHandler is the slog handler of a format; auto is text on a terminal
// (tty true) and JSON otherwise, for a log collector.
func logHandler(w io.Writer, format string, tty bool) slog.Handler {
	if logJSON(format, tty) {
		return slog.NewJSONHandler(w, nil)
	}
	return slog.NewTextHandler(w, nil)
}

// serverMetrics registers the server's own metrics beside the requests':
// the serving catalogue's identity, reloads, and whether usage metering
// works.
type serverMetrics struct {
	reloadsOK, reloadsRefused func()
}

func registerServerMetrics(ob *observe.Observer, current func() *engine.Catalogue, meter *access.Meter, reachable func() error) serverMetrics {
	set := ob.Set()
	set.RegisterMetricsWriter(func(w io.Writer) {
		c := current()
		_, _, _, variants := c.Counts()
		fmt.Fprintf(w, "catalogue_info{identity=%q,sha256=%q,format=\"%d\",variants=\"%d\"} 1\n", c.Meta.Identity, c.Meta.ContentHash, c.Meta.Version, variants)
		healthy := 0
		if (meter == nil || meter.Healthy(time.Now())) && (reachable == nil || reachable() == nil) {
			healthy = 1
		}
		fmt.Fprintf(w, "catalogue_metering_healthy %s\n", strconv.Itoa(healthy))
	})
	ok, refused := ob.Counter(`catalogue_reloads_total{result="ok"}`), ob.Counter(`catalogue_reloads_total{result="refused"}`)
	return serverMetrics{reloadsOK: ok.Inc, reloadsRefused: refused.Inc}
}

// firstKeys creates, in an empty key store, a demo key and a
// full-catalogue key, and prints them once to w with a request to try: the
// first 200 of a fresh clone needs nothing else.
func firstKeys(keys access.Backend, base string, w io.Writer) error {
	demo, _, err := keys.Create(access.PlanDemo, access.StateActive, "", "created at first start (-keys.bootstrap)")
	if err != nil {
		return err
	}
	full, _, err := keys.Create(access.PlanApify, access.StateActive, "", "created at first start (-keys.bootstrap)")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `The key store was empty, so two local keys were created. They are shown once (only their hashes are kept):
  full catalogue (apify plan, raw integer ids): %s
  demo (the 40 cars of the demo set):           %s
Paste this line into the shell you try them from (the README's commands use $KEY and $DEMO_KEY):
  export KEY=%s DEMO_KEY=%s
Try:
  curl -s -H 'X-Api-Key: %s' '%s/brands?limit=3'
  curl -s -H 'X-Api-Key: %s' '%s/search?q=golf&limit=3'
  curl -s -H 'X-Api-Key: %s' '%s/demo'
The reference is at %s/docs. Start with -keys.bootstrap=false to create no keys; manage keys with the admin API or catalogue keys.
`, full, demo, full, demo, full, base, full, base, demo, base, base)
	return nil
}
