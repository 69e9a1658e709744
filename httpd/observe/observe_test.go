package observe

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/logbuf"
)

// TestAccessJSONIsSlogs: the access line rendered by hand is the line
// slog's JSONHandler writes for the same record, byte for byte, so a log
// collector sees no difference between the two paths.
func TestAccessJSONIsSlogs(t *testing.T) {
	rt := New(Options{}).Route("/v1/variants/{id}")
	at := time.Date(2026, 11, 26, 20, 46, 52, 706678240, time.FixedZone("CET", 3600))
	for _, r := range []Request{
		{Method: []byte("GET"), Status: 200, Bytes: 9938, ID: []byte("543e607b-1"), Key: []byte("vsc_free_abc"), Peer: netip.MustParseAddr("127.0.0.1"), Duration: 74 * time.Microsecond},
		{Method: []byte("HEAD"), Status: 304, ID: []byte("edge-42.a_b"), Peer: netip.MustParseAddr("2001:db8::1"), Duration: 0},
		{Method: []byte("GE\"T\\\x01\xff"), Status: 404, Bytes: 156, ID: []byte("x"), Key: []byte("  k  "), Duration: 1500 * time.Microsecond},
		{Method: []byte("POST"), Status: 503, Duration: 12*time.Millisecond + 345*time.Nanosecond},
		{Method: []byte("GET"), Status: 200, Duration: 1234567 * time.Microsecond, Peer: netip.IPv4Unspecified()},
		{Method: []byte("GET"), Status: 200, Duration: 1010 * time.Microsecond},
	} {
		var want bytes.Buffer
		h := slog.NewJSONHandler(&want, nil).WithAttrs([]slog.Attr{slog.String("log", "access")})
		rec := slog.NewRecord(at, slog.LevelInfo, "request", 0)
		attrs := rt.accessAttrs(&r)
		rec.AddAttrs(attrs[:]...)
		if err := h.Handle(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		if got := rt.appendAccessJSON(nil, at, &r); string(got) != want.String() {
			t.Errorf("rendered by hand:\n%s\nslog:\n%s", got, want.String())
		}
	}
}

// TestAppendMillis: microseconds as encoding/json writes their float in
// milliseconds, across the range of a request's duration.
func TestAppendMillis(t *testing.T) {
	for us := int64(0); us < 20000; us += 7 {
		var want bytes.Buffer
		slog.New(slog.NewJSONHandler(&want, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey {
				return slog.Attr{}
			}
			return a
		}})).Info("", "ms", float64(us)/1000)
		if got := `{"ms":` + string(appendMillis(nil, us)) + "}\n"; got != want.String() {
			t.Fatalf("%d µs: %s, slog %s", us, got, want.String())
		}
	}
}

// TestAppendRFC3339Nano: the access line's time, its date and zone
// remembered per second, is AppendFormat's RFC3339Nano text whatever the
// fraction, the zone and the order the times come in (the same second in
// two zones, going back a second, a DST change).
func TestAppendRFC3339Nano(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	zones := []*time.Location{time.UTC, time.FixedZone("CET", 3600), time.FixedZone("NPT", 5*3600+45*60), time.FixedZone("W", -3*3600-30*60), paris, time.Local}
	base := time.Date(2026, 10, 25, 0, 59, 58, 0, time.UTC) // one hour before Paris leaves summer time
	fractions := []int{0, 1, 10, 100_000_000, 120_000_000, 706_678_240, 999_999_999, 500, 123_456_789}
	n := 0
	for sec := 0; sec < 4; sec++ {
		for _, back := range []int{0, -1} { // then the second before, again
			for _, loc := range zones {
				for _, ns := range fractions {
					at := base.Add(time.Duration(sec+back)*time.Second + time.Duration(ns)).In(loc)
					if got, want := appendRFC3339Nano([]byte("x"), at), at.AppendFormat([]byte("x"), time.RFC3339Nano); string(got) != string(want) {
						t.Fatalf("%v: %s, AppendFormat %s", at, got, want)
					}
					n++
				}
			}
		}
	}
	if n != 4*2*len(zones)*len(fractions) {
		t.Fatalf("checked %d times", n)
	}
}

// TestAccessLinesSampled: with AccessLines, one request in Sample gets a
// line, rendered whole into the batch.
func TestAccessLinesSampled(t *testing.T) {
	var out bytes.Buffer
	w := logbuf.New(&out, time.Hour, 1<<20)
	ob := New(Options{AccessLines: w, Sample: 3})
	rt := ob.Route("/v1/brands")
	for range 9 {
		rt.Done(&Request{Method: []byte("GET"), Status: 200, ID: []byte("a-1"), Peer: netip.MustParseAddr("10.0.0.1")})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(out.Bytes(), []byte("\n"))
	if len(lines) != 4 || len(lines[3]) != 0 {
		t.Fatalf("%d lines for 9 requests, one in 3 sampled: %q", len(lines)-1, out.String())
	}
	for _, l := range lines[:3] {
		if !bytes.HasPrefix(l, []byte(`{"time":"`)) || !bytes.HasSuffix(l, []byte(`,"peer":"10.0.0.1"}`+"\n")) {
			t.Errorf("line %q", l)
		}
	}
}

// BenchmarkDone is what recording a request costs the request path: its
// metrics alone (nolog), and with its access-log line rendered into the
// batching writer (lines; the batch's write goes to io.Discard, so the
// log's destination is not in the figure).
func BenchmarkDone(b *testing.B) {
	w := logbuf.New(io.Discard, time.Hour, 0)
	defer w.Close()
	r := &Request{Method: []byte("GET"), Status: 200, Bytes: 1256, ID: []byte("00276beb-iby4"), Key: []byte("vsc_free_c96aaaaaaaaaaaaaaaaaaaaaa"),
		Peer: netip.MustParseAddr("127.0.0.1"), Duration: time.Microsecond, At: time.Now()}
	for name, o := range map[string]Options{"nolog": {}, "lines": {AccessLines: w}} {
		rt := New(o).Route("GET /v1/models/{id}/generations")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rt.Done(r)
			}
		})
	}
}
