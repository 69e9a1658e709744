// Package observe is what an operator sees of each HTTP request: its
// request id, its access-log line and its metrics. It owns the metric set
// the admin listener exposes at /metrics (Prometheus text format, with the
// Go runtime's and the process's own metrics) and the per-route
// instruments the REST routes record into.
//
// Metrics use github.com/VictoriaMetrics/metrics rather than the
// Prometheus client: one atomic add per counter and no allocation on the
// request path, no dependency tree, and the same exposition format.
package observe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"unsafe"

	"github.com/VictoriaMetrics/metrics"
	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/logbuf"
)

// HeaderRequestID carries a request's id: accepted from a trusted proxy,
// otherwise generated, and echoed on the response.
const HeaderRequestID = "X-Request-Id"

// Observer records requests: ids, access log, metrics.
type Observer struct {
	set    *metrics.Set
	log    *slog.Logger   // nil: no access log through slog
	lines  *logbuf.Writer // nil: no access log rendered by hand
	sample uint64         // log one request in sample
	seen   atomic.Uint64
	prefix [8]byte // this process's random request-id prefix, hex
	next   atomic.Uint64

	problems sync.Map // kind -> *metrics.Counter
}

// Options configures an Observer. The zero value records metrics only.
type Options struct {
	// AccessLog receives one line per request (one in Sample); nil turns
	// the access log off.
	AccessLog *slog.Logger
	// AccessLines, when set, receives the access log in place of
	// AccessLog: each line rendered by hand as slog's JSONHandler renders
	// the record of a logger With("log", "access") (the same members in
	// the same order), without slog's work per record, straight into the
	// writer's batch. httpd/logbuf's Writer batches them.
	AccessLines *logbuf.Writer
	// Sample logs one request in Sample. Default 1: every request.
	Sample uint64
}

// New returns an Observer with its own metric set.
func New(o Options) *Observer {
	ob := &Observer{set: metrics.NewSet(), log: o.AccessLog, lines: o.AccessLines, sample: max(o.Sample, 1)}
	var p [4]byte
	rand.Read(p[:])
	hex.Encode(ob.prefix[:], p[:])
	return ob
}

// Set is the metric set, for instruments of other packages.
func (ob *Observer) Set() *metrics.Set { return ob.set }

// WriteMetrics writes every metric in the Prometheus text format: the set,
// then the Go runtime's and the process's.
func (ob *Observer) WriteMetrics(w io.Writer) {
	ob.set.WritePrometheus(w)
	metrics.WriteProcessMetrics(w)
}

// Problem counts an error answer of a kind (see httpd.ProblemKinds): the
// 429s and 503s by cause among them.
func (ob *Observer) Problem(kind string) {
	if kind == "" {
		kind = "unknown"
	}
	c, ok := ob.problems.Load(kind)
	if !ok {
		c, _ = ob.problems.LoadOrStore(kind, ob.set.GetOrCreateCounter(`catalogue_problems_total{kind="`+kind+`"}`))
	}
	c.(*metrics.Counter).Inc()
}

// Counter returns the counter of a name with labels, created on first use;
// for events outside the request path (payments, key flow, reloads).
func (ob *Observer) Counter(name string) *metrics.Counter { return ob.set.GetOrCreateCounter(name) }

// RequestID returns the id of a request: the one a trusted proxy sent when
// it is sane (1 to 64 characters of [A-Za-z0-9._-]), or a new one, unique
// within the process and unlikely across processes. dst is the buffer to
// append a new id to; sent returns the id the request carries, and is
// called only when peer is trusted (most servers trust no proxy, and a
// header lookup is not free on the hot path).
func (ob *Observer) RequestID(dst []byte, peer netip.Addr, trusted []netip.Prefix, sent func() []byte) []byte {
	for _, p := range trusted {
		if p.Contains(peer) {
			if id := sent(); len(id) > 0 && saneID(id) {
				return id
			}
			break
		}
	}
	dst = append(dst, ob.prefix[:]...)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, ob.next.Add(1), 36)
}

func saneID(b []byte) bool {
	if len(b) > 64 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Route holds the instruments of one route.
type Route struct {
	ob       *Observer
	name     string
	nameJSON []byte // name as a JSON string, for the access log
	duration *metrics.PrometheusHistogram
	bytes    *metrics.Counter
	byStatus [600]atomic.Pointer[metrics.Counter] // requests by status, created on first use
}

// latencyBuckets are the upper bounds, in seconds, of the latency
// histograms: from 25 µs (a cached body) to 10 s (the write timeout).
var latencyBuckets = []float64{0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10}

// Route returns the instruments of a route, named by its template
// ("GET /v1/variants/{id}").
func (ob *Observer) Route(name string) *Route {
	l := `{route="` + name + `"}`
	return &Route{ob: ob, name: name, nameJSON: jsonenc.AppendString(nil, name),
		duration: ob.set.GetOrCreatePrometheusHistogramExt("catalogue_request_duration_seconds"+l, latencyBuckets),
		bytes:    ob.set.GetOrCreateCounter("catalogue_response_bytes_total" + l)}
}

// Request is what the access log and the metrics say of one request.
type Request struct {
	Method   []byte
	Status   int
	Bytes    int
	ID       []byte
	Key      []byte // the API key sent, hashed before it is logged; never logged itself
	Peer     netip.Addr
	Duration time.Duration
	At       time.Time // when it ended, the access-log line's time; zero: when Done is called
}

// Done records a request: its metrics always, its access-log line when
// the log is on and the request is sampled.
func (rt *Route) Done(r *Request) {
	rt.duration.Update(r.Duration.Seconds())
	rt.bytes.Add(r.Bytes)
	if s := r.Status; s >= 100 && s < len(rt.byStatus) {
		c := rt.byStatus[s].Load()
		if c == nil {
			c = rt.ob.set.GetOrCreateCounter(`catalogue_requests_total{route="` + rt.name + `",status="` + strconv.Itoa(s) + `"}`)
			rt.byStatus[s].Store(c)
		}
		c.Inc()
	}
	ob := rt.ob
	if ob.log == nil && ob.lines == nil || ob.seen.Add(1)%ob.sample != 0 {
		return
	}
	if ob.lines != nil {
		at := r.At
		if at.IsZero() {
			at = time.Now()
		}
		// Rendered into the batch: a concrete Writer, so the closure stays
		// on the stack.
		ob.lines.AppendLine(func(dst []byte) []byte { return rt.appendAccessJSON(dst, at, r) })
		return
	}
	attrs := rt.accessAttrs(r)
	ob.log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs[:]...)
}

