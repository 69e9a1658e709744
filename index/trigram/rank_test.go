package trigram

import (
	"slices"
	"strings"
	"testing"
)

// rankDocs builds a ranked index over "brand|model|name" lines, in the
// order given (which is also the static order).
func rankDocs(tb testing.TB, lines []string, aliases ...Alias) *Index {
	tb.Helper()
	texts := make([]string, len(lines))
	docs := make([]Doc, len(lines))
	for i, l := range lines {
		p := strings.Split(l, "|")
		for len(p) < 3 {
			p = append(p, "")
		}
		b, m, n := Fold(p[0]), Fold(p[1]), Fold(p[2])
		texts[i] = b + " " + n
		docs[i] = Doc{Brand: b, Model: m, Name: n, Order: uint64(i)}
	}
	return BuildRanked(texts, docs, aliases)
}

// rankAll returns every page of q, limit rows at a time, resuming with the
// last row's position as a cursor would.
func rankAll(ix *Index, q string, limit int) []Ranked {
	s := AcquireScratch()
	defer ReleaseScratch(s)
	var all []Ranked
	var after *RankPosition
	for page := 0; page < 10000; page++ {
		got, more := ix.Rank(nil, RankQuery{Text: Fold(q), Threshold: 0.5, After: after, Limit: limit}, s)
		got = got[:min(len(got), limit)]
		all = append(all, got...)
		if !more || len(got) == 0 {
			break
		}
		last := got[len(got)-1]
		after = &RankPosition{Key: last.Key, Row: last.Row}
	}
	return all
}

func TestRankOrder(t *testing.T) {
	lines := []string{
		"Volkswagen|Golf Variant|Golf Variant 1.5 TSI Life", // 0
		"Volkswagen|Golf|Golf 1.5 TSI Life",                 // 1
		"Volkswagen|Passat|Passat 2.0 TDI Variant",          // 2
		"Mercedes-Benz|C-Class|C-Class C 200 Avantgarde",    // 3
		"Mercedes-Benz|C-Class|C-Class C 220 d Avantgarde",  // 4
		"Audi|A4|A4 40 TFSI",                                // 5
		"BMW|3 Series|3 Series 320d Sport Line",             // 6
		"BMW|3 Series|3 Series 318i Sport Line",             // 7
		"Peugeot|208|208 1.2 PureTech Active",               // 8
		"Jaguar|F-Type|F-Type P240 R-Dynamic",               // 9
		"Toyota|Corolla|Corolla 1.8 Hybrid Comfort",         // 10
		"Mini|Coupé|Coupé Cooper S",                         // 11
		"Mini|Hatch|Hatch Cooper",                           // 12
	}
	ix := rankDocs(t, lines, Alias{Word: "vw", Brand: "volkswagen"}, Alias{Word: "merc", Brand: "mercedes-benz"},
		Alias{Word: "тойота", Brand: "toyota"})
	f := func(q string, want ...uint32) {
		t.Helper()
		got := rankAll(ix, q, 3)
		var rows []uint32
		for _, r := range got {
			rows = append(rows, r.Row)
		}
		if len(rows) < len(want) || !slices.Equal(rows[:len(want)], want) {
			t.Errorf("%q: rows %v, want %v first", q, rows, want)
		}
		seen := map[uint32]bool{}
		for _, r := range rows {
			if seen[r] {
				t.Errorf("%q: row %d twice over the pages", q, r)
			}
			seen[r] = true
		}
	}
	f("golf", 1, 0)          // the whole model before Golf Variant
	f("vw golf", 1, 0)       // alias; "v" of "variant" does not count
	f("vw passat", 2)        //
	f("merc c200", 3)        // alias, letters and digits joined
	f("mercedes c 200", 3)   // apart
	f("audi a 4", 5)         // split
	f("bmw 320d", 6)         // the model between brand and code
	f("pe", 8)               // prefix of the brand
	f("toyta corola", 10)    // typos
	f("Тойота Королла", 10)  // alias and transliteration
	f("mini cooper", 11, 12) // both, the static order decides
	f("golf variant", 0, 2)  // exact words in the model first, Passat's trim after
}

