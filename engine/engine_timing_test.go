package engine_test

import (
	"runtime"
	"testing"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/query"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/loadertest"
)

// Sink keeps benchmark results alive.
var Sink any

// BenchmarkCatalogueMemory reports the heap the full catalogue occupies and
// what a full garbage collection costs while it is live (ns/op is one
// runtime.GC). A pointer-free catalogue keeps that cost flat however large
// the catalogue is.
func BenchmarkCatalogueMemory(b *testing.B) {
	file, err := loadertest.FullSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, err := loader.FromBytes(file)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
	}
	b.StopTimer()
	runtime.KeepAlive(c)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(after.HeapObjects-before.HeapObjects), "heap-objects")
}

func BenchmarkVariantRow(b *testing.B) {
	c := loadertest.Full(b)
	ids := c.VarID
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		if _, ok := c.VariantRow(ids[(i*7919)%len(ids)]); ok {
			n++
		}
	}
	Sink = n
}

func BenchmarkAppendSpecLabels(b *testing.B) {
	c := loadertest.Full(b)
	de, _ := c.Locale("de")
	first, end := c.VariantSpecs(5000)
	buf := make([]byte, 0, 8192)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for j := first; j < end; j++ {
			buf = c.AppendSpecLabelJSON(buf, de, c.SpecKey[j])
		}
	}
	b.ReportMetric(float64(end-first), "labels/op")
	Sink = len(buf)
}

// BenchmarkFilter measures the first page of filter queries on the full
// catalogue: resolving, planning, intersecting and walking.
func BenchmarkFilter(b *testing.B) {
	c := loadertest.Full(b)
	for _, tc := range []struct {
		name string
		q    query.Q
	}{
		{"fuel+power_min", query.And{Children: []query.Q{query.Term{Field: query.Fuel, Value: "diesel"}, query.AtLeast(query.Power, 150)}}},
		{"body+drive+price_max", query.And{Children: []query.Q{query.Term{Field: query.Body, Value: "SUV"}, query.Term{Field: query.Drive, Value: "all"}, query.AtMost(query.Price, 60000)}}},
		{"fuel+power range+year", query.And{Children: []query.Q{query.Term{Field: query.Fuel, Value: "petrol"}, query.AtLeast(query.Power, 100), query.AtMost(query.Power, 200), query.Range{Field: query.Year, Lo: 2018, Hi: 2018}}}},
		{"power range wide", query.And{Children: []query.Q{query.AtLeast(query.Power, 80), query.AtMost(query.Power, 400)}}},
		{"ev", query.Term{Field: query.Fuel, Value: "electric"}},
		{"no filter", query.Const{Value: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			q := query.Simplify(tc.q)
			s := engine.GetFilterScratch()
			defer engine.PutFilterScratch(s)
			dst := make([]uint32, 0, 64)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dst, _ = c.Filter(dst[:0], q, 0, 50, s)
			}
			Sink = len(dst)
		})
	}
}
