package httpd_test

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/loader"
)

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	r := e.get("/v1/brands", "")
	e.problem(r, 401, "An API key is required")
	if r.header["Www-Authenticate"] == "" {
		t.Error("401 without WWW-Authenticate")
	}
	e.problem(e.get("/v1/brands", "vsc_free_0000"), 401, "not known")
	e.problem(e.get("/v1/brands", e.pending), 403, "not yet active")
	e.problem(e.get("/v1/brands", e.revoked), 403, "revoked")
	if r := e.get("/v1/brands", "", "Authorization", "Bearer "+e.free); r.status != 200 {
		t.Errorf("Bearer key: %d", r.status)
	}
	if r := e.get("/v1/brands", "", "Authorization", "bearer "+e.free); r.status != 200 {
		t.Errorf("lower-case bearer scheme: %d", r.status)
	}
	if r := e.get("/v1/health", ""); r.status != 200 {
		t.Errorf("health needs no key: %d", r.status)
	}
}

// TestChain walks brand > model > generation > variant handing each id back
// verbatim, as tokens for a free key and as raw integers for an apify key.
func TestChain(t *testing.T) {
	e := newEnv(t)
	for _, key := range []string{e.free, e.apify} {
		raw := key == e.apify
		brands := e.ok("/v1/brands?limit=3", key)["data"].([]any)
		slug := str(brands[0].(map[string]any), "slug")
		if slug != "volkswagen" {
			t.Fatalf("the most popular brand is %q", slug)
		}
		brand := e.ok("/v1/brands/"+slug, key)["data"].(map[string]any)
		if brand["id"] != float64(1) || str(brand, "name") != "Volkswagen" {
			t.Errorf("brand %v", brand)
		}
		model := e.ok("/v1/brands/"+slug+"/models", key)["data"].([]any)[0].(map[string]any)
		id := func(m map[string]any, k, prefix string) string {
			t.Helper()
			switch v := m[k].(type) {
			case string:
				if raw || !strings.HasPrefix(v, prefix) || len(v) != 10 {
					t.Fatalf("%s = %q for %s", k, v, map[bool]string{true: "apify", false: "free"}[raw])
				}
				return v
			case float64:
				if !raw {
					t.Fatalf("%s is a raw id for a free key", k)
				}
				return strconv.Itoa(int(v))
			}
			t.Fatalf("%s missing in %v", k, m)
			return ""
		}
		mid := id(model, "model_id", "m_")
		if model["brand_id"] != float64(1) {
			t.Errorf("brand_id %v", model["brand_id"])
		}
		if _, has := model["id"]; has {
			t.Error("the retired Model.id field is present")
		}
		gens := e.ok("/v1/models/"+mid+"/generations", key)["data"].([]any)
		g := gens[len(gens)-1].(map[string]any)
		gid := id(g, "generation_id", "g_")
		if id(g, "model_id", "m_") != mid {
			t.Error("generation.model_id differs from the model's id")
		}
		variants := e.ok("/v1/generations/"+gid+"/variants", key)["data"].([]any)
		v := variants[0].(map[string]any)
		vid := id(v, "variant_id", "v_")
		for _, f := range []string{"display_name", "fuel_slug", "body_type_en", "power_hp", "torque_nm", "top_speed_kmh", "accel_0_100_s", "battery_kwh", "price_new_eur"} {
			if _, ok := v[f]; !ok {
				t.Errorf("variant summary lacks %s", f)
			}
		}
		detail := e.ok("/v1/variants/"+vid, key)["data"].(map[string]any)
		if id(detail, "variant_id", "v_") != vid || detail["spec_count"] == nil || detail["specs"] == nil {
			t.Errorf("variant detail %v", detail)
		}
		specs := e.ok("/v1/variants/"+vid+"/specs", key)["data"].(map[string]any)
		if str(specs, "brand_slug") != slug || str(specs, "locale") != "en" || specs["specs"] == nil {
			t.Errorf("variant specs %v", specs)
		}
		images := e.ok("/v1/variants/"+vid+"/images", key)["data"].([]any)
		if len(images) == 0 {
			t.Error("no images")
		}
		for _, im := range images {
			m := im.(map[string]any)
			if !strings.HasPrefix(str(m, "url"), "https://") || (str(m, "variant") != "card" && str(m, "variant") != "hero") {
				t.Errorf("image %v", m)
			}
		}
	}
}