// TestRankKeepsSimilar checks that every row Search finds is also on some
// page of Rank, once.
func TestRankKeepsSimilar(t *testing.T) {
	lines := []string{"Volkswagen|Golf|Golf GTI", "Volkswagen|Golf|Golf", "Volkswagen|Polo|Polo", "Audi|A4|A4 S line", "Audi|A1|A1 1.0 TDI", "Fiat|500|500 1.2 Lounge"}
	ix := rankDocs(t, lines)
	s := AcquireScratch()
	defer ReleaseScratch(s)
	for _, q := range []string{"golf", "volkswagn", "audi tdi", "gol xyz", "fiat 500 lounge 1.2", "a"} {
		ws := ix.Search(nil, Query{Text: Fold(q), Threshold: 0.5, Limit: 100}, s)
		got := map[uint32]bool{}
		for _, r := range rankAll(ix, q, 2) {
			if got[r.Row] {
				t.Errorf("%q: row %d twice", q, r.Row)
			}
			got[r.Row] = true
		}
		for _, m := range ws {
			if !got[m.Row] {
				t.Errorf("%q: row %d (word_similarity %v) lost", q, m.Row, m.Score)
			}
		}
	}
}

func TestTranslit(t *testing.T) {
	f := func(in, want, hard string) {
		t.Helper()
		w := Fold(in)
		if got := string(AppendTranslit(nil, w)); got != want {
			t.Errorf("AppendTranslit(%q) = %q, want %q", w, got, want)
		}
		if got := string(AppendHard(nil, w)); got != hard {
			t.Errorf("AppendHard(%q) = %q, want %q", w, got, hard)
		}
	}
	f("Тойота", "toyota", "toyota")
	f("Королла", "korolla", "corolla")
	f("фокус", "fokus", "focus")
	f("Х5", "x5", "x5") // a look-alike beside a digit
	f("Хонда", "honda", "honda")
	f("Φολκσβάγκεν", "folksvagen", "folcsvagen")
	f("Γιάρις", "yaris", "yaris")
	f("تويوتا", "toyota", "toyota")
	f("جولف", "jolf", "golf")
	f("golf", "golf", "golf")
}

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"swfit", "swift", true}, {"golf", "golf", true}, {"volkswagn", "volkswagen", true}, {"mercedez", "mercedes", true},
		{"golf", "gold", true}, {"golf", "polo", false}, {"ab", "abcd", false}, {"abcd", "badc", false}, {"", "a", true},
	} {
		if got := oneEdit([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestLetterDigit(t *testing.T) {
	for w, want := range map[string]int{"a4": 1, "320d": 3, "c200": 1, "golf": 0, "200": 0, "a4b": 0, "x1": 1} {
		if got := letterDigit(w); got != want {
			t.Errorf("letterDigit(%q) = %d, want %d", w, got, want)
		}
	}
}

// FuzzRank builds a small ranked index from the fuzzer's lines and checks
// any query: no panic, no row twice over the pages, every row Search finds
// on some page, keys descending from page to page.
func FuzzRank(f *testing.F) {
	f.Add("Volkswagen|Golf|Golf GTI\nVolkswagen|Golf Variant|Golf Variant\nAudi|A4|A4 40 TFSI\nMercedes-Benz|C-Class|C-Class C 200", "vw golf", uint8(2))
	f.Add("Toyota|Corolla|Corolla 1.8\nBMW|X3|X3 20d", "Тойота Королла", uint8(1))
	f.Add("a|b|b c\n||\n1|2|2 3 4", "c2 3", uint8(3))
	f.Add("Škoda|Octavia|Octavia RS\nFiat|500|500", "škoda 50", uint8(0))
	f.Fuzz(func(t *testing.T, corpus, q string, limit uint8) {
		if len(corpus) > 2000 || len(q) > 100 {
			return
		}
		ix := rankDocs(t, strings.Split(corpus, "\n"), Alias{Word: "vw", Brand: "volkswagen"})
		lim := int(limit%5) + 1
		pages := rankAll(ix, q, lim)
		// The early stop loses nothing: small pages put together are the
		// pages of one that holds every row.
		if whole := rankAll(ix, q, ix.Len()+1); !slices.Equal(pages, whole) {
			t.Fatalf("%q: pages of %d differ from one page: %v, %v", q, lim, pages, whole)
		}
		// Nor does scoring by tiers.
		defer func(n int) { scanBudget = n }(scanBudget)
		scanBudget = 0
		if tiers := rankAll(ix, q, lim); !slices.Equal(pages, tiers) {
			t.Fatalf("%q: pages of %d by tiers differ: %v, %v", q, lim, tiers, pages)
		}
		scanBudget = 1 << 30
		seen := map[uint32]bool{}
		for i, r := range pages {
			if seen[r.Row] {
				t.Fatalf("%q: row %d twice", q, r.Row)
			}
			seen[r.Row] = true
			if i > 0 && r.Key > pages[i-1].Key {
				t.Fatalf("%q: key rises at %d", q, i)
			}
			if ws := WordSimilarity(Fold(q), ix.Text(r.Row)); r.Score != ws {
				t.Fatalf("%q: row %d scored %v, word_similarity is %v", q, r.Row, r.Score, ws)
			}
		}
		s := AcquireScratch()
		defer ReleaseScratch(s)
		for _, m := range ix.Search(nil, Query{Text: Fold(q), Threshold: 0.5, Limit: ix.Len()}, s) {
			if !seen[m.Row] {
				t.Fatalf("%q: row %d of word_similarity %v lost", q, m.Row, m.Score)
			}
		}
	})
}

// TestRankPrefixBits checks that the prefix bitsets change no answer: every
// page of some queries is the same with a bitset for every prefix and with
// none.
func TestRankPrefixBits(t *testing.T) {
	lines := []string{"Volkswagen|Golf|Golf GTI", "Volkswagen|Golf|Golf 1.5 TSI", "Volkswagen|Polo|Polo", "Audi|A4|A4 S line", "Audi|A1|A1 1.0 TDI",
		"Fiat|500|500 1.2 Lounge", "Seat|Ibiza|Ibiza SE", "Skoda|Superb|Superb Style", "Mercedes-Benz|S-Class|S-Class S 500", "Smart|Fortwo|Fortwo"}
	defer func(n int) { prefixRows = n }(prefixRows)
	prefixRows = 1 << 30
	none := rankDocs(t, lines)
	prefixRows = 1
	every := rankDocs(t, lines)
	if len(every.wx.prefKeys) == 0 || len(none.wx.prefKeys) != 0 {
		t.Fatalf("prefix bitsets: %d and %d", len(every.wx.prefKeys), len(none.wx.prefKeys))
	}
	for _, q := range []string{"s", "su", "a", "audi a", "vw g", "golf t", "s 5", "fiat 5", "x", "sk", "ibiza s"} {
		a, b := rankAll(none, q, 2), rankAll(every, q, 2)
		if !slices.Equal(a, b) {
			t.Errorf("%q: %v without prefix bitsets, %v with", q, a, b)
		}
	}
}

// TestRankTiers checks that scoring by tiers changes no answer: every page
// of many queries over a few hundred rows is the same when scan sorts
// every candidate into tiers at once and when it never does.
func TestRankTiers(t *testing.T) {
	var lines []string
	brands := []string{"Volkswagen|Golf|Golf", "Volkswagen|Golf Variant|Golf Variant", "Audi|A4|A4", "Audi|S4|S4", "BMW|3 Series|3 Series",
		"BMW|M3|M3", "Mercedes-Benz|C-Class|C-Class", "Mercedes-Benz|S-Class|S-Class", "Seat|Ibiza|Ibiza", "Skoda|Superb|Superb", "Citroën|C3|C3"}
	trims := []string{"1.5 TSI Life", "2.0 TDI S line", "320d M Sport", "C 200 Avantgarde", "S 500 4MATIC", "SE", "Sport 1.0", "S", "Style 2.0 TDI",
		"GTI", "e-Hybrid", "M Sport", "150", "1.6 HDi 110", "3.0 V6"}
	for i := 0; i < 400; i++ {
		lines = append(lines, brands[(i*7)%len(brands)]+" "+trims[(i*5+i/11)%len(trims)])
	}
	aliases := []Alias{{Word: "vw", Brand: "volkswagen"}, {Word: "merc", Brand: "mercedes-benz"}, {Word: "бмв", Brand: "bmw"}}
	ix := rankDocs(t, lines, aliases...)
	defer func(n int) { scanBudget = n }(scanBudget)
	queries := []string{"s", "se", "a", "3", "m", "s 5", "bmw m", "m sport", "c-c", "c 200", "2.0 tdi", "golf", "vw g", "audi s",
		"skoda s", "mercedes s", "merc c200", "бмв 3", "150", "tdi", "sport", "style", "1.5 tsi life", "golf s", "gti", "hybrid", "x"}
	for _, lim := range []int{1, 3, 20} {
		for _, q := range queries {
			scanBudget = 1 << 30
			never := rankAll(ix, q, lim)
			scanBudget = 0
			always := rankAll(ix, q, lim)
			scanBudget = 5
			soon := rankAll(ix, q, lim)
			if !slices.Equal(never, always) || !slices.Equal(never, soon) {
				t.Errorf("%q, limit %d: %v in static order,\n%v by tiers at once,\n%v by tiers after 5", q, lim, never, always, soon)
			}
		}
	}
}
