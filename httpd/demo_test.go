package httpd_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/publicid"
)

func TestDemoSet(t *testing.T) {
	e := newEnv(t)
	m := e.ok("/v1/demo?locale=bg", e.demo)["data"].(map[string]any)
	if m["variant_count"] != float64(40) || len(m["variants"].([]any)) != 40 || len(m["fuels"].([]any)) != 10 || !strings.Contains(str(m, "upgrade"), "https://upgrade.example/") {
		t.Fatalf("demo set %v", m)
	}
	v := m["variants"].([]any)[0].(map[string]any)
	for _, f := range []string{"variant_id", "generation_id", "model_id", "brand", "model", "generation", "display_name", "fuel", "body_type", "years", "power_hp", "price_new_eur", "battery_kwh"} {
		if _, ok := v[f]; !ok {
			t.Errorf("DemoVariant lacks %s", f)
		}
	}
	if !strings.HasPrefix(str(v, "variant_id"), "v_") || str(v, "brand") != "Dacia" {
		t.Errorf("demo variant %v", v)
	}
	e.problem(e.get("/v1/demo", e.free), 404, "for demo keys")
	e.problem(e.get("/v1/demo", e.apify), 404, "for demo keys")
}

// TestDemoIsolation walks every route of the API with a demo key.
func TestDemoIsolation(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	demoRows := map[uint32]bool{}
	for _, r := range c.Demo {
		demoRows[r] = true
	}
	// A car outside the set in a generation outside it too: a demo
	// generation's other cars are outside the set, but its variant list
	// answers (with the demo cars alone).
	demoGens := map[uint32]bool{}
	for r := range demoRows {
		demoGens[c.VarGen[r]] = true
	}
	outside := uint32(0)
	for demoRows[outside] || demoGens[c.VarGen[outside]] {
		outside++
	}
	in := c.Demo[3]
	vt := func(r uint32) string { return e.codec.Token(publicid.Variant, c.VarID[r]) }
	// The browse chain reaches exactly the set.
	brands := e.walk("/v1/brands?limit=2", e.demo)
	if len(brands) != 5 {
		t.Fatalf("%d demo brands", len(brands))
	}
	cars := 0
	for _, b := range brands {
		models := e.walk("/v1/brands/"+str(b, "slug")+"/models", e.demo)
		if len(models) != 2 {
			t.Fatalf("brand %s: %d models", str(b, "slug"), len(models))
		}
		for _, m := range models {
			gens := e.walk("/v1/models/"+str(m, "model_id")+"/generations", e.demo)
			if len(gens) != 2 {
				t.Fatalf("%d generations", len(gens))
			}
			for _, g := range gens {
				vs := e.walk("/v1/generations/"+str(g, "generation_id")+"/variants?limit=1", e.demo)
				if len(vs) != 2 {
					t.Fatalf("%d variants", len(vs))
				}
				cars += len(vs)
			}
		}
	}
	if cars != 40 {
		t.Errorf("the chain reaches %d cars", cars)
	}
	// Detail is the summary without specs; specs, images and compare work.
	d := e.ok("/v1/variants/"+vt(in), e.demo)["data"].(map[string]any)
	if _, has := d["specs"]; has || d["spec_count"] != nil || str(d, "variant_id") != vt(in) {
		t.Errorf("demo detail %v", d)
	}
	e.ok("/v1/variants/"+vt(in)+"/images", e.demo)
	e.ok("/v1/compare?ids="+vt(in)+","+vt(c.Demo[7]), e.demo)
	// Outside the set: 403, never 404.
	nonDemoBrand := ""
	for r := range c.BrandID {
		isDemo := false
		for _, b := range brands {
			if str(b, "slug") == c.BrandSlug.String(uint32(r)) {
				isDemo = true
			}
		}
		if !isDemo {
			nonDemoBrand = c.BrandSlug.String(uint32(r))
			break
		}
	}
	for _, p := range []string{
		"/v1/variants/" + vt(outside), "/v1/variants/" + vt(outside) + "/specs", "/v1/variants/" + vt(outside) + "/images",
		"/v1/variants/v_zzzzzzzz", "/v1/variants/v_00000000/specs", "/v1/brands/" + nonDemoBrand, "/v1/brands/" + nonDemoBrand + "/models",
		"/v1/brands/no-such-brand", "/v1/models/m_00000000/generations", "/v1/generations/" + e.codec.Token(publicid.Generation, c.GenID[c.VarGen[outside]]) + "/variants",
		"/v1/compare?ids=" + vt(in) + "," + vt(outside), "/v1/compare?ids=" + vt(in) + ",v_garbage",
	} {
		e.problem(e.get(p, e.demo), 403, "outside the demo set")
	}
	for _, p := range []string{"/v1/variants?fuel=diesel", "/v1/variants/" + vt(in) + "/prices", "/v1/specs/catalog", "/v1/usage", "/v1/export"} {
		r := e.get(p, e.demo)
		e.problem(r, 403, "is not part of the demo tier")
		if !strings.Contains(string(r.body), "https://upgrade.example/") {
			t.Errorf("%s: no upgrade path in %s", p, r.body)
		}
	}
}

