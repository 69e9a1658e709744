package engine_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/loadertest"
)

var (
	once sync.Once
	cat  *engine.Catalogue
)

// small returns a catalogue of about 2,800 variants built through a real
// snapshot.
func small(t testing.TB) *engine.Catalogue {
	t.Helper()
	once.Do(func() {
		snap, err := loadertest.Snapshot(gen.Options{Scale: 0.01, Seed: 11})
		if err != nil {
			panic(err)
		}
		if cat, err = loader.FromBytes(snap); err != nil {
			panic(err)
		}
	})
	return cat
}

func TestLookups(t *testing.T) {
	c := small(t)
	for r, id := range c.VarID {
		if got, ok := c.VariantRow(id); !ok || got != uint32(r) {
			t.Fatalf("VariantRow(%d) = %d, %v; want %d", id, got, ok, r)
		}
		if _, ok := c.VariantRow(id + 1); ok && (r+1 >= len(c.VarID) || c.VarID[r+1] != id+1) {
			t.Fatalf("VariantRow(%d) found a variant that does not exist", id+1)
		}
	}
	for r, id := range c.GenID {
		if got, ok := c.GenerationRow(id); !ok || got != uint32(r) {
			t.Fatalf("GenerationRow(%d)", id)
		}
	}
	for r, id := range c.ModelID {
		if got, ok := c.ModelRow(id); !ok || got != uint32(r) {
			t.Fatalf("ModelRow(%d)", id)
		}
	}
	for r := range c.BrandID {
		if got, ok := c.BrandBySlug(c.BrandSlug.String(uint32(r))); !ok || got != uint32(r) {
			t.Fatalf("BrandBySlug(%s)", c.BrandSlug.String(uint32(r)))
		}
		if got, ok := c.BrandRow(c.BrandID[r]); !ok || got != uint32(r) {
			t.Fatalf("BrandRow(%d)", c.BrandID[r])
		}
	}
	for _, id := range []uint32{0, 1, 1<<32 - 1} {
		if _, ok := c.VariantRow(id); ok {
			t.Errorf("VariantRow(%d) found something", id)
		}
	}
	if _, ok := c.BrandBySlug("no-such-brand"); ok {
		t.Error("unknown slug found")
	}
}

// TestHierarchySpans walks brand > model > generation > variant through the
// spans and checks that every row is reached exactly once, under its parent.
func TestHierarchySpans(t *testing.T) {
	c := small(t)
	seen := make([]bool, len(c.VarID))
	for b := range c.BrandID {
		mf, me := c.BrandModels(uint32(b))
		for m := mf; m < me; m++ {
			if c.ModelBrand[m] != uint32(b) {
				t.Fatalf("model row %d listed under brand %d", m, b)
			}
			gf, ge := c.ModelGenerations(m)
			for g := gf; g < ge; g++ {
				vf, ve := c.GenerationVariants(g)
				for v := vf; v < ve; v++ {
					if seen[v] || c.VarGen[v] != g || c.VariantModel(v) != m || c.VariantBrand(v) != uint32(b) {
						t.Fatalf("variant row %d reached twice or under the wrong parent", v)
					}
					seen[v] = true
				}
			}
		}
	}
	for v, ok := range seen {
		if !ok {
			t.Fatalf("variant row %d unreachable", v)
		}
	}
}

func TestLabels(t *testing.T) {
	c := small(t)
	de, ok := c.Locale("de")
	if !ok {
		t.Fatal("no de")
	}
	if c.LocaleOrEnglish("xx") != c.English() || c.LocaleOrEnglish("de") != de {
		t.Error("locale fallback")
	}
	if got := string(c.AppendSpecLabelJSON(nil, de, uint8(specIndex(c, "trunk_l")))); got != `"Kofferraumvolumen"` {
		t.Errorf("German label of trunk_l = %s", got)
	}
	bg, _ := c.Locale("bg")
	vw, _ := c.BrandBySlug("volkswagen")
	// The Bulgarian press writes Volkswagen; the local spelling is a
	// search alias.
	if got := c.BrandDisplayName(bg, vw); got != "Volkswagen" {
		t.Errorf("Bulgarian Volkswagen = %s", got)
	}
	if got := c.SearchQuery("Фолксваген голф", bg); got != "volkswagen голф" {
		t.Errorf("Bulgarian search for Фолксваген голф reads %q", got)
	}
	if got := string(c.AppendBrandNameJSON(nil, de, vw)); got != `"Volkswagen"` {
		t.Errorf("German Volkswagen = %s (falls back to the canonical name)", got)
	}
	if got := c.BodyLabel(c.English(), c.VarBody[0]); got == "" {
		t.Error("empty English body label")
	}
}

