package trigram

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestDiagSlow(t *testing.T) {
	ix := loadIndex(t)
	qs := readQueries(t)
	s := AcquireScratch()
	type r struct{ d, scan time.Duration; q string; n, scored int }
	var rs []r
	var dst []Match
	for _, q := range qs {
		best := r{d: time.Hour}
		for k := 0; k < 3; k++ {
			dbgScored = 0
			t0 := time.Now()
			dst = ix.Search(dst[:0], Query{Text: q.text, Threshold: 0.5, Limit: 10}, s)
			if d := time.Since(t0); d < best.d { best = r{d, dbgT1.Sub(t0), q.text, len(dst), dbgScored} }
		}
		rs = append(rs, best)
	}
	slices.SortFunc(rs, func(a, b r) int { return int(b.d - a.d) })
	for _, x := range rs[:40] {
		qk := Trigrams(nil, x.q)
		post := 0
		for _, k := range qk { if id, ok := slices.BinarySearch(ix.keys, k); ok { post += int(ix.post[id].GetCardinality()) } }
		fmt.Printf("%8v scan=%8v scored=%6d %-40q nq=%d postings=%d\n", x.d, x.scan, x.scored, x.q, len(qk), post)
	}
}
