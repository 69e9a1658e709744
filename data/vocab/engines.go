package vocab

import (
	"fmt"
	"slices"
	"strconv"
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

// loadEnginesFrom parses the content of engines.tsv.
func (v *Vocabulary) loadEnginesFrom(b []byte) error {
	brands := map[string]bool{}
	for _, b := range v.Brands {
		brands[b.Slug] = true
	}
	num := func(s string, lo, hi int) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("bad number %q (want %d-%d)", s, lo, hi)
		}
		return n, nil
	}
	return rowsOf("engines.tsv", b, 8, 10, func(_ int, f []string) error {
		e := EngineFamily{Brands: strings.Split(f[0], ","), Fuel: f[1], Badge: f[2]}
		for _, b := range e.Brands {
			if !brands[b] {
				return fmt.Errorf("unknown brand %q", b)
			}
		}
		if e.Fuel != "petrol" && e.Fuel != "diesel" && e.Fuel != "hybrid" && e.Fuel != "mild_hybrid" {
			return fmt.Errorf("fuel %q: petrol or diesel, hybrid for the engine of hybrids, mild_hybrid for that of mild hybrids", e.Fuel)
		}
		var err error
		if e.CC, err = num(f[3], 500, 9000); err != nil {
			return err
		}
		if e.Cylinders, err = num(f[4], 1, 16); err != nil {
			return err
		}
		switch f[5] {
		case "turbo":
			e.Turbo = true
		case "na":
		default:
			return fmt.Errorf("aspiration %q: turbo or na", f[5])
		}
		for _, s := range strings.Split(f[6], ",") {
			hp, err := num(strings.TrimSpace(s), 20, 2000)
			if err != nil {
				return err
			}
			if n := len(e.HP); n > 0 && hp <= e.HP[n-1] {
				return fmt.Errorf("power steps not ascending at %d", hp)
			}
			e.HP = append(e.HP, hp)
		}
		if e.First, err = num(f[7], 1930, 2026); err != nil {
			return err
		}
		if f[8] != "" {
			if e.Last, err = num(f[8], e.First, 2026); err != nil {
				return err
			}
		}
		if f[9] != "" {
			for _, m := range strings.Split(f[9], ",") {
				m = strings.TrimSpace(m)
				known := false
				for _, ms := range v.Models {
					known = known || (ms.Name == m && slices.Contains(e.Brands, ms.Brand))
				}
				if !known {
					return fmt.Errorf("unknown nameplate %q of %v", m, e.Brands)
				}
				e.Models = append(e.Models, m)
			}
		}
		v.Engines = append(v.Engines, e)
		return nil
	})
}
