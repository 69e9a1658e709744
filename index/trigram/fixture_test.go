package trigram

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
)

// go test ./index/trigram -run TestWriteFixtureInputs -update rewrites
// testdata/texts.tsv (not committed) and testdata/queries.tsv;
// testdata/gen_fixture.sh then runs them through PostgreSQL.
var update = flag.Bool("update", false, "rewrite testdata/texts.tsv and testdata/queries.tsv")

// catalogue holds the texts the server indexes: Fold(brand + " " + variant
// display name), in variant (stable-id) order, and the brands' names.
type catalogue struct {
	texts      []string
	brands     []string // folded brand names
	brandNames [][]string
	brandOf    []int // brand row of each variant
}

var (
	catOnce sync.Once
	cat     *catalogue
	catErr  error
	ixOnce  sync.Once
	fullIx  *Index
)

func loadCatalogue(tb testing.TB) *catalogue {
	tb.Helper()
	catOnce.Do(func() {
		set, err := gen.Generate(vocab.Default(), gen.Options{})
		if err != nil {
			catErr = err
			return
		}
		c := &catalogue{}
		for i := range set.Brands {
			b := &set.Brands[i]
			c.brands = append(c.brands, Fold(b.Name))
			var names []string
			for _, l := range b.Names {
				if l != "" {
					names = append(names, l)
				}
			}
			c.brandNames = append(c.brandNames, names)
		}
		for i := range set.Variants {
			v := &set.Variants[i]
			g := set.Generations[v.Generation]
			m := set.Models[g.Model]
			b := set.Brands[m.Brand]
			c.texts = append(c.texts, Fold(b.Name+" "+v.Name))
			c.brandOf = append(c.brandOf, int(m.Brand))
		}
		cat = c
	})
	if catErr != nil {
		tb.Fatalf("cannot generate the catalogue: %v", catErr)
	}
	return cat
}

func loadIndex(tb testing.TB) *Index {
	c := loadCatalogue(tb)
	ixOnce.Do(func() { fullIx = Build(c.texts) })
	return fullIx
}

// tsvEscape escapes s for PostgreSQL's COPY text format.
func tsvEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	return r.Replace(s)
}

func tsvUnescape(s string) string {
	r := strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
	return r.Replace(s)
}