// accessAttrs are the members of r's access-log line after "log".
func (rt *Route) accessAttrs(r *Request) [8]slog.Attr {
	return [8]slog.Attr{
		slog.String("id", string(r.ID)),
		slog.String("method", string(r.Method)),
		slog.String("route", rt.name),
		slog.Int("status", r.Status),
		slog.Int("bytes", r.Bytes),
		slog.Float64("ms", float64(r.Duration.Microseconds())/1000),
		slog.String("key", KeyHash(r.Key)),
		slog.String("peer", r.Peer.String())}
}

// appendAccessJSON appends the access-log line of r, logged at t, as
// slog's JSONHandler writes it (see Options.AccessLines): its time format,
// its string escaping, and ms as encoding/json writes the float (a
// decimal of at most three places, trailing zeros dropped).
func (rt *Route) appendAccessJSON(dst []byte, t time.Time, r *Request) []byte {
	dst = append(dst, `{"time":"`...)
	dst = appendRFC3339Nano(dst, t)
	dst = append(dst, `","level":"INFO","msg":"request","log":"access","id":`...)
	dst = jsonenc.AppendString(dst, unsafeString(r.ID))
	dst = append(dst, `,"method":`...)
	dst = jsonenc.AppendString(dst, unsafeString(r.Method))
	dst = append(dst, `,"route":`...)
	dst = append(dst, rt.nameJSON...)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(r.Status), 10)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, int64(r.Bytes), 10)
	dst = append(dst, `,"ms":`...)
	dst = appendMillis(dst, r.Duration.Microseconds())
	dst = append(dst, `,"key":"`...)
	dst = AppendKeyHash(dst, r.Key)
	dst = append(dst, `","peer":"`...)
	if r.Peer.IsValid() {
		dst = r.Peer.AppendTo(dst)
	} else {
		dst = append(dst, "invalid IP"...) // what Addr.String says
	}
	return append(dst, "\"}\n"...)
}

// stamp is the RFC 3339 text of one second at one UTC offset: the date
// and time before the fraction, and the zone after it (which only the
// offset decides).
type stamp struct {
	sec, offset int64
	date, zone  []byte
}

// lastStamp is the second the access log formatted last: lines come many
// a second, so the date and zone are formatted once a second.
var lastStamp atomic.Pointer[stamp]

// appendRFC3339Nano appends t.AppendFormat(dst, time.RFC3339Nano): the
// date, time and zone of t's second from lastStamp, the fraction (up to
// nine digits, trailing zeros dropped, none when zero) formatted here.
// Nothing of t is kept, so a caller's time does not escape.
func appendRFC3339Nano(dst []byte, t time.Time) []byte {
	_, offset := t.Zone()
	sec := t.Unix()
	st := lastStamp.Load()
	if st == nil || st.sec != sec || st.offset != int64(offset) {
		whole := time.Unix(sec, 0).In(time.FixedZone("", offset))
		st = &stamp{sec: sec, offset: int64(offset), date: whole.AppendFormat(nil, "2006-01-02T15:04:05"), zone: whole.AppendFormat(nil, "Z07:00")}
		lastStamp.Store(st)
	}
	dst = append(dst, st.date...)
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		frac[9] = byte('0' + ns%10)
		ns /= 10
		for i := 7; i >= 1; i -= 2 { // two digits a step
			d := ns % 100 * 2
			frac[i], frac[i+1] = digitPairs[d], digitPairs[d+1]
			ns /= 100
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		dst = append(dst, frac[:n]...)
	}
	return append(dst, st.zone...)
}

// digitPairs holds 00 to 99, two bytes each.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendMillis appends us microseconds as milliseconds, the way
// encoding/json writes float64(us)/1000: 0, 12, 0.074, 1.5.
func appendMillis(dst []byte, us int64) []byte {
	if us < 0 {
		dst, us = append(dst, '-'), -us
	}
	dst = strconv.AppendInt(dst, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return dst
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	dst = append(dst, '.')
	return append(dst, digits[:n]...)
}

// unsafeString is b as a string for a call that does not keep it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// KeyHash is a short, stable hash of an API key for logs: enough to tell
// keys apart and to find one's lines given the key, never the key. Empty
// without a key.
func KeyHash(key []byte) string { return string(AppendKeyHash(nil, key)) }

// AppendKeyHash appends KeyHash(key) to dst.
func AppendKeyHash(dst, key []byte) []byte {
	key = bytes.TrimSpace(key)
	if len(key) == 0 {
		return dst
	}
	h := xxhash.Sum64(key)
	for i := range 8 {
		dst = append(dst, "0123456789abcdef"[h>>(60-4*uint(i))&0xf])
	}
	return dst
}
