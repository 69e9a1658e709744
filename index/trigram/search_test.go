package trigram

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sampleTexts returns every step-th text of the catalogue, so that brute
// force stays cheap.
func sampleTexts(tb testing.TB, step int) []string {
	c := loadCatalogue(tb)
	var out []string
	for i := 0; i < len(c.texts); i += step {
		out = append(out, c.texts[i])
	}
	return out
}

// typoQueries returns the parity queries plus random typos of words of
// texts, from a fixed seed.
func typoQueries(tb testing.TB, texts []string, n int) []string {
	var out []string
	for _, q := range readQueries(tb) {
		out = append(out, q.text)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for len(out) < n {
		w := strings.Fields(texts[rng.IntN(len(texts))])
		k := 1 + rng.IntN(min(3, len(w)))
		i := rng.IntN(len(w) - k + 1)
		r := []rune(strings.Join(w[i:i+k], " "))
		if len(r) > 2 {
			j := rng.IntN(len(r))
			switch rng.IntN(3) {
			case 0:
				r = append(r[:j:j], r[j+1:]...)
			case 1:
				r[j] = rune('a' + rng.IntN(26))
			default:
				if j+1 < len(r) {
					r[j], r[j+1] = r[j+1], r[j]
				}
			}
		}
		out = append(out, string(r))
	}
	return out
}

// bruteForceIndex scores every text of ix with the float4 port of the
// greedy loop (not the integer one Search uses), in result order.
func bruteForceIndex(ix *Index, q string, thr float32) []Match {
	qt := Trigrams(nil, q)
	found := make([]bool, len(ix.keys))
	lastpos := make([]int32, len(ix.keys))
	for i := range lastpos {
		lastpos[i] = -1
	}
	for _, k := range qt {
		if id, ok := slices.BinarySearch(ix.keys, k); ok {
			found[id] = true
		}
	}
	var out []Match
	for rank := 0; rank < ix.Len(); rank++ {
		seq := ix.seq[ix.seqOff[rank]:ix.seqOff[rank+1]]
		sc := iterateWordSimilarity(seq, found, lastpos, len(qt))
		if sc > 0 && float64(sc) >= float64(thr) {
			out = append(out, Match{Row: ix.rowOf[rank], Score: sc})
		}
	}
	// Ranks ascend, so a stable sort by score gives the result order.
	slices.SortStableFunc(out, func(a, b Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}

// TestSearchBruteForce compares Search with scoring every text, for many
// queries, thresholds and page sizes, on a sample of the catalogue: the
// pruning bounds must never drop a match.
func TestSearchBruteForce(t *testing.T) {
	texts := sampleTexts(t, 23)
	ix := Build(texts)
	queries := typoQueries(t, texts, 800)
	s := AcquireScratch()
	defer ReleaseScratch(s)
	var got []Match
	checked := 0
	for i, q := range queries {
		if i%50 == 0 {
			// The reference of the reference: pg_trgm's function itself.
			if a, b := bruteForce(texts, q, 0.3), bruteForceIndex(ix, q, 0.3); !slices.Equal(a, b) {
				t.Fatalf("brute forces differ for %q", q)
			}
		}
		for _, thr := range []float32{0.3, 0.5, 0.7} {
			all := bruteForceIndex(ix, q, thr)
			for _, limit := range []int{0, 1, 3, 10, 40} {
				got = ix.Search(got[:0], Query{Text: q, Threshold: thr, Limit: limit}, s)
				want := all[:min(len(all), limit+1)]
				if !slices.Equal(got, want) {
					t.Fatalf("Search(%q, %v, limit %d):\n got  %v\n want %v", q, thr, limit, got, want)
				}
				checked++
			}
		}
	}
	t.Logf("%d searches over %d texts equal to brute force", checked, len(texts))
}

// TestSearchBruteForceFull checks queries against brute force over the whole
// catalogue.
func TestSearchBruteForceFull(t *testing.T) {
	ix := loadIndex(t)
	texts := loadCatalogue(t).texts
	s := AcquireScratch()
	defer ReleaseScratch(s)
	_ = texts
	for _, q := range typoQueries(t, texts, 480)[400:] {
		all := bruteForceIndex(ix, q, 0.5)
		for _, limit := range []int{1, 10, 100} {
			got := ix.Search(nil, Query{Text: q, Threshold: 0.5, Limit: limit}, s)
			want := all[:min(len(all), limit+1)]
			if !slices.Equal(got, want) {
				t.Fatalf("Search(%q, limit %d):\n got  %v\n want %v", q, limit, got, want)
			}
		}
	}
}

// page runs a query to its end, limit at a time, following the cursor as a
// client would, and returns every match.
func page(t *testing.T, ix *Index, q string, thr float32, limit int, s *Scratch) []Match {
	t.Helper()
	var out []Match
	var after *Position
	for pages := 0; ; pages++ {
		got := ix.Search(nil, Query{Text: q, Threshold: thr, After: after, Limit: limit}, s)
		if len(got) > limit+1 {
			t.Fatalf("%q: page of %d matches, limit %d", q, len(got), limit)
		}
		more := len(got) == limit+1
		if more {
			got = got[:limit]
		}
		out = append(out, got...)
		if !more {
			return out
		}
		last := got[len(got)-1]
		after = &Position{Score: last.Score, Text: ix.Text(last.Row), Row: last.Row}
		if pages > 100000 {
			t.Fatalf("%q: paging does not end", q)
		}
	}
}

// TestKeysetPaging pages through all matches of several queries, 7 at a
// time, and checks that the pages put together are the unpaged result:
// no gap, no repeat.
func TestKeysetPaging(t *testing.T) {
	s := AcquireScratch()
	defer ReleaseScratch(s)
	check := func(ix *Index, q string, thr float32) int {
		t.Helper()
		full := ix.Search(nil, Query{Text: q, Threshold: thr, Limit: ix.Len()}, s)
		paged := page(t, ix, q, thr, 7, s)
		if !slices.Equal(paged, full) {
			t.Fatalf("%q at %v: paging gave %d matches, unpaged %d\n paged %v\n full  %v",
				q, thr, len(paged), len(full), head(paged), head(full))
		}
		return len(full)
	}
	// The whole catalogue: queries with a few hundred matches, ties
	// included.
	ix := loadIndex(t)
	for _, q := range []string{"skoda octavia 2.0 tdi", "citroen c3", "golf gti", "tesla mdoel"} {
		n := check(ix, q, 0.5)
		t.Logf("%q: %d matches paged", q, n)
	}
	// A sample with duplicated texts, so that rows break ties.
	texts := sampleTexts(t, 97)
	texts = append(texts, texts[:200]...)
	small := Build(texts)
	for _, q := range typoQueries(t, texts, 460)[400:] {
		check(small, q, 0.3)
	}
	// A cursor from another index: its text need not exist here.
	got := small.Search(nil, Query{Text: "golf", Threshold: 0.3, Limit: 5,
		After: &Position{Score: 1, Text: "volkswagen golf 0", Row: math.MaxUint32}}, s)
	for _, m := range got {
		if m.Score == 1 && small.Text(m.Row) <= "volkswagen golf 0" {
			t.Fatalf("match %v (%q) is not after the cursor", m, small.Text(m.Row))
		}
	}
}

func head(m []Match) string {
	if len(m) > 12 {
		return fmt.Sprint(m[:12]) + "..."
	}
	return fmt.Sprint(m)
}

// The exact integer loop and the float4 loop agree wherever the integer one
// applies.
func TestIterateVariantsAgree(t *testing.T) {
	texts := sampleTexts(t, 211)
	queries := typoQueries(t, texts, 450)
	for i, q := range queries {
		x := texts[i%len(texts)]
		qt := Trigrams(nil, q)
		tt, _ := appendTrigrams(nil, x, nil)
		set := sortUnique(slices.Clone(tt))
		seq := make([]uint32, len(tt))
		for j, v := range tt {
			k, _ := slices.BinarySearch(set, v)
			seq[j] = uint32(k)
		}
		found := make([]bool, len(set))
		lastpos := make([]int32, len(set))
		for j := range set {
			_, found[j] = slices.BinarySearch(qt, set[j])
			lastpos[j] = -1
		}
		f := iterateWordSimilarity(seq, found, lastpos, len(qt))
		n, d := iterateWordSimilarityFrac(seq, found, lastpos, len(qt))
		if len(qt) == 0 {
			continue
		}
		if g := float32(n) / float32(d); g != f {
			t.Fatalf("%q vs %q: float loop %v, integer loop %v", q, x, f, g)
		}
		for _, p := range lastpos {
			if p != -1 {
				t.Fatal("lastpos not restored")
			}
		}
	}
}

// TestSearchBruteForceSynthetic stresses the pruning bounds with texts made
// of a few short words over a three-letter alphabet, so that words repeat
// within a text and share trigrams, and with queries of the same kind.
func TestSearchBruteForceSynthetic(t *testing.T) {
	// Three letters: heavy repetition; eight letters and long queries: more
	// than 64 query trigrams, which the bounds handle without bit masks.
	for _, tc := range []struct {
		alphabet string
		qwords   int
	}{{"abc", 3}, {"ab", 2}, {"abcdefgh", 30}} {
		syntheticCase(t, tc.alphabet, tc.qwords)
	}
}

func syntheticCase(t *testing.T, alphabet string, qwords int) {
	rng := rand.New(rand.NewPCG(11, uint64(len(alphabet))))
	word := func() string {
		b := make([]byte, 1+rng.IntN(4))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	text := func(n int) string {
		w := make([]string, 1+rng.IntN(n))
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ")
	}
	texts := make([]string, 3000)
	for i := range texts {
		texts[i] = text(8)
	}
	ix := Build(texts)
	s := AcquireScratch()
	defer ReleaseScratch(s)
	var got []Match
	for i := 0; i < 300; i++ {
		q := text(qwords)
		for _, thr := range []float32{0.2, 0.4, 0.6} {
			all := bruteForceIndex(ix, q, thr)
			for _, limit := range []int{0, 2, 9} {
				got = ix.Search(got[:0], Query{Text: q, Threshold: thr, Limit: limit}, s)
				if want := all[:min(len(all), limit+1)]; !slices.Equal(got, want) {
					t.Fatalf("Search(%q, %v, limit %d):\n got  %v\n want %v", q, thr, limit, got, want)
				}
			}
		}
	}
}
