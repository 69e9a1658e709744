package httpd_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/query"
	"github.com/vspec/catalogue/httpd/publicid"
)

func TestFilterRoute(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	// The route returns exactly the engine's rows, over all pages.
	check := func(params string, q query.Q) {
		t.Helper()
		got := e.walk("/v1/variants?limit=17&"+params, e.free)
		s := engine.GetFilterScratch()
		defer engine.PutFilterScratch(s)
		want, err := c.Filter(nil, query.Simplify(q), 0, 1<<30, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d variants, want %d", params, len(got), len(want))
		}
		for i, r := range want {
			if str(got[i], "variant_id") != e.codec.Token(publicid.Variant, c.VarID[r]) {
				t.Fatalf("%s: row %d differs", params, i)
			}
		}
	}
	check("fuel=diesel&power_min=150", query.And{Children: []query.Q{query.Term{Field: query.Fuel, Value: "diesel"}, query.AtLeast(query.Power, 150)}})
	check("body=hatchback&drive=front&price_max=30000", query.And{Children: []query.Q{query.Term{Field: query.Body, Value: "Hatchback"}, query.Term{Field: query.Drive, Value: "front"}, query.AtMost(query.Price, 30000)}})
	check("year=2015&power_max=120", query.And{Children: []query.Q{query.Range{Field: query.Year, Lo: 2015, Hi: 2015}, query.AtMost(query.Power, 120)}})
	check("ev=true", query.Term{Field: query.Fuel, Value: "electric"})
	check("ev=yes&fuel=", query.Const{Value: true}) // any other ev value, and empty values, are ignored
	for _, v := range e.walk("/v1/variants?ev=true", e.free) {
		if str(v, "fuel_slug") != "electric" {
			t.Fatalf("ev=true returned a %s", str(v, "fuel_slug"))
		}
	}
	// Values of the vocabularies are taken in any case, body also as its
	// English label; any other is refused, naming the ones it takes.
	e.ok("/v1/variants?fuel=DIESEL&body=Hatchback&drive=Front", e.free)
	for _, p := range []string{"fuel=kerosene", "body=tank", "drive=sideways"} {
		name, _, _ := strings.Cut(p, "=")
		e.problem(e.get("/v1/variants?"+p, e.free), 400, `"`+name+`" is "`)
	}
	e.problem(e.get("/v1/variants?fuel=kerosene", e.free), 400, "diesel, ")
	// Numbers outside the catalogue, and contradictions, match nothing.
	for _, p := range []string{"power_min=5000", "year=1850", "ev=true&fuel=diesel"} {
		m := e.ok("/v1/variants?"+p, e.free)
		if len(m["data"].([]any)) != 0 || m["links"].(map[string]any)["next"] != nil {
			t.Errorf("%s: %v", p, m["data"])
		}
	}
	// Unparseable values are 400s naming the parameter.
	e.problem(e.get("/v1/variants?power_min=abc", e.free), 400, `"power_min" must be an integer`)
	e.problem(e.get("/v1/variants?year=20x5", e.free), 400, `"year" must be an integer`)
	e.problem(e.get("/v1/variants?price_max=1.5", e.free), 400, `"price_max"`)
	e.problem(e.get("/v1/variants?fuel=diesel&fuel=petrol", e.free), 400, `"fuel" is given more than once`)
	e.problem(e.get("/v1/variants?fule=diesel", e.free), 400, `"fule" is not a parameter`)
	e.problem(e.get("/v1/variants?limit=0", e.free), 400, `"limit"`)
	// A cursor belongs to its filters.
	next := str(e.ok("/v1/variants?limit=2&fuel=diesel", e.free)["links"].(map[string]any), "next")
	first := e.ok("/v1/variants?limit=2&fuel=petrol", e.free)["data"].([]any)[0]
	if e.ok("/v1/variants?limit=2&fuel=petrol&cursor="+next, e.free)["data"].([]any)[0].(map[string]any)["variant_id"] != first.(map[string]any)["variant_id"] {
		t.Error("a cursor of other filters did not restart the list")
	}
}