func TestContractShapes(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	tok := func(kind publicid.Kind, id uint32) string { return e.codec.Token(kind, id) }
	// An ongoing generation has year_end null.
	for g := range c.GenID {
		if c.GenYearEnd[g] != 0 {
			continue
		}
		model := c.GenModel[g]
		gens := e.ok("/v1/models/"+tok(publicid.Model, c.ModelID[model])+"/generations", e.free)["data"].([]any)
		found := false
		for _, x := range gens {
			m := x.(map[string]any)
			if str(m, "generation_id") == tok(publicid.Generation, c.GenID[g]) {
				found = true
				if m["year_end"] != nil {
					t.Errorf("ongoing generation has year_end %v", m["year_end"])
				}
			}
		}
		if !found {
			t.Error("generation not listed under its model")
		}
		break
	}
	// A variant without specs has spec_count 0 and specs {}.
	for v := range c.VarID {
		if f, e2 := c.VariantSpecs(uint32(v)); f != e2 {
			continue
		}
		d := e.ok("/v1/variants/"+tok(publicid.Variant, c.VarID[v]), e.free)["data"].(map[string]any)
		if d["spec_count"] != float64(0) || len(d["specs"].(map[string]any)) != 0 || d["power_hp"] != nil {
			t.Errorf("variant without specs: %v", d)
		}
		break
	}
	// A source price of 0 is null in summaries and prices; no snapshot is a 404.
	zero, none := -1, -1
	for v := range c.VarID {
		if c.VarHasPrice[v] && c.VarPriceEUR[v] == 0 && zero < 0 {
			zero = v
		}
		if !c.VarHasPrice[v] && none < 0 {
			none = v
		}
	}
	if zero >= 0 {
		vt := tok(publicid.Variant, c.VarID[zero])
		p := e.ok("/v1/variants/"+vt+"/prices", e.free)["data"].(map[string]any)
		if p["price_eur"] != nil || len(str(p, "as_of")) != 10 {
			t.Errorf("price snapshot of 0: %v", p)
		}
		if d := e.ok("/v1/variants/"+vt, e.free)["data"].(map[string]any); d["price_new_eur"] != nil {
			t.Errorf("price_new_eur %v for a source price of 0", d["price_new_eur"])
		}
	}
	if none >= 0 {
		vt := tok(publicid.Variant, c.VarID[none])
		e.problem(e.get("/v1/variants/"+vt+"/prices", e.free), 404, "No price snapshot is recorded for variant \""+vt+"\"")
	}
	// Raw spec documents are language-neutral: enum values are slugs.
	d := e.ok("/v1/variants/"+tok(publicid.Variant, c.VarID[c.Demo[0]])+"?locale=de", e.free)["data"].(map[string]any)
	ft := d["specs"].(map[string]any)["fuel_type"].(map[string]any)
	if ft["v"] != d["fuel_slug"] {
		t.Errorf("raw fuel_type %v, want the slug %v", ft["v"], d["fuel_slug"])
	}
}