func TestWriteFixtureInputs(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/texts.tsv and testdata/queries.tsv")
	}
	c := loadCatalogue(t)
	var b strings.Builder
	for i, x := range c.texts {
		fmt.Fprintf(&b, "%d\t%s\n", i, tsvEscape(x))
	}
	if err := os.WriteFile(filepath.Join("testdata", "texts.tsv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	for i, q := range makeQueries(c) {
		fmt.Fprintf(&b, "%d\t%s\n", i+1, tsvEscape(q))
	}
	if err := os.WriteFile(filepath.Join("testdata", "queries.tsv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// makeQueries draws the parity queries, folded, from a fixed seed.
func makeQueries(c *catalogue) []string {
	rng := rand.New(rand.NewPCG(20260101, 7))
	var out []string
	seen := map[string]bool{}
	add := func(q string) {
		q = Fold(q)
		if seen[q] || strings.ContainsAny(q, "\t\n\r\\") {
			return
		}
		seen[q] = true
		out = append(out, q)
	}
	text := func() string { return c.texts[rng.IntN(len(c.texts))] }
	prefix := func(s string, lo, hi int) string {
		r := []rune(s)
		n := lo + rng.IntN(hi-lo+1)
		if n > len(r) {
			n = len(r)
		}
		return strings.TrimRight(string(r[:n]), " ")
	}
	// A typo lands inside the first two words (brand and model).
	head := func() []rune {
		w := strings.Fields(text())
		if len(w) > 2 {
			w = w[:2]
		}
		return []rune(strings.Join(w, " "))
	}
	letters := []rune("abcdefghijklmnopqrstuvwxyz")
	count := func(n int, f func()) {
		for start := len(out); len(out) < start+n; {
			f()
		}
	}

	count(80, func() { add(prefix(text(), 2, 8)) })
	count(50, func() { add(prefix(text(), 9, 28)) })
	count(40, func() { // a deleted character
		r := head()
		if len(r) < 4 {
			return
		}
		i := rng.IntN(len(r))
		add(string(append(r[:i:i], r[i+1:]...)))
	})
	count(40, func() { // a substituted character
		r := head()
		i := rng.IntN(len(r))
		if r[i] == ' ' {
			return
		}
		r[i] = letters[rng.IntN(len(letters))]
		add(string(r))
	})
	count(40, func() { // an adjacent transposition
		r := head()
		if len(r) < 3 {
			return
		}
		i := rng.IntN(len(r) - 1)
		if r[i] == r[i+1] {
			return
		}
		r[i], r[i+1] = r[i+1], r[i]
		add(string(r))
	})
	count(40, func() { // the brand skipped: starting at the model
		i := rng.IntN(len(c.texts))
		rest := strings.TrimPrefix(c.texts[i], c.brands[c.brandOf[i]]+" ")
		add(prefix(rest, 3, 20))
	})
	count(30, func() { // brand and one later word
		i := rng.IntN(len(c.texts))
		w := strings.Fields(c.texts[i])
		if len(w) < 3 {
			return
		}
		add(w[0] + " " + w[2+rng.IntN(len(w)-2)])
	})
	count(20, func() { add(text()) }) // whole texts
	for _, q := range []string{
		"bmw 320d", "golf gti", "audi a4 avant", "mercedes c 220", "tesla model 3",
		"toyota corolla hybrid", "vw golf", "golf", "volkswagen", "volkswagen golf",
		"volkswagn", "volkswegen", "vokswagen", "mercedes", "mercedes-benz", "bmw",
		"peugeot 308", "peugoet", "volov xc6", "tesla mdoel", "id.3", "e-tron", "xc60",
		"1.5 tsi", "2.0 tdi", "150", "320d xdrive", "m sport", "dsg", "hybrid", "kwh",
		"s", "a", "3", "vo", "go", "x", "electric", "automatic", "quattro",
	} {
		add(q)
	}
	for _, q := range []string{ // diacritics, folded by add
		"skoda", "Škoda", "škoda octavia", "SKODA FABIA", "citroen", "Citroën", "citroën c3",
		"citroen c5 aircross", "škoda kodiaq", "Citroen ë-C4", "renault mégane", "mégane",
		"Ssangyong", "Alfa Roméo", "DS", "Lancia Ypsilon", "Dacia Duster", "Mazda CX-5",
		"Kia Ceed", "Hyundai Tucson",
	} {
		add(q)
	}
	// Non-Latin scripts: fixed ones and the brands' localized names.
	for _, q := range []string{
		"фолксваген", "шкода", "тойота", "мерседес", "ситроен", "фолксваген голф",
		"φολκσβαγκεν", "τογιοτα", "Άουντι", "μερσεντές", "فولكس فاجن", "تويوتا", "مرسيدس", "سكودا",
	} {
		add(q)
	}
	count(20, func() {
		names := c.brandNames[rng.IntN(len(c.brandNames))]
		if len(names) == 0 {
			return
		}
		n := names[rng.IntN(len(names))]
		if utf8.RuneCountInString(n) == len(n) {
			return // an ASCII name: nothing non-Latin to test
		}
		add(n)
	})
	// No letters or digits: no trigram at all.
	for _, q := range []string{"!!!", "-", "", " ", "...", "/", "&&", "—", "(+)", "²", "_"} {
		add(q)
	}
	return out
}

type fixtureQuery struct {
	id   int
	text string
}

func readQueries(tb testing.TB) []fixtureQuery {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "queries.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []fixtureQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, q, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			tb.Fatalf("bad line in queries.tsv: %q", sc.Text())
		}
		n, err := strconv.Atoi(id)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, fixtureQuery{n, tsvUnescape(q)})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// readExpected reads a PostgreSQL result file: qid, row id, score as
// float8, one line per match, in result order.
func readExpected(tb testing.TB, name string) map[int][]string {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[int][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		qid, rest, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			tb.Fatalf("bad line in %s: %q", name, sc.Text())
		}
		n, err := strconv.Atoi(qid)
		if err != nil {
			tb.Fatal(err)
		}
		out[n] = append(out[n], rest)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestParityPostgres checks Search against the top 10 that PostgreSQL 15's
// pg_trgm returned for every query of testdata/queries.tsv (ids are row
// numbers, scores are float4 printed as float8): the lists must be equal,
// ids, order and scores.
func TestParityPostgres(t *testing.T) {
	ix := loadIndex(t)
	queries := readQueries(t)
	if len(queries) < 400 {
		t.Fatalf("only %d queries", len(queries))
	}
	s := AcquireScratch()
	defer ReleaseScratch(s)
	for _, thr := range []string{"0.5", "0.3"} {
		want := readExpected(t, "expected_word_"+thr+".tsv")
		th, _ := strconv.ParseFloat(thr, 32)
		exact, nonEmpty := 0, 0
		var got []Match
		for _, q := range queries {
			got = ix.Search(got[:0], Query{Text: q.text, Threshold: float32(th), Limit: 10}, s)
			if len(got) > 10 {
				got = got[:10]
			}
			lines := make([]string, len(got))
			for i, m := range got {
				lines[i] = fmt.Sprintf("%d\t%s", m.Row, fmtScore(m.Score))
			}
			if len(lines) > 0 {
				nonEmpty++
			}
			if slices.Equal(lines, want[q.id]) {
				exact++
				continue
			}
			t.Errorf("threshold %s, query %d %q:\n got  %q\n want %q", thr, q.id, q.text, lines, want[q.id])
		}
		t.Logf("threshold %s: %d/%d queries exactly equal to PostgreSQL (%d non-empty)", thr, exact, len(queries), nonEmpty)
	}
}
