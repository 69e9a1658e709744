package vocab

import (
	"fmt"
	"slices"
)

// ElectrifiedRow is one row of electrified.tsv: a full or plug-in hybrid a
// nameplate was sold with in a span of model years, with its system power.
type ElectrifiedRow struct {
	Brand, Model string
	Fuel         string  // hybrid or plug_in_hybrid
	From, To     int     // model years; To 0: still on sale
	HPMin, HPMax int     // system power
	BatteryKWh   float64 // a plug-in's published gross pack; 0: the generator's era figure
}

// Covers reports whether the row applies to fuel in model year y.
func (r ElectrifiedRow) Covers(fuel string, y int) bool {
	return r.Fuel == fuel && y >= r.From && (r.To == 0 || y <= r.To)
}

// Electrified are the rows of one nameplate.
type Electrified []ElectrifiedRow

// ElectrifiedFor returns the full and plug-in hybrid rows of a nameplate.
func (v *Vocabulary) ElectrifiedFor(brand, model string) Electrified {
	var out Electrified
	for _, r := range v.Electrified {
		if r.Brand == brand && r.Model == model {
			out = append(out, r)
		}
	}
	return out
}

// HP returns the system power range of the nameplate's fuel version in model
// year y (the envelope of the rows covering it); ok is false when no row
// covers that year, i.e. the nameplate had no such version then.
func (e Electrified) HP(fuel string, y int) (lo, hi int, ok bool) {
	for _, r := range e {
		if r.Covers(fuel, y) {
			lo, hi, ok = envelope(lo, hi, ok, r.HPMin, r.HPMax)
		}
	}
	return lo, hi, ok
}

// IsElectrifiedFuel reports whether electrified.tsv governs a fuel.
func IsElectrifiedFuel(fuel string) bool { return fuel == "hybrid" || fuel == "plug_in_hybrid" }

// loadElectrifiedFrom parses the content of electrified.tsv.
func (v *Vocabulary) loadElectrifiedFrom(b []byte) error {
	k := v.known()
	return rowsOf("electrified.tsv", b, 7, 8, func(rec *record) {
		f := rec.f
		r := ElectrifiedRow{Brand: f[0], Model: f[1]}
		rec.fail(k.nameplate(r.Brand, r.Model))
		rec.who = r.Model
		r.Fuel = rec.text(2, electrifiedFuel)
		r.From, r.To = rec.span(3, "first year", "year", 1997)
		r.HPMin, r.HPMax = rec.intRange(5, "power range", 40, 2000)
		if f[7] != "" {
			r.BatteryKWh = rec.float(7, "plug-in pack", 1, 40)
			if r.Fuel != "plug_in_hybrid" {
				rec.failf("bad plug-in pack %q", f[7])
			}
		}
		if rec.Err() == nil {
			v.Electrified = append(v.Electrified, r)
		}
	})
}

// electrifiedFuel checks a fuel electrified.tsv governs.
func electrifiedFuel(fuel string) error {
	if !IsElectrifiedFuel(fuel) {
		return fmt.Errorf("fuel %q: hybrid or plug_in_hybrid", fuel)
	}
	return nil
}

// HybridGearbox is one row of hybridgearboxes.tsv: a gearbox a brand's
// full or plug-in hybrids had in a span of model years.
type HybridGearbox struct {
	Brands, Fuels []string
	First, Last   int // Last 0: still sold
	Transmission  string
	Gears         int
	Name          string   // gearboxes.tsv name; "" for the brand's usual word
	Models        []string // nil: every nameplate of the brands
}

// HybridGearboxes returns the gearboxes a nameplate's hybrids of fuel had
// in model year y: the rows naming the nameplate if any cover it, else the
// brand's; nil when the brand is not listed for that fuel and year.
func (v *Vocabulary) HybridGearboxes(brand, model, fuel string, y int) []*HybridGearbox {
	var own, all []*HybridGearbox
	for i := range v.HybridBoxes {
		g := &v.HybridBoxes[i]
		if !slices.Contains(g.Brands, brand) || !slices.Contains(g.Fuels, fuel) || y < g.First || (g.Last != 0 && y > g.Last) {
			continue
		}
		switch {
		case g.Models == nil:
			all = append(all, g)
		case slices.Contains(g.Models, model):
			own = append(own, g)
		}
	}
	if own != nil {
		return own
	}
	return all
}

// loadHybridGearboxesFrom parses the content of hybridgearboxes.tsv; it
// runs after gearboxes.tsv, whose names it uses.
func (v *Vocabulary) loadHybridGearboxesFrom(b []byte) error {
	k := v.known()
	return rowsOf("hybridgearboxes.tsv", b, 6, 8, func(rec *record) {
		g := HybridGearbox{Brands: rec.list(0, k.brand), Fuels: rec.list(1, electrifiedFuel)}
		g.First, g.Last = rec.span(2, "first year", "year", 1997)
		g.Transmission = rec.text(4, func(t string) error {
			if _, ok := v.EnumValueIndex("transmission", t); !ok || t == "manual" {
				return fmt.Errorf("transmission %q: automatic, dct, cvt, single_speed or amt", t)
			}
			return nil
		})
		g.Gears = rec.int(5, "gears", 1, 10)
		g.Name = rec.text(6, func(name string) error {
			if _, ok := v.Gearboxes[name]; name != "" && !ok {
				return fmt.Errorf("gearbox %q is not in gearboxes.tsv", name)
			}
			return nil
		})
		g.Models = rec.optList(7, k.nameplateOf(g.Brands))
		if rec.Err() == nil {
			v.HybridBoxes = append(v.HybridBoxes, g)
		}
	})
}