// TestDemoOperationsAnswerWithoutTheCatalogue: the demo operations answer
// from the demo view alone (see httpd.CheckDemoWithoutCatalogue).
func TestDemoOperationsAnswerWithoutTheCatalogue(t *testing.T) {
	e := newEnv(t)
	httpd.CheckDemoWithoutCatalogue(t, e.cat, e.codec)
}

// TestDemoShapes checks that demo responses are the catalogue's shapes.
func TestDemoShapes(t *testing.T) {
	e := newEnv(t)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[e.cat.Demo[11]])
	for _, p := range []string{"/v1/variants/" + vt + "/specs?locale=el&units=imperial", "/v1/variants/" + vt + "/images", "/v1/brands/hyundai?locale=ar"} {
		var a, b any
		json.Unmarshal(e.get(p, e.demo).body, &a)
		json.Unmarshal(e.get(p, e.free).body, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s differs between the demo tier and the catalogue", p)
		}
	}
	demo := e.ok("/v1/variants/"+vt, e.demo)["data"].(map[string]any)
	full := e.ok("/v1/variants/"+vt, e.free)["data"].(map[string]any)
	delete(full, "specs")
	delete(full, "spec_count")
	if !reflect.DeepEqual(demo, full) {
		t.Errorf("demo detail %v is not the catalogue detail without specs %v", demo, full)
	}
}

func TestDemoUnavailable(t *testing.T) {
	e := newEnv(t)
	cols := e.cat.Columns
	cols.Demo = nil
	c, err := engine.New(cols)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.Install(c)
	r := e.get("/v1/demo", e.demo)
	e.problem(r, 503, "Your demo key is fine")
	if r.header["Retry-After"] != "300" {
		t.Errorf("Retry-After %q", r.header["Retry-After"])
	}
	e.problem(e.get("/v1/brands", e.demo), 503, "being rebuilt")
	if r := e.get("/v1/brands", e.free); r.status != 200 {
		t.Errorf("the catalogue stops when the demo set is missing: %d", r.status)
	}
}

// TestDemoNote: a demo key's lists and searches say in meta.note that the
// demo tier covers the 40 cars and where the full catalogue is, an empty
// search included; a full key's answers carry no note.
func TestDemoNote(t *testing.T) {
	e := newEnv(t)
	c := e.cat
	m := c.GenModel[c.VarGen[c.Demo[0]]]
	g := c.VarGen[c.Demo[0]]
	slug := c.BrandSlug.String(c.ModelBrand[m])
	for path, want := range map[string]string{
		"/v1/brands":                     "lists only the 40 cars",
		"/v1/brands/" + slug + "/models": "lists only the 40 cars",
		"/v1/models/" + e.codec.Token(publicid.Model, c.ModelID[m]) + "/generations":      "lists only the 40 cars",
		"/v1/generations/" + e.codec.Token(publicid.Generation, c.GenID[g]) + "/variants": "lists only the 40 cars",
		"/v1/search?q=" + slug:  "searches only the 40 cars",
		"/v1/search?q=zzzzqqqq": "searches only the 40 cars",
	} {
		body := e.ok(path, e.demo)
		note := str(body["meta"].(map[string]any), "note")
		if !strings.Contains(note, want) || !strings.Contains(note, "GET /v1/demo") || !strings.Contains(note, "https://upgrade.example/") {
			t.Errorf("%s: meta.note %q", path, note)
		}
	}
	if data := e.ok("/v1/search?q=zzzzqqqq", e.demo)["data"].([]any); len(data) != 0 {
		t.Errorf("an unmatched demo search: %v", data)
	}
	for _, path := range []string{"/v1/brands", "/v1/search?q=" + slug} {
		if meta := e.ok(path, e.apify)["meta"].(map[string]any); meta["note"] != nil {
			t.Errorf("%s with a full key: meta %v", path, meta)
		}
	}
}