func TestCompare(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	tok := func(row uint32) string { return e.codec.Token(publicid.Variant, c.VarID[row]) }
	a, b, d := c.Demo[0], c.Demo[5], c.Demo[9]
	m := e.ok("/v1/compare?ids="+tok(b)+","+tok(a)+",%20"+tok(d)+"&locale=de&units=imperial", e.free)
	data := m["data"].([]any)
	if len(data) != 3 || str(data[0].(map[string]any), "variant_id") != tok(b) || str(data[2].(map[string]any), "variant_id") != tok(d) {
		t.Fatalf("compare order: %v", data)
	}
	if str(data[1].(map[string]any), "locale") != "de" || m["meta"].(map[string]any)["units"] != "imperial" {
		t.Errorf("locale or units not applied: %v", m["meta"])
	}
	latest := max(c.VarSyncedAt[a], c.VarSyncedAt[b], c.VarSyncedAt[d])
	if got := str(m["meta"].(map[string]any), "last_synced_at"); got != time.Unix(latest, 0).UTC().Format(time.RFC3339) {
		t.Errorf("last_synced_at %s, want the latest of the three", got)
	}
	if r := e.get("/v1/compare?ids="+tok(a)+","+tok(a), e.free); r.status != 200 {
		t.Errorf("the same car twice: %d", r.status)
	}
	e.problem(e.get("/v1/compare", e.free), 400, `"ids" is required`)
	e.problem(e.get("/v1/compare?ids=", e.free), 400, `"ids" is required`)
	e.problem(e.get("/v1/compare?ids="+tok(a), e.free), 400, "2 to 4 variant ids")
	five := strings.Repeat(tok(a)+",", 4) + tok(b)
	e.problem(e.get("/v1/compare?ids="+five, e.free), 400, "it holds more than 4")
	e.problem(e.get("/v1/compare?ids="+tok(a)+",v_zz", e.free), 400, `"v_zz", which is not a variant id`)
	gen := e.codec.Token(publicid.Generation, c.GenID[0])
	e.problem(e.get("/v1/compare?ids="+tok(a)+","+gen, e.free), 400, gen+`", which is not a variant id`)
	missing := e.codec.Token(publicid.Variant, 0xfffffe)
	e.problem(e.get("/v1/compare?ids="+tok(a)+","+missing, e.free), 404, `No variant with id "`+missing+`"`)
	e.problem(e.get("/v1/compare?ids="+tok(a)+","+tok(b)+"&ids="+tok(d), e.free), 400, "more than once")
	e.problem(e.get("/v1/compare?ids="+tok(a)+","+tok(b)+"&units=si", e.free), 400, `"units"`)
	// The apify plan compares raw ids.
	raw := e.ok("/v1/compare?ids="+itoa(c.VarID[a])+","+itoa(c.VarID[b]), e.apify)["data"].([]any)
	if raw[0].(map[string]any)["variant_id"] != float64(c.VarID[a]) {
		t.Errorf("apify compare: %v", raw[0].(map[string]any)["variant_id"])
	}
	e.problem(e.get("/v1/compare?ids="+tok(a)+","+tok(b), e.apify), 400, "not a variant id")
}

func itoa(v uint32) string { return strings.TrimSpace(strings.Repeat(" ", 0) + uitoa(v)) }

func uitoa(v uint32) string {
	if v == 0 {
		return "0"
	}
	var b [10]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

// TestCompareETag: compare's ETag, taken from its objects' hashes and its
// tail rather than from the whole body, is still a strong validator: the
// same answer has the same tag, another order, locale or units another,
// and the tag revalidates to a 304.
func TestCompareETag(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	tok := func(row uint32) string { return e.codec.Token(publicid.Variant, c.VarID[row]) }
	a, b := tok(c.Demo[0]), tok(c.Demo[5])
	distinctETags(t, e, e.free, "/v1/compare?ids="+a+","+b, "/v1/compare?ids="+b+","+a, "/v1/compare?ids="+a+","+b+"&locale=de",
		"/v1/compare?ids="+a+","+b+"&units=imperial", "/v1/compare?ids="+a+","+a)
}

// TestVariantPageETag: a page of variant summaries, whose content hash is
// taken over the summaries' hashes and its other bytes, has one ETag per
// representation (other rows, order, page, size, locale, list), the same
// one each time it is asked for, and answers If-None-Match with 304.
func TestVariantPageETag(t *testing.T) {
	e := newEnv(t)
	first := e.ok("/v1/variants?fuel=diesel&limit=3", e.free)
	next := str(first["links"].(map[string]any), "next")
	gen := "/v1/generations/" + e.codec.Token(publicid.Generation, e.cat.GenID[e.cat.VarGen[e.cat.Demo[0]]]) + "/variants"
	distinctETags(t, e, e.free, "/v1/variants?fuel=diesel&limit=3", "/v1/variants?fuel=diesel&limit=3&cursor="+next,
		"/v1/variants?fuel=diesel&limit=4", "/v1/variants?fuel=diesel&limit=3&locale=de", "/v1/variants?fuel=petrol&limit=3",
		"/v1/variants?fuel=diesel&power_min=120&limit=3", "/v1/variants?fuel=diesel&power_min=100000", gen, gen+"?locale=de", gen+"?limit=1")
	// Raw ids (the apify plan) render their summaries per request and
	// hash the whole body: still one ETag per representation.
	rawGen := "/v1/generations/" + strconv.FormatUint(uint64(e.cat.GenID[e.cat.VarGen[e.cat.Demo[0]]]), 10) + "/variants"
	distinctETags(t, e, e.apify, "/v1/variants?fuel=diesel&limit=3", "/v1/variants?fuel=diesel&limit=3&locale=de", rawGen)
}

// distinctETags asks for each path with key: a 200 with an ETag, the same
// body and ETag when asked again, 304 for If-None-Match with it, and no
// two paths (distinct bodies) sharing one.
func distinctETags(t *testing.T, e *env, key string, paths ...string) {
	t.Helper()
	seen := map[string]string{}
	bodies := map[string]string{}
	for _, p := range paths {
		r := e.get(p, key)
		tag := r.header["Etag"]
		if r.status != 200 || tag == "" {
			t.Fatalf("%s: %d, ETag %q", p, r.status, tag)
		}
		if again := e.get(p, key); again.header["Etag"] != tag || string(again.body) != string(r.body) {
			t.Errorf("%s: asked twice, ETag %s then %s", p, tag, again.header["Etag"])
		}
		if other, ok := bodies[string(r.body)]; ok {
			t.Fatalf("%s and %s have the same body: the test needs distinct representations", p, other)
		}
		bodies[string(r.body)] = p
		if other, ok := seen[tag]; ok {
			t.Errorf("%s and %s share the ETag %s", p, other, tag)
		}
		seen[tag] = p
		if nm := e.get(p, key, "If-None-Match", tag); nm.status != 304 || len(nm.body) != 0 {
			t.Errorf("%s with If-None-Match: %d, %d bytes", p, nm.status, len(nm.body))
		}
	}
}
