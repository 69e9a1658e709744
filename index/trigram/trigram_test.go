package trigram

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func fmtScore(s float32) string { return strconv.FormatFloat(float64(s), 'g', -1, 64) }

// TestScoresPG checks word_similarity and similarity against values from
// ../shared/reference/trigram.md, each checked on PostgreSQL 15.
func TestScoresPG(t *testing.T) {
	scores := map[string]func(a, b string) float32{"word_similarity": WordSimilarity, "similarity": Similarity}
	for _, c := range []struct{ fn, a, b, want string }{
		{"word_similarity", "word", "two words", "0.800000011920929"},
		{"word_similarity", "gol", "Volkswagen Golf GTI", "0.75"},
		{"word_similarity", "golf", "Volkswagen Golf GTI", "1"},
		{"word_similarity", "gti golf", "Volkswagen Golf GTI", "1"},
		{"word_similarity", "golf gti", "Volkswagen Golf 1.5 TSI GTI", "0.625"},
		{"word_similarity", "volkswagen gof", "Volkswagen Golf GTI", "0.8666666746139526"},
		{"word_similarity", "vw golf", "Volkswagen Golf GTI", "0.625"},
		// The greedy extent search of iterate_word_similarity, not the
		// exhaustive maximum (0.32).
		{"word_similarity", "Audi A4 Avat 2.0", "Fiat 500 2.0 TDI 300 Automatik Plus Plus", "0.3181818127632141"},
		{"word_similarity", "", "golf", "0"},
		{"word_similarity", "golf", "", "0"},
		{"word_similarity", "!!!", "golf", "0"},
		{"similarity", "Volkswagen Golf", "golf", "0.3125"},
		{"similarity", "word", "two words", "0.3636363744735718"},
		{"similarity", "ŠKODA", "škoda", "1"},
		{"similarity", "Škoda", "skoda", "0.3333333432674408"},
		{"similarity", "Citroën", "citroen", "0.4545454680919647"},
		{"similarity", "Straße", "STRASSE", "0.3636363744735718"},
	} {
		if got := fmtScore(scores[c.fn](c.a, c.b)); got != c.want {
			t.Errorf("%s(%q, %q) = %s, want %s", c.fn, c.a, c.b, got, c.want)
		}
	}
}

func TestShowTrgm(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		if got := strings.Join(ShowTrgm(s), ","); got != want {
			t.Errorf("show_trgm(%q) = %s, want %s", s, got, want)
		}
	}
	f("Golf", "  g, go,gol,lf ,olf")
	f("golf golf GOLF", "  g, go,gol,lf ,olf")
	f("ID.3", "  3,  i, 3 , id,id ")
	f("", "")
	f("!!", "")
}

// The compact (hashed) trigrams of 'Łada', as show_trgm prints them.
func TestCompactTrigram(t *testing.T) {
	got := Trigrams(nil, "Łada")
	var hashed []string
	for _, x := range got {
		if s := x.String(); strings.HasPrefix(s, "0x") {
			hashed = append(hashed, s)
		}
	}
	slices.Sort(hashed)
	want := []string{"0x62b71d", "0x7a0d9b", "0xbf74d1"}
	if !slices.Equal(hashed, want) {
		t.Fatalf("hashed trigrams of Łada = %v, want %v (all: %v)", hashed, want, got)
	}
	if len(got) != 5 {
		t.Fatalf("Łada has %d trigrams, want 5", len(got))
	}
}

func TestWordChars(t *testing.T) {
	f := func(s string, want ...string) {
		t.Helper()
		var words []string
		for _, x := range ShowTrgm(s) {
			if strings.HasPrefix(x, "  ") {
				words = append(words, x[2:])
			}
		}
		slices.Sort(words)
		slices.Sort(want)
		if !slices.Equal(words, want) {
			t.Errorf("word starts of %q = %q, want %q", s, words, want)
		}
	}
	f("e-tron", "e", "t")
	f("x_y", "x", "y")
	f("a/b(c)!d&e", "a", "b", "c", "d", "e")
	f("½²")
}

func TestFold(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
		if got := string(AppendFold([]byte("x"), in)); got != "x"+want {
			t.Errorf("AppendFold(%q) = %q, want %q", in, got, "x"+want)
		}
	}
	f("Škoda Octavia", "skoda octavia")
	f("Citroën C5 Aircross", "citroen c5 aircross")
	f("ŠKODA", "skoda")
	f("Volkswagen ID.3 Pro S", "volkswagen id.3 pro s")
	f("Ø Æble Œuvre STRAßE Đurđevac Łódź Þór ıI İstanbul", "o aeble oeuvre strasse durdevac lodz thor ii istanbul")
	f("e\u0301", "e")
	f("Ελληνικά Άλφα", "ελληνικα αλφα")
	f("Фолксваген Йо", "фолксваген йо")
	f("Й", "й")
	f("И\u0306", "й")
	f("فولكس فاجن", "فولكس فاجن")
	f("!!! -", "!!! -")
	f("", "")
	f("plain ascii 1.5", "plain ascii 1.5")
	f("Renault Clio R.S. 200 EDC", "renault clio rs 200 edc")
	f("r.s.", "rs")
	f("A.M.G. line", "amg line")
	f("e.GO Life", "e.go life")
	f("Volkswagen ID.3", "volkswagen id.3")
	f("x.y", "x.y")
	f("Š.K.", "sk")
}

