package httpd_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/publicid"
)

// TestCachedBodiesAreRendered: the list pages, images, prices and the
// compared variants the body cache answers are, byte for byte and ETag for ETag, what a server
// without the cache renders: first pages and pages after a cursor, in
// several locales and page sizes, with token and raw ids; a page of
// another view (locale, size, id view, cursor) is never answered from
// another's entry.
func TestCachedBodiesAreRendered(t *testing.T) {
	cached := newEnv(t)
	plain := newEnv(t, func(o *httpd.Options) { o.BodyCacheBytes = -1 })
	c := cached.cat
	v := c.Demo[0]
	gen, model := c.VarGen[v], c.GenModel[c.VarGen[v]]
	brand := c.BrandSlug.String(c.ModelBrand[model])
	tok := func(e *env, k publicid.Kind, id uint32, raw bool) string {
		if raw {
			return strconv.FormatUint(uint64(id), 10)
		}
		return e.codec.Token(k, id)
	}
	for _, raw := range []bool{false, true} {
		key := func(e *env) string {
			if raw {
				return e.apify
			}
			return e.free
		}
		paths := func(e *env) []string {
			return []string{
				"/v1/brands", "/v1/brands?limit=2", "/v1/brands?limit=2&locale=de",
				"/v1/brands/" + brand + "/models?limit=3", "/v1/brands/" + brand + "/models?locale=fr",
				"/v1/models/" + tok(e, publicid.Model, c.ModelID[model], raw) + "/generations?limit=1",
				"/v1/generations/" + tok(e, publicid.Generation, c.GenID[gen], raw) + "/variants?limit=2",
				"/v1/generations/" + tok(e, publicid.Generation, c.GenID[gen], raw) + "/variants?locale=de",
				"/v1/specs/catalog?limit=5", "/v1/specs/catalog?locale=ar",
				"/v1/variants/" + tok(e, publicid.Variant, c.VarID[v], raw) + "/images",
				"/v1/variants/" + tok(e, publicid.Variant, c.VarID[v], raw) + "/prices?locale=de",
				// compare keeps the specs bodies it renders, and reuses them
				"/v1/compare?locale=de&units=imperial&ids=" + tok(e, publicid.Variant, c.VarID[c.Demo[1]], raw) + "," + tok(e, publicid.Variant, c.VarID[v], raw),
				"/v1/variants/" + tok(e, publicid.Variant, c.VarID[c.Demo[1]], raw) + "/specs?units=imperial&locale=de",
				"/v1/variants/" + tok(e, publicid.Variant, c.VarID[c.Demo[2]], raw) + "/specs?locale=fr",
				"/v1/compare?locale=fr&ids=" + tok(e, publicid.Variant, c.VarID[c.Demo[2]], raw) + "," + tok(e, publicid.Variant, c.VarID[c.Demo[3]], raw),
			}
		}
		want, got := paths(plain), paths(cached)
		for i := range want {
			// Each page, then the page its cursor leads to, twice from the
			// cache (the second a hit once the cache has applied the first).
			wp, gp := want[i], got[i]
			for depth := 0; depth < 2 && wp != ""; depth++ {
				w := plain.get(wp, key(plain))
				var g resp
				for range 2 {
					g = cached.get(gp, key(cached))
					cached.svc.WaitCaches()
				}
				if w.status != 200 || g.status != 200 || !bytes.Equal(w.body, g.body) || w.header["Etag"] != g.header["Etag"] {
					t.Fatalf("raw %v, %s: cached %d %s %s\nrendered %d %s %s", raw, gp, g.status, g.header["Etag"], g.body, w.status, w.header["Etag"], w.body)
				}
				wp, gp = nextPath(t, wp, w), nextPath(t, gp, g)
			}
		}
	}
}

// nextPath returns path with the cursor of r's links.next, or "" when r is
// the last page or not a list.
func nextPath(t *testing.T, path string, r resp) string {
	links, _ := r.json(t)["links"].(map[string]any)
	next, _ := links["next"].(string)
	if next == "" {
		return ""
	}
	if i := bytes.IndexByte([]byte(path), '?'); i >= 0 {
		return path + "&cursor=" + next
	}
	return path + "?cursor=" + next
}

// TestSummaries: the Variant objects pre-rendered at install are the ones
// rendered on demand.
func TestSummaries(t *testing.T) {
	e := newEnv(t)
	httpd.CheckSummaries(t, e.cat, e.codec)
}
