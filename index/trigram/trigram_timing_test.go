package trigram

import (
	"slices"
	"testing"
	"time"
)

var (
	sinkIndex   *Index
	sinkMatches []Match
	sinkScore   float32
)

// BenchmarkBuild indexes the full catalogue's 103,372 texts.
func BenchmarkBuild(b *testing.B) {
	c := loadCatalogue(b)
	total := 0
	for _, x := range c.texts {
		total += len(x)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sinkIndex = Build(c.texts)
	}
	b.ReportMetric(float64(sinkIndex.SizeBytes())/(1<<20), "MiB")
	b.ReportMetric(float64(sinkIndex.NumTrigrams()), "trigrams")
}

// BenchmarkSearch runs the 400+ parity queries (limit 10, threshold 0.5)
// over the full catalogue, one op being one query, and reports the p50, p99
// and max latency per query over all rounds.
func BenchmarkSearch(b *testing.B) {
	for _, thr := range []float32{0.5, 0.3} {
		b.Run(fmtScore(thr), func(b *testing.B) {
			ix := loadIndex(b)
			queries := readQueries(b)
			s := AcquireScratch()
			defer ReleaseScratch(s)
			var dst []Match
			lat := make([]time.Duration, 0, 1<<16)
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				t0 := time.Now()
				dst = ix.Search(dst[:0], Query{Text: q.text, Threshold: thr, Limit: 10}, s)
				if len(lat) < cap(lat) {
					lat = append(lat, time.Since(t0))
				}
			}
			sinkMatches = dst
			reportLatency(b, lat)
		})
	}
}

// BenchmarkSearchParallel runs the same queries on every core, each
// goroutine with a pooled Scratch.
func BenchmarkSearchParallel(b *testing.B) {
	ix := loadIndex(b)
	queries := readQueries(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := AcquireScratch()
		defer ReleaseScratch(s)
		var dst []Match
		i := 0
		for pb.Next() {
			q := queries[i%len(queries)]
			i++
			dst = ix.Search(dst[:0], Query{Text: q.text, Threshold: 0.5, Limit: 10}, s)
		}
	})
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := int(p*float64(len(lat))+0.999999) - 1
		i = max(0, min(i, len(lat)-1))
		return float64(lat[i].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(at(1), "max-µs")
}

// BenchmarkWordSimilarity scores one typical pair with the allocating
// reference function.
func BenchmarkWordSimilarity(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkScore = WordSimilarity("volkswegen golf", "volkswagen golf 1.5 etsi 150 dsg style")
	}
}

// BenchmarkFold folds a brand and display name with a diacritic.
func BenchmarkFold(b *testing.B) {
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendFold(buf[:0], "Škoda Octavia Combi 2.0 TDI 150 DSG Style")
	}
}