// TestPaging walks every list of the catalogue page by page and checks the
// rows against the documented order: no row skipped, none repeated, and
// links.next only when more rows follow.
func TestPaging(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	// Brands: popularity, then name, then id.
	brands := e.walk("/v1/brands?limit=7", e.free)
	if len(brands) != len(c.BrandID) {
		t.Fatalf("%d brands over all pages, want %d", len(brands), len(c.BrandID))
	}
	type bk struct {
		pop  uint16
		name string
		id   uint32
	}
	var want []bk
	for i := range c.BrandID {
		want = append(want, bk{c.BrandPopularity[i], c.BrandName.String(uint32(i)), c.BrandID[i]})
	}
	sort.Slice(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if a.pop != b.pop {
			return a.pop < b.pop
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.id < b.id
	})
	for i, b := range brands {
		if b["id"] != float64(want[i].id) {
			t.Fatalf("brand %d is %v, want id %d", i, b["id"], want[i].id)
		}
	}
	// Every brand's models (name, id), every model's generations (year, id),
	// every generation's variants (id).
	totalVariants := 0
	for _, b := range brands {
		models := e.walk("/v1/brands/"+str(b, "slug")+"/models?limit=3", e.free)
		for i := 1; i < len(models); i++ {
			if str(models[i-1], "name") > str(models[i], "name") {
				t.Fatalf("models of %s out of order: %s before %s", str(b, "slug"), str(models[i-1], "name"), str(models[i], "name"))
			}
		}
		row, _ := c.BrandBySlug(str(b, "slug"))
		first, end := c.BrandModels(row)
		if len(models) != int(end-first) {
			t.Fatalf("brand %s: %d models listed, %d exist", str(b, "slug"), len(models), end-first)
		}
		for _, m := range models {
			gens := e.walk("/v1/models/"+str(m, "model_id")+"/generations?limit=2", e.free)
			for i := 1; i < len(gens); i++ {
				if gens[i-1]["year_start"].(float64) > gens[i]["year_start"].(float64) {
					t.Fatal("generations out of order")
				}
			}
			for _, g := range gens {
				vs := e.walk("/v1/generations/"+str(g, "generation_id")+"/variants?limit=4", e.free)
				ids := map[string]bool{}
				for _, v := range vs {
					if ids[str(v, "variant_id")] {
						t.Fatal("a variant repeats")
					}
					ids[str(v, "variant_id")] = true
				}
				totalVariants += len(vs)
			}
		}
	}
	if totalVariants != len(c.VarID) {
		t.Errorf("%d variants reached over all lists, the catalogue has %d", totalVariants, len(c.VarID))
	}
	specs := e.walk("/v1/specs/catalog?limit=50", e.free)
	if len(specs) != len(c.Specs) {
		t.Errorf("%d spec definitions, want %d", len(specs), len(c.Specs))
	}
	for i, s := range specs {
		if str(s, "spec_key") != c.Specs[i].Key {
			t.Fatalf("spec %d is %s, want %s", i, str(s, "spec_key"), c.Specs[i].Key)
		}
	}
	// A page that holds exactly the last rows has no links.next.
	n := len(c.BrandID)
	m := e.ok("/v1/brands?limit="+strconv.Itoa(min(n, 50)), e.free)
	if _, has := m["links"].(map[string]any)["next"]; has == (n <= 50) {
		t.Errorf("links.next present=%v on a page of %d of %d brands", has, min(n, 50), n)
	}
}

func TestCursors(t *testing.T) {
	e := newEnv(t)
	page1 := e.ok("/v1/brands?limit=5", e.free)
	next := str(page1["links"].(map[string]any), "next")
	firstID := page1["data"].([]any)[0].(map[string]any)["id"]
	page2 := e.ok("/v1/brands?limit=5&cursor="+next, e.free)
	if page2["data"].([]any)[0].(map[string]any)["id"] == firstID {
		t.Fatal("the cursor did not advance")
	}
	restart := func(path string) {
		t.Helper()
		m := e.ok(path, e.free)
		if m["data"].([]any)[0].(map[string]any)["id"] != firstID && !strings.Contains(path, "specs/catalog") {
			t.Errorf("%s did not restart at the first page", path)
		}
	}
	restart("/v1/brands?limit=5&cursor=garbage")
	restart("/v1/brands?limit=5&cursor=c_AAAA")
	restart("/v1/brands?limit=5&locale=de&cursor=" + next) // other parameters
	// A cursor of another route restarts that route.
	spec := e.ok("/v1/specs/catalog?limit=5&cursor="+next, e.free)["data"].([]any)
	if str(spec[0].(map[string]any), "spec_key") != e.cat.Specs[0].Key {
		t.Error("a brands cursor moved the spec catalog")
	}
	// The page size may change between pages.
	if p := e.ok("/v1/brands?limit=2&cursor="+next, e.free)["data"].([]any); len(p) != 2 || p[0].(map[string]any)["id"] != page2["data"].([]any)[0].(map[string]any)["id"] {
		t.Error("a cursor with another limit does not continue the walk")
	}
	// A cursor survives a reload of the snapshot.
	c2, err := loader.FromBytes(e.snap)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.Install(c2)
	if p := e.ok("/v1/brands?limit=5&cursor="+next, e.free); p["data"].([]any)[0].(map[string]any)["id"] != page2["data"].([]any)[0].(map[string]any)["id"] {
		t.Error("the cursor did not survive a reload")
	}
}

