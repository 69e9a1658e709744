package loader_test

import (
	"bytes"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
	. "github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/loadertest"
)

// Sink keeps benchmark results alive.
var Sink any

// BenchmarkWriteFull encodes and compresses the full catalogue (the
// generation itself is measured by data/gen's BenchmarkGenerateFull).
func BenchmarkWriteFull(b *testing.B) {
	s, err := gen.Generate(vocab.Default(), gen.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var buf bytes.Buffer
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := Write(&buf, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/1e6, "file-MB")
}

// BenchmarkLoadFull measures a file in memory to a ready catalogue, and
// each of its phases.
func BenchmarkLoadFull(b *testing.B) {
	file, err := loadertest.FullSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(file)))
		for i := 0; i < b.N; i++ {
			c, err := FromBytes(file)
			if err != nil {
				b.Fatal(err)
			}
			Sink = c
		}
		b.ReportMetric(float64(len(file))/1e6, "file-MB")
	})
	h, payload, err := Decompress(file)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decompress+verify", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		for i := 0; i < b.N; i++ {
			_, p, _ := Decompress(file)
			Sink = p
		}
		b.ReportMetric(float64(len(payload))/1e6, "payload-MB")
	})
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cols, _ := Decode(h, payload)
			Sink = cols
		}
	})
	cols, _ := Decode(h, payload)
	b.Run("engine.New", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c, _ := engine.New(cols)
			Sink = c
		}
	})
}