func specIndex(c *engine.Catalogue, key string) int {
	for i, s := range c.Specs {
		if s.Key == key {
			return i
		}
	}
	return -1
}

// TestNewRejects breaks one invariant at a time and checks that New names it.
func TestNewRejects(t *testing.T) {
	base := small(t).Columns
	f := func(name, want string, mutate func(c *engine.Columns)) {
		t.Helper()
		c := base
		mutate(&c)
		_, err := engine.New(c)
		if !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, want)
		}
	}
	f("parent out of range", "parent", func(c *engine.Columns) {
		c.VarGen = append([]uint32(nil), c.VarGen...)
		c.VarGen[len(c.VarGen)-1] = uint32(len(c.GenID))
	})
	f("children not contiguous", "parent", func(c *engine.Columns) {
		c.GenModel = append([]uint32(nil), c.GenModel...)
		c.GenModel[0], c.GenModel[len(c.GenModel)-1] = c.GenModel[len(c.GenModel)-1], c.GenModel[0]
	})
	f("spec keys not ascending", "ascending", func(c *engine.Columns) {
		c.SpecKey = append([]uint8(nil), c.SpecKey...)
		c.SpecKey[0], c.SpecKey[1] = c.SpecKey[1], c.SpecKey[0]
	})
	f("fuel code", "fuel code", func(c *engine.Columns) {
		c.VarFuel = append([]uint8(nil), c.VarFuel...)
		c.VarFuel[5] = 200
	})
	f("short column", "differ in length", func(c *engine.Columns) { c.VarPowerHP = c.VarPowerHP[1:] })
	f("locale tables", "locale tables", func(c *engine.Columns) { c.SpecLabels = c.SpecLabels[1:] })
	f("no English", "locale en", func(c *engine.Columns) {
		c.Locales = append([]string(nil), c.Locales...)
		c.Locales[6] = "xx"
	})
	// A year outside MinYear..MaxYear would make the year index span
	// millennia (a fuzzed snapshot took 25 s to load).
	f("start year", "outside 1886..2100", func(c *engine.Columns) {
		c.GenYearStart = append([]uint16(nil), c.GenYearStart...)
		c.GenYearStart[0] = 3
	})
	f("end year", "after 2100", func(c *engine.Columns) {
		c.GenYearEnd = append([]uint16(nil), c.GenYearEnd...)
		c.GenYearEnd[0] = 60000
	})
	f("demo row", "demo row", func(c *engine.Columns) { c.Demo = append(append([]uint32(nil), c.Demo...), c.Demo[0]) })
	f("bool", "not a boolean", func(c *engine.Columns) {
		abs := uint8(specIndex(small(t), "abs"))
		c.SpecVal = append([]int32(nil), c.SpecVal...)
		for j, k := range c.SpecKey {
			if k == abs {
				c.SpecVal[j] = 2
				break
			}
		}
	})
}

func TestImageURL(t *testing.T) {
	c := small(t)
	row, _ := c.BrandBySlug("volkswagen")
	m, _ := c.BrandModels(row)
	g, _ := c.ModelGenerations(m)
	v, _ := c.GenerationVariants(g)
	first, end := c.VariantImages(v)
	want := "https://cdn.example/img/volkswagen/" + c.ModelSlug.String(m) + "/" + c.GenSlug.String(g) + "/" + c.BodySlug(c.VarBody[v]) + "/"
	for i := first; i < end; i++ {
		u := string(c.AppendImageURL(nil, "https://cdn.example/img", i))
		size := "-640x360.webp"
		if c.ImageRole[i] == engine.RoleHero {
			size = "-1600x900.webp"
		}
		angle := strings.TrimSuffix(strings.TrimPrefix(u, want), size)
		if !strings.HasPrefix(u, want) || !strings.HasSuffix(u, size) || !slices.Contains(engine.ImageAngles[:], angle) {
			t.Errorf("image URL %s, want %s<angle>%s", u, want, size)
		}
	}
}

// TestAliasFor checks the binary search over the brands' local spellings
// against a scan in popularity order: for every prefix of every spelling,
// the same brand.
func TestAliasFor(t *testing.T) {
	c := small(t)
	ps, got, want := engine.AliasPrefixes(c)
	if len(ps) < 100 {
		t.Fatalf("only %d prefixes", len(ps))
	}
	for i := range ps {
		if got[i] != want[i] {
			t.Errorf("%q: %q, want %q", ps[i], got[i], want[i])
		}
	}
}