func TestParameters(t *testing.T) {
	e := newEnv(t)
	for _, v := range []string{"0", "-3", "abc", "1.5", "", "9999999999999999999999"} {
		e.problem(e.get("/v1/brands?limit="+v, e.free), 400, `"limit"`)
	}
	if n := len(e.ok("/v1/specs/catalog?limit=500", e.free)["data"].([]any)); n != 50 {
		t.Errorf("limit=500 gave %d rows, want 50 (clamped)", n)
	}
	if n := len(e.ok("/v1/specs/catalog", e.free)["data"].([]any)); n != 50 {
		t.Errorf("the default page has %d rows, want 50", n)
	}
	e.problem(e.get("/v1/brands?limt=5", e.free), 400, `"limt" is not a parameter of this endpoint; it accepts locale, limit, cursor`)
	e.problem(e.get("/v1/brands?locale=de&locale=fr", e.free), 400, `"locale" is given more than once`)
	e.problem(e.get("/v1/variants/"+e.codec.Token(publicid.Variant, e.cat.VarID[0])+"/specs?units=furlongs", e.free), 400, `"units" must be metric or imperial`)
	e.problem(e.get("/v1/brands?units=imperial", e.free), 400, `"units" is not a parameter`)
}

func TestLocales(t *testing.T) {
	e := newEnv(t)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[e.cat.Demo[0]])
	r := e.get("/v1/variants/"+vt+"/specs?locale=de", e.free)
	m := r.json(t)
	if r.header["Content-Language"] != "de" || m["meta"].(map[string]any)["locale"] != "de" || str(m["data"].(map[string]any), "locale") != "de" {
		t.Errorf("locale de: Content-Language %q, meta %v", r.header["Content-Language"], m["meta"])
	}
	specs := m["data"].(map[string]any)["specs"].(map[string]any)
	if l := str(specs["length_mm"].(map[string]any), "label"); l != "Länge" {
		t.Errorf("German label of length_mm is %q", l)
	}
	// Units as the locale's press writes them: mm stays, hp is PS.
	if u := str(specs["length_mm"].(map[string]any), "u"); u != "mm" {
		t.Errorf("length_mm in de: unit %q", u)
	}
	if u := str(specs["power_hp"].(map[string]any), "u"); u != "PS" {
		t.Errorf("power_hp in de: unit %q", u)
	}
	for _, loc := range []string{"xx", "EN", "de-DE", "", "zh"} {
		r := e.get("/v1/brands?limit=1&locale="+loc, e.free)
		if r.status != 200 || r.json(t)["meta"].(map[string]any)["locale"] != "en" || r.header["Content-Language"] != "en" {
			t.Errorf("locale %q did not fall back to en: %d %s", loc, r.status, r.body)
		}
	}
	// The Bulgarian press writes brands in Latin, the Arabic in Arabic.
	bg := e.ok("/v1/brands?limit=1&locale=bg", e.free)["data"].([]any)[0].(map[string]any)
	ar := e.ok("/v1/brands?limit=1&locale=ar", e.free)["data"].([]any)[0].(map[string]any)
	if str(bg, "name") != "Volkswagen" || str(ar, "name") != "فولكس فاجن" {
		t.Errorf("Volkswagen in bg %q, in ar %q", str(bg, "name"), str(ar, "name"))
	}
}

func TestNotFound(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	vt := e.codec.Token(publicid.Variant, c.VarID[0])
	gt := e.codec.Token(publicid.Generation, c.GenID[0])
	missing := e.codec.Token(publicid.Variant, 0xfffffe)
	for _, id := range []string{"v_zzzzzzzz", "v_1234", "V" + vt[1:], "g_" + vt[2:], gt, missing, "123", strings.Repeat("x", 300)} {
		r := e.get("/v1/variants/"+id, e.free)
		e.problem(r, 404, "No variant with id")
		if !strings.Contains(string(r.body), strconv.Quote(id)[1:min(40, len(id)+1)]) {
			t.Errorf("the 404 of %q does not echo the id: %s", id, r.body)
		}
		for _, internal := range []string{strconv.Itoa(int(c.VarID[0])), strconv.Itoa(int(c.GenID[0]))} {
			if strings.Contains(string(r.body), internal) && !strings.Contains(id, internal) {
				t.Errorf("the 404 of %q leaks an internal id: %s", id, r.body)
			}
		}
	}
	// Raw ids are for the apify plan only, tokens for the others.
	e.problem(e.get("/v1/variants/"+strconv.Itoa(int(c.VarID[0])), e.free), 404, "No variant")
	e.problem(e.get("/v1/variants/"+vt, e.apify), 404, "No variant")
	if r := e.get("/v1/variants/"+strconv.Itoa(int(c.VarID[0])), e.apify); r.status != 200 {
		t.Errorf("apify raw id: %d", r.status)
	}
	e.problem(e.get("/v1/models/"+vt+"/generations", e.free), 404, "No model")
	e.problem(e.get("/v1/generations/"+vt+"/variants", e.free), 404, "No generation")
	e.problem(e.get("/v1/brands/no-such-brand", e.free), 404, `No brand with slug "no-such-brand"`)
	e.problem(e.get("/v1/brands/no-such-brand/models", e.free), 404, "No brand")
	e.problem(e.get("/v1/nothing/here", e.free), 404, "No route for /v1/nothing/here")
}

