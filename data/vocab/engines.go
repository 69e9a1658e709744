package vocab

import (
	"fmt"
	"slices"
	"strings"
)

// EngineFamily is one row of engines.tsv: an engine a brand group sold in a
// span of model years, with the power steps it came in.
type EngineFamily struct {
	Brands    []string
	Fuel      string // petrol or diesel; hybrid: the engine of full and plug-in hybrids; mild_hybrid: of mild hybrids
	Badge     string // "TSI", "dCi", ...; "" when sold under the displacement alone
	CC        int
	Cylinders int
	Turbo     bool
	HP        []int // ascending
	First     int
	Last      int // 0: still on sale
	// Models are the only nameplates that had it (a halo engine: the
	// Mustang's V8); nil for every nameplate of the brands.
	Models []string
}

// Covers reports whether the family was on sale in model year y.
func (f *EngineFamily) Covers(y int) bool { return y >= f.First && (f.Last == 0 || y <= f.Last) }

// EngineFamilies returns the families a brand builds its engines from, nil
// when engines.tsv does not list the brand.
func (v *Vocabulary) EngineFamilies(brand string) []*EngineFamily {
	var out []*EngineFamily
	for i := range v.Engines {
		for _, b := range v.Engines[i].Brands {
			if b == brand {
				out = append(out, &v.Engines[i])
			}
		}
	}
	return out
}

// EngineFamiliesFor returns the families a nameplate's engines come from:
// the brand's families that name no nameplate, and those naming it (a halo
// engine such as the Mustang's V8 stays in its nameplates).
func (v *Vocabulary) EngineFamiliesFor(brand, model string) []*EngineFamily {
	var out []*EngineFamily
	for _, f := range v.EngineFamilies(brand) {
		if f.Models == nil || slices.Contains(f.Models, model) {
			out = append(out, f)
		}
	}
	return out
}

// FamilyKind is the kind of engine family (engines.tsv's fuel) a variant
// of fuel takes its engine from among families: petrol and diesel their
// own, a mild hybrid the brand's mild-hybrid engines where it lists any
// (VW's eTSI is a 1.0 or 1.5, never the 2.0), else its petrol ones; ""
// for fuels the families do not cover.
func FamilyKind(fuel string, families []*EngineFamily) string {
	switch fuel {
	case "petrol", "diesel":
		return fuel
	case "mild_hybrid":
		for _, f := range families {
			if f.Fuel == "mild_hybrid" {
				return "mild_hybrid"
			}
		}
		return "petrol"
	}
	return ""
}

// engineFuel checks engines.tsv's fuel.
func engineFuel(fuel string) error {
	switch fuel {
	case "petrol", "diesel", "hybrid", "mild_hybrid":
		return nil
	}
	return fmt.Errorf("fuel %q: petrol or diesel, hybrid for the engine of hybrids, mild_hybrid for that of mild hybrids", fuel)
}

// aspiration checks engines.tsv's aspiration.
func aspiration(s string) error {
	if s != "turbo" && s != "na" {
		return fmt.Errorf("aspiration %q: turbo or na", s)
	}
	return nil
}

// loadEnginesFrom parses the content of engines.tsv.
func (v *Vocabulary) loadEnginesFrom(b []byte) error {
	k := v.known()
	return rowsOf("engines.tsv", b, 8, 10, func(rec *record) {
		f := rec.f
		e := EngineFamily{Brands: rec.list(0, k.brand), Fuel: rec.text(1, engineFuel), Badge: f[2]}
		e.CC = rec.int(3, "number", 500, 9000)
		e.Cylinders = rec.int(4, "number", 1, 16)
		e.Turbo = rec.text(5, aspiration) == "turbo"
		for _, s := range strings.Split(f[6], ",") {
			hp := rec.intOf(strings.TrimSpace(s), "number", 20, 2000)
			if n := len(e.HP); n > 0 && hp <= e.HP[n-1] {
				rec.failf("power steps not ascending at %d", hp)
			}
			e.HP = append(e.HP, hp)
		}
		e.First = rec.int(7, "number", 1930, LastYear)
		if f[8] != "" {
			e.Last = rec.int(8, "number", e.First, LastYear)
		}
		e.Models = rec.optList(9, k.nameplateOf(e.Brands))
		if rec.Err() == nil {
			v.Engines = append(v.Engines, e)
		}
	})
}
