package engine

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/vspec/catalogue/engine/query"
	"github.com/vspec/catalogue/index"
)

// filters are the indexes of GET /v1/variants, built with the catalogue.
type filters struct {
	fuel, body, drive *index.Equality
	power, price      *index.Range
	years             map[int]*roaring.Bitmap // production year -> variants whose generation covers it
	yearCount         map[int]uint64
	syncYear          int
}

func (c *Catalogue) deriveFilters() {
	f := &c.filters
	f.fuel = index.NewEquality(c.VarFuel, len(c.Enums[c.fuelEnum].Slugs))
	f.body = index.NewEquality(c.VarBody, len(c.Enums[c.bodyEnum].Slugs))
	f.drive = index.NewEquality(c.VarDrive, len(c.Enums[c.driveEnum].Slugs))
	f.power = index.NewRange(c.VarPowerHP, Null)
	prices := make([]int32, len(c.VarID))
	for i := range prices {
		prices[i] = Null
		if c.VarHasPrice[i] && c.VarPriceEUR[i] > 0 {
			prices[i] = c.VarPriceEUR[i]
		}
	}
	f.price = index.NewRange(prices, Null)
	f.syncYear = c.Meta.SyncedAt.Year()
	rows := map[int][]uint32{}
	for g := range c.GenID {
		end := int(c.GenYearEnd[g])
		if end == 0 {
			end = f.syncYear // an ongoing generation covers the years up to the catalogue's sync
		}
		first, last := c.genVariants[g], c.genVariants[g+1]
		for y := int(c.GenYearStart[g]); y <= end; y++ {
			for r := first; r < last; r++ {
				rows[y] = append(rows[y], r)
			}
		}
	}
	f.years = make(map[int]*roaring.Bitmap, len(rows))
	f.yearCount = make(map[int]uint64, len(rows))
	for y, rs := range rows {
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
		b := roaring.BitmapOf(rs...)
		b.RunOptimize()
		f.years[y] = b
		f.yearCount[y] = b.GetCardinality()
	}
}

// FilterScratch is the per-request state of Filter. Get one with
// GetFilterScratch and return it with PutFilterScratch once the rows Filter
// returned are no longer used.
type FilterScratch struct {
	bm, tmp *roaring.Bitmap
	keep    []uint32
	leaves  []leaf
	it      roaring.IntIterator
}

var filterPool = sync.Pool{New: func() any { return &FilterScratch{bm: roaring.New(), tmp: roaring.New()} }}

// GetFilterScratch returns a scratch from the pool.
func GetFilterScratch() *FilterScratch { return filterPool.Get().(*FilterScratch) }

// PutFilterScratch returns s to the pool.
func PutFilterScratch(s *FilterScratch) {
	s.bm.Clear()
	s.tmp.Clear()
	s.keep, s.leaves = s.keep[:0], s.leaves[:0]
	filterPool.Put(s)
}

// leaf is one resolved condition of a conjunction with its exact size.
type leaf struct {
	eq    *roaring.Bitmap
	rng   *index.Range
	i, j  int
	count uint64
}

// resolve turns a Term or Range into a leaf; ok is false for a condition
// that matches nothing (an unknown value).
func (c *Catalogue) resolve(q query.Q) (leaf, bool, error) {
	f := &c.filters
	switch q := q.(type) {
	case query.Term:
		var e *index.Equality
		code := -1
		switch q.Field {
		case query.Fuel:
			e, code = f.fuel, c.findSlug(c.fuelEnum, q.Value)
		case query.Drive:
			e, code = f.drive, c.findSlug(c.driveEnum, q.Value)
		case query.Body:
			e, code = f.body, c.findSlug(c.bodyEnum, q.Value)
			if code < 0 { // the English label, as the contract says
				for i := range c.Enums[c.bodyEnum].Slugs {
					if strings.EqualFold(c.EnumLabel(c.enLocale, c.bodyEnum, uint8(i)), q.Value) {
						code = i
					}
				}
			}
		default:
			return leaf{}, false, fmt.Errorf("field %s is not enumerated", q.Field)
		}
		if code < 0 {
			return leaf{}, false, nil
		}
		return leaf{eq: e.Bitmap(code), count: e.Count(code)}, e.Count(code) > 0, nil
	case query.Range:
		switch q.Field {
		case query.Power, query.Price:
			r := f.power
			if q.Field == query.Price {
				r = f.price
			}
			i, j := r.Span(q.Lo, q.Hi)
			return leaf{rng: r, i: i, j: j, count: uint64(j - i)}, j > i, nil
		case query.Year:
			if q.Lo != q.Hi {
				return leaf{}, false, fmt.Errorf("year takes one value")
			}
			b, ok := f.years[int(q.Lo)]
			if !ok {
				return leaf{}, false, nil
			}
			return leaf{eq: b, count: f.yearCount[int(q.Lo)]}, true, nil
		}
		return leaf{}, false, fmt.Errorf("field %s is not numeric", q.Field)
	}
	return leaf{}, false, fmt.Errorf("cannot resolve %s", q)
}

func (c *Catalogue) findSlug(enum int, v string) int {
	for i, s := range c.Enums[enum].Slugs {
		if strings.EqualFold(s, v) {
			return i
		}
	}
	return -1
}

// Filter appends to dst the rows of variants matching q whose stable id is
// greater than afterID, in stable-id order, at most limit+1 of them (the
// extra row tells the caller another page follows). q must be a conjunction
// of Terms and Ranges (or a single one, or a Const) after query.Simplify.
//
// The plan: resolve each condition to a bitmap or a range with its exact
// size, start from the smallest, intersect the others in place on the
// scratch bitmap, then walk the result from the first row after the
// position.
func (c *Catalogue) Filter(dst []uint32, q query.Q, afterID uint32, limit int, s *FilterScratch) ([]uint32, error) {
	start := uint32(sort.Search(len(c.VarID), func(i int) bool { return c.VarID[i] > afterID }))
	var conds []query.Q
	switch q := q.(type) {
	case query.Const:
		if !q.Value {
			return dst, nil
		}
		for r := start; r < uint32(len(c.VarID)) && len(dst) <= limit; r++ {
			dst = append(dst, r)
		}
		return dst, nil
	case query.And:
		conds = q.Children
	case query.Term, query.Range:
		conds = []query.Q{q}
	default:
		return dst, fmt.Errorf("unsupported filter %s", q)
	}
	s.leaves = s.leaves[:0]
	for _, cq := range conds {
		l, ok, err := c.resolve(cq)
		if err != nil {
			return dst, err
		}
		if !ok {
			return dst, nil // a condition no row meets
		}
		s.leaves = append(s.leaves, l)
	}
	sort.Slice(s.leaves, func(i, j int) bool { return s.leaves[i].count < s.leaves[j].count })
	bm := s.bm
	first := s.leaves[0]
	if first.eq != nil {
		bm.Clear()
		bm.Or(first.eq)
	} else {
		first.rng.Materialize(bm, first.i, first.j)
	}
	for _, l := range s.leaves[1:] {
		if bm.IsEmpty() {
			return dst, nil
		}
		if l.eq != nil {
			bm.And(l.eq)
		} else {
			s.keep = l.rng.Apply(bm, l.i, l.j, s.keep)
		}
	}
	s.it.Initialize(bm)
	s.it.AdvanceIfNeeded(start)
	for s.it.HasNext() && len(dst) <= limit {
		dst = append(dst, s.it.Next())
	}
	return dst, nil
}
