package engine_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader/loadertest"
)

var sinkSearch []engine.SearchMatch

// searchQueries are the queries of the search benchmarks and allocation
// test, folded as the REST operation folds them: the 440 queries of
// index/trigram's PostgreSQL parity fixture and those of the judged set.
func searchQueries(tb testing.TB, c *engine.Catalogue) []string {
	tb.Helper()
	var qs []string
	for _, line := range readLines(tb, "../index/trigram/testdata/queries.tsv") {
		if _, q, ok := strings.Cut(line, "\t"); ok {
			qs = append(qs, c.SearchQuery(q, 0))
		}
	}
	for _, j := range readJudged(tb) {
		li, _ := c.Locale(j.locale)
		qs = append(qs, c.SearchQuery(j.query, li))
	}
	return qs
}

// BenchmarkSearchRanked runs every query once per round on the full
// catalogue (limit 20, threshold 0.5), one op being one query, and reports
// the p50, p99 and max wall-clock latency per query, and the p50 and p99 of
// the thread's CPU time per query (cpu-p50-µs, cpu-p99-µs: what other load
// on a shared machine does not inflate; each includes one clock_gettime
// call). The engine keeps no answer between queries, so each one is as a
// never-seen query.
func BenchmarkSearchRanked(b *testing.B) {
	c := loadertest.Full(b)
	qs := searchQueries(b, c)
	dst := make([]engine.SearchMatch, 0, 64)
	lat := make([]time.Duration, 0, 1<<16)
	cpu := make([]time.Duration, 0, 1<<16)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		i++
		c0 := threadCPU()
		t0 := time.Now()
		dst, _ = c.Search(dst[:0], q, 0.5, nil, 20)
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
			cpu = append(cpu, threadCPU()-c0)
		}
	}
	sinkSearch = dst
	if len(lat) == 0 {
		return
	}
	at := func(d []time.Duration, p float64) float64 {
		k := max(0, min(int(p*float64(len(d))+0.999999)-1, len(d)-1))
		return float64(d[k].Nanoseconds()) / 1e3
	}
	slices.Sort(lat)
	slices.Sort(cpu)
	b.ReportMetric(at(lat, 0.50), "p50-µs")
	b.ReportMetric(at(lat, 0.99), "p99-µs")
	b.ReportMetric(at(lat, 1), "max-µs")
	b.ReportMetric(at(cpu, 0.50), "cpu-p50-µs")
	b.ReportMetric(at(cpu, 0.99), "cpu-p99-µs")
}

// threadCPU returns the CPU time the calling OS thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
