package index

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// Equality maps each code of an enumerated column to the bitmap of rows
// holding it, and to the same rows as a sorted list (what a walk from a
// position reads fastest).
type Equality struct {
	bitmaps []*roaring.Bitmap
	rows    [][]uint32
	counts  []uint64
}

// NewEquality indexes codes (one per row); n is the number of codes.
func NewEquality(codes []uint8, n int) *Equality {
	e := &Equality{bitmaps: make([]*roaring.Bitmap, n), rows: make([][]uint32, n), counts: make([]uint64, n)}
	rows := e.rows
	for r, c := range codes {
		if int(c) < n {
			rows[c] = append(rows[c], uint32(r))
		}
	}
	for c := range rows {
		rows[c] = slices.Clip(rows[c])
		e.bitmaps[c] = roaring.BitmapOf(rows[c]...)
		e.bitmaps[c].RunOptimize()
		e.counts[c] = e.bitmaps[c].GetCardinality()
	}
	return e
}

// Bitmap returns the rows holding code; nil for an unknown code. The bitmap
// is shared: do not modify it.
func (e *Equality) Bitmap(code int) *roaring.Bitmap {
	if code < 0 || code >= len(e.bitmaps) {
		return nil
	}
	return e.bitmaps[code]
}

// Rows returns the rows holding code in ascending order; nil for an
// unknown code. The slice is shared: do not modify it.
func (e *Equality) Rows(code int) []uint32 {
	if code < 0 || code >= len(e.rows) {
		return nil
	}
	return e.rows[code]
}

// Count returns the number of rows holding code.
func (e *Equality) Count(code int) uint64 {
	if code < 0 || code >= len(e.counts) {
		return 0
	}
	return e.counts[code]
}
