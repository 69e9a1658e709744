package vocab

import (
	"math"
	"slices"
)

// PowertrainRule is one row of powertrains.tsv: the fuels, driven wheels and
// power a nameplate (or every nameplate of a brand) was sold with in a span
// of model years. Empty lists and zero bounds mean "the generator's
// defaults".
type PowertrainRule struct {
	Brand, Model string // Model "*": every nameplate of the brand
	From, To     int    // model years; 0: open
	Fuels        []string
	Drives       []string
	HPMin, HPMax int
}

// Covers reports whether the rule applies to model year y.
func (r PowertrainRule) Covers(y int) bool {
	return (r.From == 0 || y >= r.From) && (r.To == 0 || y <= r.To)
}

// Limits are the rules that apply to one nameplate: its own rows, or its
// brand's when it has none.
type Limits []PowertrainRule

// PowertrainLimits returns the rules of a nameplate.
func (v *Vocabulary) PowertrainLimits(brand, model string) Limits {
	var own, all Limits
	for _, r := range v.Powertrains {
		switch {
		case r.Brand == brand && r.Model == model:
			own = append(own, r)
		case r.Brand == brand && r.Model == "*":
			all = append(all, r)
		}
	}
	if own != nil {
		return own
	}
	return all
}

// Fuels returns the fuels allowed in model year y (the union of the rows
// covering it), nil when no row lists fuels for that year.
func (l Limits) Fuels(y int) []string {
	return l.union(y, func(r PowertrainRule) []string { return r.Fuels })
}

// Drives returns the drives allowed in model year y, nil when no row lists
// drives for that year.
func (l Limits) Drives(y int) []string {
	return l.union(y, func(r PowertrainRule) []string { return r.Drives })
}

// HP returns the power range of model year y (the envelope of the rows
// covering it); ok is false when no row gives one.
func (l Limits) HP(y int) (lo, hi int, ok bool) {
	for _, r := range l {
		if r.Covers(y) && r.HPMax != 0 {
			lo, hi, ok = envelope(lo, hi, ok, r.HPMin, r.HPMax)
		}
	}
	return lo, hi, ok
}

// envelope widens the range lo-hi, none when ok is false, to take in
// from-to.
func envelope(lo, hi int, ok bool, from, to int) (int, int, bool) {
	if !ok {
		return from, to, true
	}
	return min(lo, from), max(hi, to), true
}

// FourByFourOnly reports whether every row that names drives allows only
// all-wheel drive (Land Rover, G-Class, Jimny ...).
func (l Limits) FourByFourOnly() bool {
	seen := false
	for _, r := range l {
		if r.Drives == nil {
			continue
		}
		if len(r.Drives) != 1 || r.Drives[0] != "all" {
			return false
		}
		seen = true
	}
	return seen
}

func (l Limits) union(y int, field func(PowertrainRule) []string) []string {
	var out []string
	for _, r := range l {
		if !r.Covers(y) {
			continue
		}
		for _, s := range field(r) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// loadPowertrainsFrom parses the content of powertrains.tsv.
func (v *Vocabulary) loadPowertrainsFrom(b []byte) error {
	k := v.known()
	return rowsOf("powertrains.tsv", b, 5, 8, func(rec *record) {
		f := rec.f
		r := PowertrainRule{Brand: rec.text(0, k.brand), Model: f[1]}
		if r.Model != "*" {
			rec.fail(k.nameplate(r.Brand, r.Model))
		}
		r.From = rec.year(2, "year", 1930, true)
		r.To = rec.year(3, "year", 1930, true)
		rec.who = r.Model
		if r.To != 0 && r.To < r.From {
			rec.failf("to %d before from %d", r.To, r.From)
		}
		r.Fuels = rec.optList(4, k.enum("fuel"))
		r.Drives = rec.optList(5, k.enum("drive"))
		if f[6] != "" || f[7] != "" {
			r.HPMin, r.HPMax = rec.intRange(6, "power range", 1, math.MaxInt)
		}
		if rec.Err() == nil {
			v.Powertrains = append(v.Powertrains, r)
		}
	})
}
