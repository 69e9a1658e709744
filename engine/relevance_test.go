package engine_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/index/trigram"
	"github.com/vspec/catalogue/loader/loadertest"
)

// judged is one query of testdata/relevance.tsv.
type judged struct {
	query, locale, brand, model string
	words                       []string // required words of the name; none for *
}

// readLines returns the lines of the text file at path.
func readLines(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

func readJudged(t testing.TB) []judged {
	t.Helper()
	var js []judged
	for i, line := range readLines(t, "testdata/relevance.tsv") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 5 {
			t.Fatalf("relevance.tsv:%d: %d fields, want 5", i+1, len(p))
		}
		j := judged{query: p[0], locale: p[1], brand: p[2], model: p[3]}
		if p[4] != "*" {
			j.words = strings.Fields(engine.Fold(p[4]))
		}
		js = append(js, j)
	}
	return js
}

func nameWords(s string) []string {
	return strings.FieldsFunc(engine.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// relevant tells whether row satisfies j's predicate.
func (j judged) relevant(c *engine.Catalogue, row uint32) bool {
	g := c.VarGen[row]
	m := c.GenModel[g]
	if c.BrandSlug.String(c.ModelBrand[m]) != j.brand {
		return false
	}
	if j.model != "*" && engine.Fold(c.ModelName.String(m)) != engine.Fold(j.model) {
		return false
	}
	if len(j.words) > 0 {
		have := nameWords(c.VarName.String(row))
		for _, w := range j.words {
			if !slices.Contains(have, w) {
				return false
			}
		}
	}
	return true
}

// TestRelevance runs the judged set on the full catalogue and prints
// success@3 (a relevant row at rank 3 or better), success@10 and the mean
// reciprocal rank (over the top 10). It fails below success@3 0.95, or when
// a query that has relevant rows in the catalogue has none in its top 10.
func TestRelevance(t *testing.T) {
	if testing.Short() {
		t.Skip("the full catalogue takes seconds to generate")
	}
	c := loadertest.Full(t)
	js := readJudged(t)
	if len(js) < 200 {
		t.Fatalf("the judged set has %d queries, want at least 200", len(js))
	}
	var judgedN, at3, at10 int
	var mrr float64
	for _, j := range js {
		li, ok := c.Locale(j.locale)
		if !ok {
			t.Fatalf("%q: unknown locale %q", j.query, j.locale)
		}
		any := false
		for r := range c.VarID {
			if j.relevant(c, uint32(r)) {
				any = true
				break
			}
		}
		if !any {
			t.Logf("%q: no relevant row in this catalogue (brand %s, model %s, words %v); not judged", j.query, j.brand, j.model, j.words)
			continue
		}
		judgedN++
		top, _ := c.Search(nil, c.SearchQuery(j.query, li), 0.5, nil, 10)
		rank := 0
		for i, m := range top[:min(10, len(top))] {
			if j.relevant(c, m.Row) {
				rank = i + 1
				break
			}
		}
		switch {
		case rank == 0:
			var got []string
			for _, m := range top[:min(3, len(top))] {
				got = append(got, c.SearchText(m.Row))
			}
			t.Errorf("%q (%s): no relevant row in the top 10; top 3: %q", j.query, j.locale, got)
		case rank > 3:
			t.Logf("%q (%s): first relevant row at rank %d", j.query, j.locale, rank)
		}
		if rank > 0 {
			at10++
			mrr += 1 / float64(rank)
			if rank <= 3 {
				at3++
			}
		}
	}
	s3, s10 := float64(at3)/float64(judgedN), float64(at10)/float64(judgedN)
	fmt.Printf("relevance: %d queries judged of %d: success@3 %.3f, success@10 %.3f, MRR %.3f\n", judgedN, len(js), s3, s10, mrr/float64(judgedN))
	if s3 < 0.95 {
		t.Errorf("success@3 %.3f, want at least 0.95", s3)
	}
}

// TestSearchScores checks on the full catalogue that the score of every row
// of the first pages (50 rows) of the benchmark queries is word_similarity
// itself: the page computes it once per distinct extent, and not at all
// for an extent that starts with one scoring 1.
func TestSearchScores(t *testing.T) {
	c := loadertest.Full(t)
	n := 0
	for _, q := range searchQueries(t, c) {
		page, _ := c.Search(nil, q, 0.5, nil, 50)
		for _, m := range page {
			n++
			if w := trigram.WordSimilarity(q, c.SearchText(m.Row)); m.Score != w {
				t.Errorf("%q: row %d scored %v, word_similarity is %v", q, m.Row, m.Score, w)
			}
		}
	}
	if n < 10000 {
		t.Errorf("only %d rows checked", n)
	}
}