func TestFoldFindsDiacritics(t *testing.T) {
	f := func(q, text string) {
		t.Helper()
		if s := WordSimilarity(Fold(q), Fold(text)); s != 1 {
			t.Errorf("word_similarity(Fold(%q), Fold(%q)) = %v, want 1", q, text, s)
		}
	}
	f("skoda", "Škoda Octavia 2.0 TDI")
	f("citroen", "Citroën C3")
	f("škoda", "Skoda Fabia")
}

// iterateExhaustive is the exhaustive maximum over all extents, an upper
// bound of the greedy search.
func iterateExhaustive(q, text string) float32 {
	qt := Trigrams(nil, q)
	tt, _ := appendTrigrams(nil, text, nil)
	var best float32
	for a := range tt {
		for b := a; b < len(tt); b++ {
			u := sortUnique(slices.Clone(tt[a : b+1]))
			c := 0
			for _, x := range u {
				if _, ok := slices.BinarySearch(qt, x); ok {
					c++
				}
			}
			if len(qt) > 0 {
				if s := calcSML(c, len(qt), len(u)); s > best {
					best = s
				}
			}
		}
	}
	return best
}

func TestGreedyBelowExhaustive(t *testing.T) {
	pairs := [][2]string{
		{"Audi A4 Avat 2.0", "Fiat 500 2.0 TDI 300 Automatik Plus Plus"},
		{"golf", "volkswagen golf 1.5 tsi golf"},
		{"bmw 320d", "bmw 3 series 320d xdrive steptronic m sport"},
	}
	for _, p := range pairs {
		g, e := WordSimilarity(p[0], p[1]), iterateExhaustive(p[0], p[1])
		if g > e || math.IsNaN(float64(g)) {
			t.Errorf("%q vs %q: greedy %v > exhaustive %v", p[0], p[1], g, e)
		}
	}
}

func TestSearchEmpty(t *testing.T) {
	ix := Build([]string{"volkswagen golf", "skoda octavia", "", "!!!"})
	s := AcquireScratch()
	defer ReleaseScratch(s)
	for _, q := range []string{"", "!!!", "-", " ", "фолксваген"} {
		if got := ix.Search(nil, Query{Text: q, Threshold: 0.3, Limit: 10}, s); len(got) != 0 {
			t.Errorf("Search(%q) = %v, want nothing", q, got)
		}
	}
	for _, thr := range []float32{0, -1} {
		got := ix.Search(nil, Query{Text: "golf", Threshold: thr, Limit: 10}, s)
		if len(got) != 1 || got[0].Row != 0 {
			t.Errorf("Search(golf, threshold %v) = %v, want row 0 only", thr, got)
		}
	}
	if got := ix.Search(nil, Query{Text: "golf", Threshold: 1.01, Limit: 10}, s); len(got) != 0 {
		t.Errorf("threshold above 1 gave %v", got)
	}
	empty := Build(nil)
	if got := empty.Search(nil, Query{Text: "golf", Threshold: 0.3, Limit: 10}, s); len(got) != 0 {
		t.Errorf("empty index gave %v", got)
	}
}

func TestSearchSmall(t *testing.T) {
	texts := []string{
		"volkswagen golf 1.5 tsi",   // 0
		"volkswagen polo",           // 1
		"volkswagen golf gti",       // 2
		"skoda octavia",             // 3
		"volkswagen golf 1.5 tsi",   // 4, same text as 0
		"volvo xc60",                // 5
		"golf cart",                 // 6
		"volkswagen golf variant",   // 7
		"seat leon",                 // 8
		"volkswagen passat variant", // 9
	}
	ix := Build(texts)
	if ix.Len() != len(texts) {
		t.Fatalf("Len = %d", ix.Len())
	}
	for i, x := range texts {
		if ix.Text(uint32(i)) != x {
			t.Fatalf("Text(%d) = %q", i, ix.Text(uint32(i)))
		}
	}
	s := &Scratch{}
	for _, q := range []string{"golf", "volks", "volkswagen golf", "gol", "vo", "xc60 volvo", "variant", "octavai"} {
		for _, thr := range []float32{0.3, 0.5, 0.8} {
			got := ix.Search(nil, Query{Text: q, Threshold: thr, Limit: 100}, s)
			want := bruteForce(texts, q, thr)
			if !slices.Equal(got, want) {
				t.Errorf("Search(%q, %v) = %v, want %v", q, thr, got, want)
			}
		}
	}
}

// bruteForce scores every text and sorts, the reference of Search.
func bruteForce(texts []string, q string, thr float32) []Match {
	var out []Match
	for i, x := range texts {
		if sc := WordSimilarity(q, x); float64(sc) >= float64(thr) && sc > 0 {
			out = append(out, Match{Row: uint32(i), Score: sc})
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		if c := strings.Compare(texts[a.Row], texts[b.Row]); c != 0 {
			return c
		}
		return int(a.Row) - int(b.Row)
	})
	return out
}

func TestTrigramString(t *testing.T) {
	f := func(x Trigram, want string) {
		t.Helper()
		if got := x.String(); got != want {
			t.Errorf("%#x.String() = %q, want %q", uint32(x), got, want)
		}
	}
	f(Trigram('g'<<16|'o'<<8|'l'), "gol")
	f(Trigram(' '<<16|' '<<8|'g'), "  g")
	f(0xbf74d1, "0xbf74d1")
	f(Trigram('a'<<16|'.'<<8|'b'), "0x612e62")
}
