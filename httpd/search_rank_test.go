package httpd_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/loader/loadertest"
)

// newFullEnv is newEnv over the full generated catalogue.
func newFullEnv(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("the full catalogue takes seconds to generate")
	}
	e := newEnv(t)
	e.cat = loadertest.Full(t)
	return newEnvWith(t, e)
}

// words are the folded words of a display name.
func words(s string) []string {
	return strings.FieldsFunc(engine.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// TestSearchFamilies asks GET /v1/search, on a real listener over the full
// catalogue, the five query families of issue 17 and checks the rows at the
// top of the first page by brand, model and name words (not ids or full
// names, which the generator may change).
func TestSearchFamilies(t *testing.T) {
	e := newFullEnv(t)
	c := e.cat
	model := map[string]string{} // model slug -> folded model name
	for m := range c.ModelID {
		model[c.ModelSlug.String(uint32(m))] = engine.Fold(c.ModelName.String(uint32(m)))
	}
	// top checks that the first n results are of brand and model ("": any) and hold
	// every word of name in their display name.
	top := func(q, locale string, n int, brand, modelName string, name ...string) {
		t.Helper()
		path := "/v1/search?limit=10&q=" + url.QueryEscape(q)
		if locale != "" {
			path += "&locale=" + locale
		}
		data := e.ok(path, e.free)["data"].([]any)
		if len(data) < n {
			t.Errorf("%q: %d results, want at least %d", q, len(data), n)
			return
		}
		for i, d := range data[:n] {
			r := d.(map[string]any)
			dn := str(r, "display_name")
			if str(r, "brand_slug") != brand || modelName != "" && model[str(r, "model_slug")] != modelName {
				t.Errorf("%q: result %d is %s %s (%s), want %s %s", q, i+1, str(r, "brand_slug"), str(r, "model_slug"), dn, brand, modelName)
				continue
			}
			have := words(dn)
			for _, w := range name {
				if !slices.Contains(have, w) {
					t.Errorf("%q: result %d %q lacks the word %q", q, i+1, dn, w)
				}
			}
		}
	}
	top("bmw 320d", "", 3, "bmw", "3 series", "320d")
	top("bmw 520d", "", 3, "bmw", "5 series", "520d")
	top("mercedes c 200", "", 3, "mercedes-benz", "c-class", "c", "200")
	top("merc c200", "", 3, "mercedes-benz", "c-class", "c", "200")
	top("vw golf", "", 5, "volkswagen", "golf")
	top("vw passat", "", 5, "volkswagen", "passat")
	top("golf", "", 10, "volkswagen", "golf")
	top("mini cooper", "", 3, "mini", "hatch", "cooper")
	top("pe", "", 5, "peugeot", "")
	top("Фолксваген голф", "bg", 5, "volkswagen", "golf")
	top("Тойота Королла", "bg", 5, "toyota", "corolla")
	top("Тойота Королла", "en", 5, "toyota", "corolla")
	top("BMW Х3", "bg", 3, "bmw", "x3") // a Cyrillic Х
}

// TestSearchRankCursors walks every page of ranked searches through
// GET /v1/search and sends a cursor of the order before ranking.
func TestSearchRankCursors(t *testing.T) {
	e := newFullEnv(t)
	c := e.cat
	// Every page together equals the engine's ranked result, and a page
	// boundary loses and repeats nothing.
	for _, q := range []string{"vw golf", "bmw 3", "toyta corola", "bmw x9"} {
		all := e.walk("/v1/search?limit=50&q="+url.QueryEscape(q), e.free)
		want := engineWalk(c, c.SearchQuery(q, 0), 50)
		if len(all) == 0 || len(all) != len(want) {
			t.Fatalf("%q: %d results over all pages, the engine has %d", q, len(all), len(want))
		}
		seen := map[string]bool{}
		for i, r := range all {
			id := str(r, "variant_id")
			if seen[id] {
				t.Fatalf("%q: %s twice", q, id)
			}
			seen[id] = true
			if str(r, "display_name") != c.VarName.String(want[i].Row) {
				t.Fatalf("%q: result %d is %s, want %s", q, i, str(r, "display_name"), c.VarName.String(want[i].Row))
			}
		}
	}
	// A cursor of the order before ranking (score, id, text) is a 400
	// naming the cursor, not a page read from the wrong place.
	old := append([]byte{0, 0, 0x20, 0x3F, 9, 0, 0, 0}, "volkswagen golf"...)
	cur := httpd.SearchCursor(e.codec, "golf", "en", old)
	e.problem(e.get("/v1/search?q=golf&cursor="+cur, e.free), 400, "cursor")
}

// engineWalk returns every page of the engine's ranked search for folded,
// limit rows at a time, as the REST pages should hold them.
func engineWalk(c *engine.Catalogue, folded string, limit int) []engine.SearchMatch {
	var all []engine.SearchMatch
	var after *engine.SearchPosition
	for page := 0; page < 100000; page++ {
		got, more := c.Search(nil, folded, 0.5, after, limit)
		got = got[:min(len(got), limit)]
		all = append(all, got...)
		if !more || len(got) == 0 {
			break
		}
		last := got[len(got)-1]
		after = &engine.SearchPosition{Key: last.Key, Row: last.Row}
	}
	return all
}
