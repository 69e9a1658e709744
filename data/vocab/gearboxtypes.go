package vocab

import (
	"fmt"
	"slices"
	"strings"
)

// GearboxType is one row of gearboxtypes.tsv: a kind of gearbox (dct, cvt
// or amt) brands fitted in a span of model years.
type GearboxType struct {
	Brands       []string
	Transmission string
	Fuels        []string // nil: every fuel
	First, Last  int      // Last 0: still fitted
	Models       []string // nil: every nameplate of the brands
	Except       []string // the brands' nameplates that never had it
}

// GovernedTransmission reports whether gearboxtypes.tsv decides where a
// transmission was fitted: a DCT, a CVT or an automated manual (a manual,
// a torque-converter automatic and an EV's single speed are everyone's).
func GovernedTransmission(t string) bool { return t == "dct" || t == "cvt" || t == "amt" }

// Covers reports whether the row lets a brand's nameplate of fuel have
// its transmission in model year y.
func (g *GearboxType) Covers(brand, model, fuel string, y int) bool {
	return slices.Contains(g.Brands, brand) && (g.Fuels == nil || slices.Contains(g.Fuels, fuel)) &&
		y >= g.First && (g.Last == 0 || y <= g.Last) && (g.Models == nil || slices.Contains(g.Models, model)) &&
		!slices.Contains(g.Except, model)
}

// Fitted reports whether the brand fitted transmission to the nameplate
// with fuel in model year y: always for the kinds gearboxtypes.tsv does not
// govern, else when one of its rows covers the car.
func (v *Vocabulary) Fitted(brand, model, fuel, transmission string, y int) bool {
	if !GovernedTransmission(transmission) {
		return true
	}
	for i := range v.GearboxTypes {
		if g := &v.GearboxTypes[i]; g.Transmission == transmission && g.Covers(brand, model, fuel, y) {
			return true
		}
	}
	return false
}

// loadGearboxTypesFrom parses the content of gearboxtypes.tsv.
func (v *Vocabulary) loadGearboxTypesFrom(b []byte) error {
	k := v.known()
	return rowsOf("gearboxtypes.tsv", b, 4, 6, func(rec *record) {
		g := GearboxType{Brands: rec.list(0, k.brand)}
		g.Transmission = rec.text(1, func(t string) error {
			if !GovernedTransmission(t) {
				return fmt.Errorf("transmission %q: dct, cvt or amt", t)
			}
			return nil
		})
		g.Fuels = rec.optList(2, k.enum("fuel"))
		g.First, g.Last = rec.span(3, "first year", "year", 1950)
		// A nameplate that never had it is written "!name".
		nameplate := k.nameplateOf(g.Brands)
		for _, m := range rec.optList(5, func(m string) error { return nameplate(strings.TrimPrefix(m, "!")) }) {
			if m, except := strings.CutPrefix(m, "!"); except {
				g.Except = append(g.Except, m)
			} else {
				g.Models = append(g.Models, m)
			}
		}
		if g.Models != nil && g.Except != nil {
			rec.failf("models %q: either the nameplates that had it or those that did not", rec.f[5])
		}
		if rec.Err() == nil {
			v.GearboxTypes = append(v.GearboxTypes, g)
		}
	})
}