func TestMethods(t *testing.T) {
	e := newEnv(t)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	for _, p := range []string{"/v1/health", "/v1/brands", "/v1/brands/volkswagen", "/v1/variants/" + vt, "/v1/variants/" + vt + "/specs", "/v1/specs/catalog"} {
		get, head := e.get(p, e.free), e.do("HEAD", p, e.free)
		if head.status != get.status || len(head.body) != 0 || head.header["Content-Type"] != get.header["Content-Type"] {
			t.Errorf("HEAD %s: %d with %d body bytes, GET %d", p, head.status, len(head.body), get.status)
		}
		r := e.do("POST", p, e.free)
		e.problem(r, 405, "is not allowed")
		if !strings.Contains(r.header["Allow"], "GET") || !strings.Contains(r.header["Allow"], "HEAD") {
			t.Errorf("POST %s: Allow %q", p, r.header["Allow"])
		}
	}
}

func TestCaching(t *testing.T) {
	e := newEnv(t)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	p := "/v1/variants/" + vt + "/specs?locale=fr"
	r := e.get(p, e.free)
	tag := r.header["Etag"]
	if len(tag) != 18 || tag[0] != '"' || r.header["Cache-Control"] != "private, max-age=3600" || !strings.Contains(r.header["Vary"], "Accept-Encoding") || !strings.Contains(r.header["Vary"], "X-Api-Key") {
		t.Fatalf("headers %v", r.header)
	}
	nm := e.get(p, e.free, "If-None-Match", tag)
	if nm.status != 304 || len(nm.body) != 0 || nm.header["Etag"] != tag {
		t.Errorf("If-None-Match: %d, %d bytes, ETag %q", nm.status, len(nm.body), nm.header["Etag"])
	}
	if r := e.get(p, e.free, "If-None-Match", `"other", W/`+tag); r.status != 304 {
		t.Errorf("a list with a weak match: %d", r.status)
	}
	if r := e.get(p, e.free, "If-None-Match", `"0000000000000000"`); r.status != 200 {
		t.Errorf("a stale ETag: %d", r.status)
	}
	if de := e.get("/v1/variants/"+vt+"/specs?locale=de", e.free); de.header["Etag"] == tag {
		t.Error("two locales share an ETag")
	}
	if raw := e.get("/v1/variants/"+strconv.Itoa(int(e.cat.VarID[0]))+"/specs?locale=fr", e.apify); raw.header["Etag"] == tag {
		t.Error("the raw-id and token representations share an ETag")
	}
	if gz := e.get(p, e.free, "Accept-Encoding", "gzip"); gz.header["Etag"] == tag || !strings.HasSuffix(gz.header["Etag"], `-gz"`) {
		t.Errorf("gzip representation ETag %q", gz.header["Etag"])
	}
	if h := e.get("/v1/health", ""); h.header["Cache-Control"] != "no-store" {
		t.Errorf("health Cache-Control %q", h.header["Cache-Control"])
	}
}

