package observe_test

import (
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/logbuf"
	"github.com/vspec/catalogue/httpd/observe"
)

// BenchmarkDone is what recording a request costs the request path: its
// metrics alone (nolog), and with its access-log line rendered and handed
// to the batching writer (lines; the batch's write goes to io.Discard, so
// the log's destination is not in the figure).
func BenchmarkDone(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts func(w *logbuf.Writer) observe.Options
	}{
		{"nolog", func(*logbuf.Writer) observe.Options { return observe.Options{} }},
		{"lines", func(w *logbuf.Writer) observe.Options { return observe.Options{AccessLines: w} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w := logbuf.New(io.Discard, time.Hour, 0)
			defer w.Close()
			rt := observe.New(tc.opts(w)).Route("GET /v1/models/{id}/generations")
			r := &observe.Request{Method: []byte("GET"), Status: 200, Bytes: 1256, ID: []byte("00276beb-iby4"), Key: []byte("vsc_free_c96aaaaaaaaaaaaaaaaaaaaaa"),
				Peer: netip.MustParseAddr("127.0.0.1"), Duration: time.Microsecond, At: time.Now()}
			b.ReportAllocs()
			for b.Loop() {
				rt.Done(r)
			}
		})
	}
}
