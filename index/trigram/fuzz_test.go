package trigram

import (
	"slices"
	"strings"
	"testing"
)

// FuzzWordSimilarity checks, on any pair of strings, that word_similarity is
// in [0, 1], that the integer loop agrees with the float4 port, and that the
// greedy search stays at or below the exhaustive maximum.
func FuzzWordSimilarity(f *testing.F) {
	for _, p := range [][2]string{
		{"word", "two words"},
		{"gol", "Volkswagen Golf GTI"},
		{"Audi A4 Avat 2.0", "Fiat 500 2.0 TDI 300 Automatik Plus Plus"},
		{"Łada", "łada niva"},
		{"фолксваген", "Фолксваген голф"},
		{"", "x"},
		{"!!!", "-"},
		{"aaa aaa", "aa aaa a aaaa"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, q, x string) {
		if len(q) > 200 || len(x) > 400 {
			return
		}
		s := WordSimilarity(q, x)
		if !(s >= 0 && s <= 1) {
			t.Fatalf("word_similarity(%q, %q) = %v", q, x, s)
		}
		if e := iterateExhaustive(q, x); s > e {
			t.Fatalf("word_similarity(%q, %q) = %v above the exhaustive maximum %v", q, x, s, e)
		}
		if Similarity(q, x) < 0 || Similarity(q, x) > 1 {
			t.Fatalf("similarity(%q, %q) out of range", q, x)
		}
		if fq := Fold(q); strings.ToValidUTF8(q, "") == q && Fold(fq) != fq {
			t.Fatalf("Fold is not idempotent on %q: %q then %q", q, fq, Fold(fq))
		}
	})
}

// FuzzSearch builds a small index from the fuzzer's texts and checks every
// search against brute force: no panic, scores in [0, 1], nothing dropped
// by the pruning bounds, pages that put together give the whole result.
func FuzzSearch(f *testing.F) {
	f.Add("volkswagen golf gti|volkswagen golf|volkswagen polo|vw golf|golf cart|audi a4 s line|audi line", "golf", uint8(50), uint8(1))
	f.Add("a|a a|aa|aaa a|b a|a b a", "a", uint8(30), uint8(0))
	f.Add("škoda octavia|skoda fabia|citroën c3||!!!", "skoda", uint8(10), uint8(2))
	f.Add("audi a4 2.0 tdi|audi tdi|audi 100 1.0 tdi 87 advanced|hyundai accent automatic n line|audi a1 1.0 tdi", "audi tdi", uint8(60), uint8(1))
	f.Fuzz(func(t *testing.T, corpus, q string, thr, limit uint8) {
		if len(corpus) > 2000 || len(q) > 100 {
			return
		}
		texts := strings.Split(corpus, "|")
		ix := Build(texts)
		threshold := float32(thr%101) / 100
		lim := int(limit % 8)
		s := AcquireScratch()
		defer ReleaseScratch(s)
		all := ix.Search(nil, Query{Text: q, Threshold: threshold, Limit: len(texts)}, s)
		want := bruteForceIndex(ix, q, threshold)
		if !slices.Equal(all, want) {
			t.Fatalf("Search(%q, %v) over %q:\n got  %v\n want %v", q, threshold, texts, all, want)
		}
		for _, m := range all {
			if !(m.Score > 0 && m.Score <= 1) || int(m.Row) >= len(texts) {
				t.Fatalf("bad match %v", m)
			}
			if ws := WordSimilarity(q, texts[m.Row]); ws != m.Score {
				t.Fatalf("match %v of %q: word_similarity is %v", m, texts[m.Row], ws)
			}
		}
		got := ix.Search(nil, Query{Text: q, Threshold: threshold, Limit: lim}, s)
		if !slices.Equal(got, all[:min(len(all), lim+1)]) {
			t.Fatalf("limit %d: got %v, want the first of %v", lim, got, all)
		}
		// Page through everything.
		var paged []Match
		var after *Position
		for range len(texts) + 2 {
			p := ix.Search(nil, Query{Text: q, Threshold: threshold, After: after, Limit: lim}, s)
			more := len(p) > lim
			if more {
				p = p[:lim]
			}
			paged = append(paged, p...)
			if !more || len(p) == 0 {
				break
			}
			last := p[len(p)-1]
			after = &Position{Score: last.Score, Text: ix.Text(last.Row), Row: last.Row}
		}
		if lim > 0 && !slices.Equal(paged, all) {
			t.Fatalf("paging by %d gave %v, want %v", lim, paged, all)
		}
	})
}
