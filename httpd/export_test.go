package httpd

// Hooks for the tests of package httpd_test, which build the catalogue
// with httpdtest (itself importing httpd).

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
)

// CheckDemoWithoutCatalogue runs every operation of the demo tier built
// from c, for a car of the set, on a request that has no catalogue view:
// one that touched the catalogue would panic.
func CheckDemoWithoutCatalogue(t testing.TB, c *engine.Catalogue, codec *publicid.Codec) {
	d := buildDemo(newView(c, codec, 1), codec, "https://upgrade.example/")
	car := c.Demo[0]
	g := c.VarGen[car]
	m := c.GenModel[g]
	paths := map[*operation]string{
		opBrand: c.BrandSlug.String(c.ModelBrand[m]), opModels: c.BrandSlug.String(c.ModelBrand[m]),
		opGenerations: codec.Token(publicid.Model, c.ModelID[m]), opGenVariants: codec.Token(publicid.Generation, c.GenID[g]),
		opVariant: codec.Token(publicid.Variant, c.VarID[car]), opSpecs: codec.Token(publicid.Variant, c.VarID[car]),
		opImages: codec.Token(publicid.Variant, c.VarID[car]),
	}
	queries := map[*operation]string{
		opSearch:  "q=" + c.ModelName.String(m),
		opCompare: "ids=" + codec.Token(publicid.Variant, c.VarID[car]) + "," + codec.Token(publicid.Variant, c.VarID[c.Demo[1]]),
	}
	var o operations
	for _, op := range keyedOperations {
		if op.demo == nil {
			continue
		}
		var args fasthttp.Args
		args.Parse(queries[op] + "&locale=de")
		rq := &request{p: Params{Path: []byte(paths[op])}}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: the demo operation panicked without the catalogue: %v", op.id, r)
				}
			}()
			if err := o.answer(rq, &view{demo: d}, op, tierDemo, &args, false); err != nil {
				t.Errorf("%s: %v", op.id, err)
			}
			if rq.v != nil || !bytes.Contains(rq.body, []byte(`"locale":"de"`)) {
				t.Errorf("%s: answered %.200s", op.id, rq.body)
			}
		}()
	}
}

// SearchCursor seals pos as the cursor of the full tier's search for the
// folded query in locale lang, as the operation would: the tests forge a
// cursor of the order before ranking with it.
func SearchCursor(codec *publicid.Codec, folded, lang string, pos []byte) string {
	return string(codec.AppendCursor(nil, binding(codec, tierFull, routeSearch, []byte(folded), []byte(lang)), pos))
}

// CheckSummaries fails t unless every variant's pre-rendered Variant object
// (view.summaries) is the one rendered on demand, and valid JSON.
func CheckSummaries(t testing.TB, c *engine.Catalogue, codec *publicid.Codec) {
	v := newView(c, codec, 1)
	rq := &request{v: v}
	for r := range uint32(len(c.VarID)) {
		want := rq.renderVariant(nil, r)
		if got := rq.appendVariant(nil, r); !bytes.Equal(got, want) || !json.Valid(want) {
			t.Fatalf("row %d: pre-rendered %s\nrendered %s", r, got, want)
		}
	}
}
