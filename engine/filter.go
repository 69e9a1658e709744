package engine

import (
	"cmp"
	"fmt"
	"slices"
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
	yearRows          map[int][]uint32        // the same rows in ascending order
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
			// An ongoing generation covers the years up to the catalogue's
			// sync (a sync date past MaxYear is not believed that far).
			end = min(f.syncYear, MaxYear)
		}
		first, last := c.genVariants[g], c.genVariants[g+1]
		for y := int(c.GenYearStart[g]); y <= end; y++ {
			for r := first; r < last; r++ {
				rows[y] = append(rows[y], r)
			}
		}
	}
	f.years = make(map[int]*roaring.Bitmap, len(rows))
	f.yearRows = make(map[int][]uint32, len(rows))
	f.yearCount = make(map[int]uint64, len(rows))
	for y, rs := range rows {
		sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
		b := roaring.BitmapOf(rs...)
		b.RunOptimize()
		f.years[y] = b
		f.yearRows[y] = slices.Clip(rs)
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

// leaf is one resolved condition of a conjunction with its exact size, and
// what checking it on rows needs.
type leaf struct {
	eq    *roaring.Bitmap
	rows  []uint32 // eq's rows in ascending order
	rng   *index.Range
	i, j  int
	count uint64

	field  query.Field
	code   uint8
	lo, hi int64
}

// keep keeps the rows of batch that meet the leaf, in order, checked on
// the columns one leaf at a time (the field's switch once per batch, not
// per row), and returns them.
func (c *Catalogue) keep(l *leaf, batch []uint32) []uint32 {
	n := 0
	switch l.field {
	case query.Fuel, query.Body, query.Drive:
		col := c.VarFuel
		if l.field == query.Body {
			col = c.VarBody
		} else if l.field == query.Drive {
			col = c.VarDrive
		}
		for _, r := range batch {
			if col[r] == l.code {
				batch[n] = r
				n++
			}
		}
	case query.Power:
		for _, r := range batch {
			if v := c.VarPowerHP[r]; v != Null && int64(v) >= l.lo && int64(v) <= l.hi {
				batch[n] = r
				n++
			}
		}
	case query.Price:
		for _, r := range batch {
			if v := c.VarPriceEUR[r]; c.VarHasPrice[r] && v > 0 && int64(v) >= l.lo && int64(v) <= l.hi {
				batch[n] = r
				n++
			}
		}
	case query.Year:
		for _, r := range batch {
			g := c.VarGen[r]
			end := int64(c.GenYearEnd[g])
			if end == 0 {
				end = int64(c.filters.syncYear)
			}
			if int64(c.GenYearStart[g]) <= l.lo && l.lo <= end {
				batch[n] = r
				n++
			}
		}
	}
	return batch[:n]
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
		return leaf{eq: e.Bitmap(code), rows: e.Rows(code), count: e.Count(code), field: q.Field, code: uint8(code)}, e.Count(code) > 0, nil
	case query.Range:
		switch q.Field {
		case query.Power, query.Price:
			r := f.power
			if q.Field == query.Price {
				r = f.price
			}
			i, j := r.Span(q.Lo, q.Hi)
			return leaf{rng: r, i: i, j: j, count: uint64(j - i), field: q.Field, lo: q.Lo, hi: q.Hi}, j > i, nil
		case query.Year:
			if q.Lo != q.Hi {
				return leaf{}, false, fmt.Errorf("year takes one value")
			}
			b, ok := f.years[int(q.Lo)]
			if !ok {
				return leaf{}, false, nil
			}
			return leaf{eq: b, rows: f.yearRows[int(q.Lo)], count: f.yearCount[int(q.Lo)], field: q.Field, lo: q.Lo, hi: q.Hi}, true, nil
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

// Costs of the plans, in nanoseconds, measured on this machine with
// BenchmarkFilter: checking one row against the columns, and one in-place
// bitmap operation over the whole catalogue.
const (
	costRowCheck = 4
	costBitmapOp = 12000
)

// Filter appends to dst the rows of variants matching q whose stable id is
// greater than afterID, in stable-id order, at most limit+1 of them (the
// extra row tells the caller another page follows). q must be a conjunction
// of Terms and Ranges (or a single one, or a Const) after query.Simplify.
//
// The plan resolves each condition to a bitmap or a range with its exact
// size and picks the cheaper of two:
//   - walk: read the rows of the smallest bitmap condition (as a sorted
//     list, or every row) in id order from the position, a batch at a
//     time, and keep those meeting the other conditions on the columns,
//     stopping at limit+1 matches; its cost is the rows expected to be
//     scanned, from the conditions' selectivities;
//   - intersect: start from the smallest condition, intersect the others in
//     place on the scratch bitmap, then walk the result; its cost is the
//     number of bitmap operations.
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
	slices.SortFunc(s.leaves, func(a, b leaf) int { return cmp.Compare(a.count, b.count) })

	// The walk's driver is the smallest bitmap condition, or every row.
	n := float64(len(c.VarID))
	driver := -1
	for i := range s.leaves {
		if s.leaves[i].eq != nil {
			driver = i
			break
		}
	}
	driverRows := n
	if driver >= 0 {
		driverRows = float64(s.leaves[driver].count)
	}
	sel := 1.0 // selectivity of the other conditions, assumed independent
	for i := range s.leaves {
		if i != driver {
			sel *= float64(s.leaves[i].count) / n
		}
	}
	scanned := min(driverRows, float64(limit+1)/max(sel, 1e-9))
	walkCost := scanned * costRowCheck * float64(len(s.leaves))
	intersectCost := float64(costBitmapOp * len(s.leaves))
	if plan := forcePlan; plan == planWalk || (plan == 0 && walkCost <= intersectCost) {
		return c.filterWalk(dst, driver, start, limit, s), nil
	}
	return c.filterIntersect(dst, start, limit, s), nil
}

// Plans, for tests that force one (forcePlan 0 lets the cost model choose).
const (
	planWalk      = 1
	planIntersect = 2
)

var forcePlan = 0

// walkBatch is how many of the driver's rows filterWalk checks at a time.
const walkBatch = 64

// filterWalk reads the driver's rows (every row when driver < 0) from
// start, a batch at a time, and keeps those meeting the other leaves.
func (c *Catalogue) filterWalk(dst []uint32, driver int, start uint32, limit int, s *FilterScratch) []uint32 {
	var rows []uint32
	if driver >= 0 {
		rows = s.leaves[driver].rows
		i, _ := slices.BinarySearch(rows, start)
		rows = rows[i:]
	}
	n := uint32(len(c.VarID))
	var buf [walkBatch]uint32
	for len(dst) <= limit {
		var batch []uint32
		if driver >= 0 {
			k := min(len(rows), walkBatch)
			if k == 0 {
				break
			}
			batch = append(buf[:0], rows[:k]...) // keep compacts it in place
			rows = rows[k:]
		} else {
			k := min(n-min(start, n), walkBatch)
			if k == 0 {
				break
			}
			batch = buf[:k]
			for i := range batch {
				batch[i] = start + uint32(i)
			}
			start += k
		}
		for i := range s.leaves {
			if i != driver {
				batch = c.keep(&s.leaves[i], batch)
			}
		}
		dst = append(dst, batch[:min(len(batch), limit+1-len(dst))]...)
	}
	return dst
}

// filterIntersect builds the exact result bitmap, then walks it.
func (c *Catalogue) filterIntersect(dst []uint32, start uint32, limit int, s *FilterScratch) []uint32 {
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
			return dst
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
	return dst
}
