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
						t0 := time.Now()
			dst = ix.Search(dst[:0], Query{Text: q.text, Threshold: 0.5, Limit: 10}, s)
			if d := time.Since(t0); d < best.d { best = r{d, 0, q.text, len(dst), 0} }
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

func BenchmarkDiag(b *testing.B) {
	ix := loadIndex(b)
	s := AcquireScratch()
	qs := []string{"audi line", "suzu", "mercede", "bmw l3", "audi tdi"}
	var dst []Match
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		dst = ix.Search(dst[:0], Query{Text: qs[i%len(qs)], Threshold: 0.5, Limit: 10}, s)
	}
}

func BenchmarkDiagEach(b *testing.B) {
	ix := loadIndex(b)
	for _, q := range []string{"audi line", "suzu", "mercede", "bmw l3", "audi tdi", "volkswagen", "volkswegen"} {
		b.Run(q, func(b *testing.B) {
			s := AcquireScratch()
			var dst []Match
			for b.Loop() {
				dst = ix.Search(dst[:0], Query{Text: q, Threshold: 0.5, Limit: 10}, s)
			}
		})
	}
}

func TestDiagPrune(t *testing.T) {
	ix := loadIndex(t)
	s := AcquireScratch()
	for _, q := range []string{"audi line", "suzu", "mercede", "bmw l3", "audi tdi", "volkswegen", "bmw steptronic"} {
		dbgTried, dbgPruned, dbgScored = 0, 0, 0
		dst := ix.Search(nil, Query{Text: q, Threshold: 0.5, Limit: 10}, s)
		fmt.Printf("%-20q tried=%d pruned=%d scored=%d res=%v\n", q, dbgTried, dbgPruned, dbgScored, dst[:min(3,len(dst))])
	}
}

func BenchmarkDiagOne(b *testing.B) {
	ix := loadIndex(b)
	s := AcquireScratch()
	var dst []Match
	b.ResetTimer()
	for b.Loop() {
		dst = ix.Search(dst[:0], Query{Text: "volkswegen", Threshold: 0.5, Limit: 10}, s)
	}
}
