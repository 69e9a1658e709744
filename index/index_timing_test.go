package index

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// Sink keeps benchmark results alive.
var Sink uint64

func column(n int) []int32 {
	r := rand.New(rand.NewPCG(1, 1))
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(50 + r.IntN(500))
	}
	return v
}

func BenchmarkRange(b *testing.B) {
	x := NewRange(column(103372), null)
	base := roaring.New()
	for i := uint32(0); i < 103372; i += 3 {
		base.Add(i)
	}
	b.Run("span", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			lo, hi := x.Span(150, 300)
			Sink += uint64(hi - lo)
		}
	})
	b.Run("materialize", func(b *testing.B) {
		dst := roaring.New()
		i, j := x.Span(150, 300)
		b.ReportAllocs()
		for n := 0; n < b.N; n++ {
			x.Materialize(dst, i, j)
		}
		Sink += dst.GetCardinality()
	})
	b.Run("apply", func(b *testing.B) {
		i, j := x.Span(150, 300)
		var keep []uint32
		b.ReportAllocs()
		for n := 0; n < b.N; n++ {
			dst := base.Clone()
			keep = x.Apply(dst, i, j, keep)
			Sink += dst.GetCardinality()
		}
	})
}

func BenchmarkEquality(b *testing.B) {
	codes := make([]uint8, 103372)
	for i := range codes {
		codes[i] = uint8(i % 10)
	}
	e := NewEquality(codes, 10)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Sink += e.Count(i % 10)
	}
}

func BenchmarkBuildRange(b *testing.B) {
	v := column(103372)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Sink += uint64(NewRange(v, null).Len())
	}
}
