package httpd_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/httpdtest"
)

func TestSearch(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	e.problem(e.get("/v1/search", e.free), 400, `"q" is required`)
	e.problem(e.get("/v1/search?q=", e.free), 400, `"q" is required`)
	e.problem(e.get("/v1/search?q=%20%20", e.free), 400, `"q" is required`)
	e.problem(e.get("/v1/search?q="+strings.Repeat("a", 201), e.free), 400, "at most 200")
	e.problem(e.get("/v1/search?q=golf&q=polo", e.free), 400, "more than once")
	for _, q := range []string{"!!!", "-", "%E2%80%94"} {
		if m := e.ok("/v1/search?q="+q, e.free); len(m["data"].([]any)) != 0 {
			t.Errorf("q=%s matched %d rows; a query without letters or digits matches nothing", q, len(m["data"].([]any)))
		}
	}
	// Every page together equals the engine's full result, best first.
	all := e.walk("/v1/search?q=kuga&limit=7", e.free)
	want := engineWalk(c, engine.Fold("kuga"), 7)
	if len(all) == 0 || len(all) != len(want) {
		t.Fatalf("%d results over all pages, the engine has %d", len(all), len(want))
	}
	for i, r := range all {
		if str(r, "display_name") != c.VarName.String(want[i].Row) || r["score"].(float64) != float64(want[i].Score) {
			t.Fatalf("result %d: %v, want row %d score %v", i, r, want[i].Row, want[i].Score)
		}
		for _, f := range []string{"variant_id", "generation_id", "brand_slug", "model_slug", "year_from", "year_to"} {
			if _, ok := r[f]; !ok {
				t.Fatalf("SearchResult lacks %s", f)
			}
		}
	}
	// Case and diacritics fold on both sides (index/trigram's fixture covers
	// skoda -> Škoda on the full catalogue).
	plain := e.ok("/v1/search?q=renault&limit=3", e.free)["data"].([]any)
	accented := e.ok("/v1/search?q=R%C3%89NAULT&limit=3", e.free)["data"].([]any) // RÉNAULT
	if len(plain) == 0 || len(plain) != len(accented) || str(accented[0].(map[string]any), "brand_slug") != "renault" {
		t.Errorf("renault %d results, RÉNAULT %d", len(plain), len(accented))
	}
	// A brand written as the locale writes it.
	latin := e.ok("/v1/search?q=skoda%20kodiaq&limit=5", e.free)["data"].([]any)
	bg := e.ok("/v1/search?q=%D1%88%D0%BA%D0%BE%D0%B4%D0%B0%20kodiaq&locale=bg&limit=5", e.free)["data"].([]any) // шкода kodiaq
	if len(bg) == 0 || len(bg) != len(latin) || str(bg[0].(map[string]any), "variant_id") != str(latin[0].(map[string]any), "variant_id") {
		t.Errorf("the Bulgarian brand name does not find what the Latin one does: %d vs %d", len(bg), len(latin))
	}
	// Local spellings are aliases in every locale (issue 17).
	if en := e.ok("/v1/search?q=%D1%88%D0%BA%D0%BE%D0%B4%D0%B0", e.free)["data"].([]any); len(en) == 0 || str(en[0].(map[string]any), "brand_slug") != "skoda" { // шкода
		t.Errorf("the Bulgarian name in English: %d results, want Škoda first", len(en))
	}
	// A cursor belongs to its query.
	next := str(e.ok("/v1/search?q=kuga&limit=2", e.free)["links"].(map[string]any), "next")
	first := e.ok("/v1/search?q=octavia&limit=2", e.free)["data"].([]any)
	if got := e.ok("/v1/search?q=octavia&limit=2&cursor="+next, e.free)["data"].([]any); len(first) > 0 && str(got[0].(map[string]any), "variant_id") != str(first[0].(map[string]any), "variant_id") {
		t.Error("a cursor of another query did not restart the list")
	}
}

func TestDemoSearch(t *testing.T) {
	e := newEnv(t)
	demo := map[string]bool{}
	for _, v := range e.ok("/v1/demo", e.demo)["data"].(map[string]any)["variants"].([]any) {
		demo[str(v.(map[string]any), "variant_id")] = true
	}
	got := e.walk("/v1/search?q=kuga&limit=3", e.demo)
	if len(got) != 4 {
		t.Errorf("kuga in the demo set: %d cars, want 4", len(got))
	}
	for _, r := range got {
		if !demo[str(r, "variant_id")] || r["score"] != nil {
			t.Errorf("demo search result %v", r)
		}
	}
	if bg := e.ok("/v1/search?q=%D1%88%D0%BA%D0%BE%D0%B4&locale=bg", e.demo)["data"].([]any); len(bg) != 8 { // шкод
		t.Errorf("the Bulgarian brand prefix finds %d demo cars, want the 8 Škodas", len(bg))
	}
	if r := e.ok("/v1/search?q=!!!", e.demo)["data"].([]any); len(r) != 0 {
		t.Errorf("punctuation matched %d demo cars", len(r))
	}
	e.problem(e.get("/v1/search", e.demo), 400, `"q" is required`)
}

// TestSearchCache checks the first-page search cache: a repeated query is
// answered with the same bytes, every limit and locale gets its own page,
// and after a reload the page comes from the new catalogue, never the old.
func TestSearchCache(t *testing.T) {
	e := newEnv(t)
	first := e.get("/v1/search?q=kuga&limit=5", e.free)
	e.svc.WaitCaches()
	again := e.get("/v1/search?q=kuga&limit=5", e.free)
	if first.status != 200 || !bytes.Equal(first.body, again.body) {
		t.Fatalf("a repeated search changed: %d %s\n%s", first.status, first.body, again.body)
	}
	if n := len(e.ok("/v1/search?q=kuga&limit=3", e.free)["data"].([]any)); n != 3 {
		t.Errorf("limit=3 after a cached limit=5 page gave %d rows", n)
	}
	de := e.ok("/v1/search?q=kuga&limit=5&locale=de", e.free)
	if de["meta"].(map[string]any)["locale"] != "de" {
		t.Error("a cached page answered another locale")
	}

	// Another catalogue, three times larger: a search for a car only it holds
	// must answer from it, not from the page cached for the old one.
	c2 := httpdtest.CatalogueOf(t, gen.Options{Scale: 0.03, Seed: 2})
	oldNames := map[string]bool{}
	for r := range e.cat.VarID {
		oldNames[e.cat.VarName.String(uint32(r))] = true
	}
	q := ""
	for r := range c2.VarID {
		if name := c2.VarName.String(uint32(r)); !oldNames[name] {
			q = engine.Fold(name)
			break
		}
	}
	path := "/v1/search?limit=50&q=" + url.QueryEscape(q)
	old := e.get(path, e.free)
	e.svc.WaitCaches()
	e.svc.Install(c2)
	after := e.get(path, e.free)
	if bytes.Equal(after.body, old.body) {
		t.Fatal("the reloaded catalogue answered with the old catalogue's page")
	}
	got := after.json(t)["data"].([]any)
	want, _ := c2.Search(nil, q, 0.5, nil, 50)
	want = want[:min(50, len(want))]
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("after a reload %d results, the new catalogue has %d", len(got), len(want))
	}
	for i, r := range got {
		m := r.(map[string]any)
		if str(m, "display_name") != c2.VarName.String(want[i].Row) || float32(m["score"].(float64)) != want[i].Score {
			t.Fatalf("q=%q: after a reload result %d is %v, want row %d of the new catalogue (%s %v)", q, i, m, want[i].Row, c2.VarName.String(want[i].Row), want[i].Score)
		}
	}
}
