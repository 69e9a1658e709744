package gen

import (
	"testing"

	"github.com/vspec/catalogue/data/vocab"
)

// Sink keeps benchmark results alive.
var Sink any

// BenchmarkGenerateFull generates the full catalogue (103,372 variants).
func BenchmarkGenerateFull(b *testing.B) {
	v := vocab.Default()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := Generate(v, Options{})
		if err != nil {
			b.Fatal(err)
		}
		Sink = s
		b.ReportMetric(float64(len(s.SpecKey))/float64(len(s.Variants)), "values/variant")
	}
}