func TestUnitsImperial(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	row := c.Demo[0]
	vt := e.codec.Token(publicid.Variant, c.VarID[row])
	metric := e.ok("/v1/variants/"+vt+"/specs", e.free)
	imp := e.ok("/v1/variants/"+vt+"/specs?units=imperial", e.free)
	if metric["meta"].(map[string]any)["units"] != "metric" || imp["meta"].(map[string]any)["units"] != "imperial" {
		t.Fatalf("meta.units %v / %v", metric["meta"], imp["meta"])
	}
	ms, is := metric["data"].(map[string]any)["specs"].(map[string]any), imp["data"].(map[string]any)["specs"].(map[string]any)
	check := func(key, unit string, convert func(float64) float64, tolerance float64) {
		t.Helper()
		m, ok1 := ms[key].(map[string]any)
		i, ok2 := is[key].(map[string]any)
		if !ok1 || !ok2 {
			return
		}
		if str(i, "u") != unit {
			t.Errorf("%s in %q, want %q", key, str(i, "u"), unit)
		}
		want := convert(m["v"].(float64))
		if got := i["v"].(float64); math.Abs(got-want) > tolerance {
			t.Errorf("%s: %v %s is %v %s, want %.2f", key, m["v"], str(m, "u"), got, unit, want)
		}
	}
	check("length_mm", "in", func(x float64) float64 { return x / 25.4 }, 0.06)
	check("top_speed_kmh", "mph", func(x float64) float64 { return x / 1.609344 }, 0.6)
	check("curb_weight_kg", "lb", func(x float64) float64 { return x * 2.20462 }, 0.6)
	check("torque_nm", "lb-ft", func(x float64) float64 { return x * 0.737562 }, 0.6)
	check("fuel_wltp_l_100km", "mpg", func(x float64) float64 { return 282.481 / x }, 0.06)
	check("fuel_tank_l", "gal", func(x float64) float64 { return x / 4.54609 }, 0.06)
	check("trunk_l", "cu ft", func(x float64) float64 { return x / 28.3168 }, 0.06)
	if u := str(is["power_kw"].(map[string]any), "u"); u != "kW" {
		t.Errorf("power_kw in %q under imperial", u)
	}
}

func TestExportAndUsage(t *testing.T) {
	e := newEnv(t)
	e.problem(e.get("/v1/export", e.free), 403, "https://licensing.example/offer")
	e.problem(e.get("/v1/export", ""), 401, "API key")
	u1 := e.ok("/v1/usage", e.apify)["data"].(map[string]any)
	u2 := e.ok("/v1/usage", e.apify)["data"].(map[string]any)
	if str(u1, "plan") != "apify" || u1["quota"] != float64(1<<30) || u2["used"].(float64) != u1["used"].(float64)+1 {
		t.Errorf("usage %v then %v", u1, u2)
	}
	resets, err := time.Parse(time.RFC3339, str(u1, "resets_at"))
	if now := time.Now().UTC(); err != nil || resets.Day() != 1 || resets.Hour() != 0 || !resets.After(now) || resets.Sub(now) > 32*24*time.Hour {
		t.Errorf("resets_at %v (%v)", u1["resets_at"], err)
	}
	// Errors are not counted.
	e.get("/v1/variants/v_00000000", e.apify)
	if u3 := e.ok("/v1/usage", e.apify)["data"].(map[string]any); u3["used"].(float64) != u2["used"].(float64)+1 {
		t.Errorf("a 404 was counted: %v then %v", u2["used"], u3["used"])
	}
}

// TestReloadUnderLoad swaps catalogues while clients read specs: no request
// fails and every response is whole.
func TestReloadUnderLoad(t *testing.T) {
	e := newEnv(t)
	paths := []string{}
	for i := 0; i < 20; i++ {
		row := uint32(i * len(e.cat.VarID) / 20)
		paths = append(paths, "/v1/variants/"+e.codec.Token(publicid.Variant, e.cat.VarID[row])+"/specs?locale=de")
	}
	var failed, served atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := e.get(paths[i%len(paths)], e.free)
				if r.status != 200 || r.body[len(r.body)-1] != '}' {
					failed.Add(1)
				}
				served.Add(1)
			}
		}(w)
	}
	for i := 0; i < 6; i++ {
		c, err := loader.FromBytes(e.snap)
		if err != nil {
			t.Fatal(err)
		}
		e.svc.Install(c)
		time.Sleep(30 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if failed.Load() != 0 || served.Load() < 50 {
		t.Errorf("%d of %d requests failed during reloads", failed.Load(), served.Load())
	}
}

var _ = fmt.Sprint
var _ engine.Kind

// TestFreePlanDeprecated: answers to a free key say the plan is deprecated,
// when it ends and where to go; other plans' answers do not.
func TestFreePlanDeprecated(t *testing.T) {
	e := newEnv(t)
	r := e.get("/v1/brands", e.free)
	if r.header["Deprecation"] != "@1764547200" || r.header["Sunset"] != "Tue, 01 Jun 2027 00:00:00 GMT" || !strings.Contains(r.header["Link"], `rel="deprecation"`) {
		t.Errorf("free key: Deprecation %q, Sunset %q, Link %q", r.header["Deprecation"], r.header["Sunset"], r.header["Link"])
	}
	if r := e.get("/v1/brands", e.apify); r.header["Deprecation"] != "" || r.header["Sunset"] != "" {
		t.Errorf("apify key: Deprecation %q, Sunset %q", r.header["Deprecation"], r.header["Sunset"])
	}
}
