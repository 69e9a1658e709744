package vocab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
		if !r.Covers(fuel, y) {
			continue
		}
		if !ok || r.HPMin < lo {
			lo = r.HPMin
		}
		if !ok || r.HPMax > hi {
			hi = r.HPMax
		}
		ok = true
	}
	return lo, hi, ok
}

// IsElectrifiedFuel reports whether electrified.tsv governs a fuel.
func IsElectrifiedFuel(fuel string) bool { return fuel == "hybrid" || fuel == "plug_in_hybrid" }

// loadElectrifiedFrom parses the content of electrified.tsv.
func (v *Vocabulary) loadElectrifiedFrom(b []byte) error {
	models := map[string]bool{}
	for _, m := range v.Models {
		models[m.Brand+"\t"+m.Name] = true
	}
	return rowsOf("electrified.tsv", b, 7, 8, func(_ int, f []string) error {
		r := ElectrifiedRow{Brand: f[0], Model: f[1], Fuel: f[2]}
		if !models[r.Brand+"\t"+r.Model] {
			return fmt.Errorf("unknown nameplate %s %q", r.Brand, r.Model)
		}
		if !IsElectrifiedFuel(r.Fuel) {
			return fmt.Errorf("%s: fuel %q: hybrid or plug_in_hybrid", r.Model, r.Fuel)
		}
		var err error
		if r.From, err = optionalYear(f[3], 1997); err != nil || r.From == 0 {
			return fmt.Errorf("%s: bad first year %q", r.Model, f[3])
		}
		if r.To, err = optionalYear(f[4], r.From); err != nil {
			return fmt.Errorf("%s: %w", r.Model, err)
		}
		r.HPMin, err = strconv.Atoi(f[5])
		if err == nil {
			r.HPMax, err = strconv.Atoi(f[6])
		}
		if err != nil || r.HPMin < 40 || r.HPMax < r.HPMin || r.HPMax > 2000 {
			return fmt.Errorf("%s: bad power range %q-%q", r.Model, f[5], f[6])
		}
		if len(f) > 7 && f[7] != "" {
			if r.BatteryKWh, err = strconv.ParseFloat(f[7], 64); err != nil || r.BatteryKWh < 1 || r.BatteryKWh > 40 || r.Fuel != "plug_in_hybrid" {
				return fmt.Errorf("%s: bad plug-in pack %q", r.Model, f[7])
			}
		}
		v.Electrified = append(v.Electrified, r)
		return nil
	})
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
	brands := map[string]bool{}
	for _, br := range v.Brands {
		brands[br.Slug] = true
	}
	return rowsOf("hybridgearboxes.tsv", b, 6, 8, func(_ int, f []string) error {
		g := HybridGearbox{Brands: strings.Split(f[0], ","), Fuels: strings.Split(f[1], ","), Transmission: f[4], Name: f[6]}
		for _, br := range g.Brands {
			if !brands[br] {
				return fmt.Errorf("unknown brand %q", br)
			}
		}
		for _, fu := range g.Fuels {
			if !IsElectrifiedFuel(fu) {
				return fmt.Errorf("fuel %q: hybrid or plug_in_hybrid", fu)
			}
		}
		var err error
		if g.First, err = optionalYear(f[2], 1997); err != nil || g.First == 0 {
			return fmt.Errorf("bad first year %q", f[2])
		}
		if g.Last, err = optionalYear(f[3], g.First); err != nil {
			return err
		}
		if _, ok := v.EnumValueIndex("transmission", g.Transmission); !ok || g.Transmission == "manual" {
			return fmt.Errorf("transmission %q: automatic, dct, cvt, single_speed or amt", g.Transmission)
		}
		if g.Gears, err = strconv.Atoi(f[5]); err != nil || g.Gears < 1 || g.Gears > 10 {
			return fmt.Errorf("bad gears %q", f[5])
		}
		if _, ok := v.Gearboxes[g.Name]; g.Name != "" && !ok {
			return fmt.Errorf("gearbox %q is not in gearboxes.tsv", g.Name)
		}
		if len(f) > 7 && f[7] != "" {
			for _, m := range strings.Split(f[7], ",") {
				known := false
				for _, br := range g.Brands {
					known = known || slices.ContainsFunc(v.Models, func(ms ModelSeed) bool { return ms.Brand == br && ms.Name == m })
				}
				if !known {
					return fmt.Errorf("unknown nameplate %q of %v", m, g.Brands)
				}
				g.Models = append(g.Models, m)
			}
		}
		v.HybridBoxes = append(v.HybridBoxes, g)
		return nil
	})
}
