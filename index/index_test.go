package index

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

const null = -1 << 31

func TestEquality(t *testing.T) {
	codes := []uint8{0, 2, 2, 1, 0, 2}
	e := NewEquality(codes, 4)
	if got := e.Bitmap(2).ToArray(); len(got) != 3 || got[0] != 1 || got[2] != 5 {
		t.Errorf("code 2: %v", got)
	}
	if e.Count(3) != 0 || e.Bitmap(3).GetCardinality() != 0 || e.Bitmap(9) != nil || e.Count(-1) != 0 {
		t.Error("unknown codes")
	}
}

// TestRangeAgainstScan checks Span, Materialize and Apply against a
// brute-force scan on random columns and random ranges.
func TestRangeAgainstScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 255, 256, 257, 1000, 5000} {
		vals := make([]int32, n)
		for i := range vals {
			if r.IntN(10) == 0 {
				vals[i] = null
			} else {
				vals[i] = int32(r.IntN(300))
			}
		}
		x := NewRange(vals, null)
		base := roaring.New()
		for i := range vals {
			if r.IntN(3) > 0 {
				base.Add(uint32(i))
			}
		}
		for q := 0; q < 300; q++ {
			lo, hi := int64(r.IntN(320)-10), int64(r.IntN(320)-10)
			if q%10 == 0 {
				lo, hi = -1<<40, 1<<40
			}
			want := roaring.New()
			for i, v := range vals {
				if v != null && int64(v) >= lo && int64(v) <= hi {
					want.Add(uint32(i))
				}
			}
			i, j := x.Span(lo, hi)
			if uint64(j-i) != want.GetCardinality() {
				t.Fatalf("n=%d [%d,%d]: span %d, want %d", n, lo, hi, j-i, want.GetCardinality())
			}
			got := roaring.New()
			x.Materialize(got, i, j)
			if !got.Equals(want) {
				t.Fatalf("n=%d [%d,%d]: Materialize differs", n, lo, hi)
			}
			applied := base.Clone()
			x.Apply(applied, i, j, nil)
			if !applied.Equals(roaring.And(base, want)) {
				t.Fatalf("n=%d [%d,%d]: Apply differs", n, lo, hi)
			}
		}
	}
}
