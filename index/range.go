package index

import (
	"math"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
)

// Range indexes a numeric column for inclusive range queries. Rows with a
// value are kept sorted by (value, row); every bucketSize positions a
// cumulative bitmap holds the rows at that position and after it. A range
// is then two positions found by binary search, and applying it to a
// bitmap costs two in-place bitmap operations plus at most 2 x bucketSize
// single-row corrections at the bucket edges: no scan of the column.
type Range struct {
	vals []int32  // sorted ascending
	rows []uint32 // rows in the same order
	ge   []*roaring.Bitmap
}

const bucketSize = 256

// NewRange indexes values (one per row); rows whose value is null are left
// out and match no range.
func NewRange(values []int32, null int32) *Range {
	type pair struct {
		v int32
		r uint32
	}
	var ps []pair
	for r, v := range values {
		if v != null {
			ps = append(ps, pair{v, uint32(r)})
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].v != ps[j].v {
			return ps[i].v < ps[j].v
		}
		return ps[i].r < ps[j].r
	})
	x := &Range{vals: make([]int32, len(ps)), rows: make([]uint32, len(ps))}
	for i, p := range ps {
		x.vals[i], x.rows[i] = p.v, p.r
	}
	nb := (len(ps) + bucketSize - 1) / bucketSize
	x.ge = make([]*roaring.Bitmap, nb+1)
	acc := roaring.New()
	x.ge[nb] = acc.Clone()
	for k := nb - 1; k >= 0; k-- {
		end := min((k+1)*bucketSize, len(ps))
		acc.AddMany(sortedCopy(x.rows[k*bucketSize : end]))
		b := acc.Clone()
		b.RunOptimize()
		x.ge[k] = b
	}
	return x
}

func sortedCopy(rows []uint32) []uint32 {
	c := append([]uint32(nil), rows...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c
}

// Len returns the number of rows with a value.
func (x *Range) Len() int { return len(x.vals) }

// Span returns the sorted positions [i, j) of the values in [lo, hi]; j-i
// is the exact number of matching rows.
func (x *Range) Span(lo, hi int64) (i, j int) {
	if lo > hi {
		return 0, 0
	}
	lo32, hi32 := clamp32(lo), clamp32(hi)
	i = sort.Search(len(x.vals), func(k int) bool { return x.vals[k] >= lo32 })
	j = sort.Search(len(x.vals), func(k int) bool { return x.vals[k] > hi32 })
	return i, max(i, j)
}

func clamp32(v int64) int32 {
	return int32(max(math.MinInt32+1, min(v, math.MaxInt32)))
}

// Materialize sets dst to the rows of positions [i, j).
func (x *Range) Materialize(dst *roaring.Bitmap, i, j int) {
	dst.Clear()
	if i >= j {
		return
	}
	if j-i <= 2*bucketSize {
		for _, r := range x.rows[i:j] {
			dst.Add(r)
		}
		return
	}
	ki := (i + bucketSize - 1) / bucketSize
	dst.Or(x.ge[ki])
	for _, r := range x.rows[i:min(ki*bucketSize, j)] {
		dst.Add(r)
	}
	x.cutFrom(dst, j)
}

// Apply intersects dst in place with the rows of positions [i, j).
func (x *Range) Apply(dst *roaring.Bitmap, i, j int, scratch []uint32) []uint32 {
	if i >= j {
		dst.Clear()
		return scratch
	}
	// Rows of [i, ki*step) that dst holds survive the And with ge[ki],
	// which they are not in: keep them aside.
	ki := (i + bucketSize - 1) / bucketSize
	keep := scratch[:0]
	for _, r := range x.rows[i:min(ki*bucketSize, j)] {
		if dst.Contains(r) {
			keep = append(keep, r)
		}
	}
	if ki < len(x.ge) {
		dst.And(x.ge[ki])
	} else {
		dst.Clear()
	}
	x.cutFrom(dst, j)
	for _, r := range keep {
		dst.Add(r)
	}
	return keep
}

// cutFrom removes from dst the rows at sorted positions j and after.
func (x *Range) cutFrom(dst *roaring.Bitmap, j int) {
	if j >= len(x.rows) {
		return
	}
	kj := (j + bucketSize - 1) / bucketSize
	if kj < len(x.ge) {
		dst.AndNot(x.ge[kj])
	}
	for _, r := range x.rows[j:min(kj*bucketSize, len(x.rows))] {
		dst.Remove(r)
	}
}
