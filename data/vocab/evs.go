package vocab

import (
	"fmt"
	"strconv"
)

// EVVersion is one row of evs.tsv: an electric version a nameplate was sold
// with in a span of model years, with its battery, power and driven wheels.
type EVVersion struct {
	Brand, Model string
	From, To     int     // model years; To 0: still on sale
	BatteryKWh   float64 // gross, as the catalogue records it
	HP           int
	Drive        string // front, rear or all
}

// Covers reports whether the version was on sale in model year y.
func (e EVVersion) Covers(y int) bool { return y >= e.From && (e.To == 0 || y <= e.To) }

// EVVersions returns a nameplate's electric versions of model year y: the
// rows covering it, else the rows nearest to it in years (a nameplate
// listed from 2020 drawn in 2019 takes its 2020 versions); nil when the
// nameplate is not listed.
func (v *Vocabulary) EVVersions(brand, model string, y int) []EVVersion {
	var out []EVVersion
	best := -1
	for _, e := range v.EVs {
		if e.Brand != brand || e.Model != model {
			continue
		}
		d := 0
		switch {
		case y < e.From:
			d = e.From - y
		case e.To != 0 && y > e.To:
			d = y - e.To
		}
		switch {
		case best < 0 || d < best:
			best, out = d, []EVVersion{e}
		case d == best:
			out = append(out, e)
		}
	}
	return out
}

// loadEVsFrom parses the content of evs.tsv.
func (v *Vocabulary) loadEVsFrom(b []byte) error {
	models := map[string]bool{}
	for _, m := range v.Models {
		models[m.Brand+"\t"+m.Name] = true
	}
	return rowsOf("evs.tsv", b, 7, 7, func(_ int, f []string) error {
		e := EVVersion{Brand: f[0], Model: f[1], Drive: f[6]}
		if !models[e.Brand+"\t"+e.Model] {
			return fmt.Errorf("unknown nameplate %s %q", e.Brand, e.Model)
		}
		var err error
		if e.From, err = optionalYear(f[2], 1990); err != nil || e.From == 0 {
			return fmt.Errorf("%s: bad first year %q", e.Model, f[2])
		}
		if e.To, err = optionalYear(f[3], e.From); err != nil {
			return fmt.Errorf("%s: %w", e.Model, err)
		}
		if e.BatteryKWh, err = strconv.ParseFloat(f[4], 64); err != nil || !(e.BatteryKWh >= 5 && e.BatteryKWh <= 250) {
			return fmt.Errorf("%s: bad battery %q", e.Model, f[4])
		}
		if e.HP, err = strconv.Atoi(f[5]); err != nil || e.HP < 20 || e.HP > 2100 {
			return fmt.Errorf("%s: bad power %q", e.Model, f[5])
		}
		if e.Drive != "front" && e.Drive != "rear" && e.Drive != "all" {
			return fmt.Errorf("%s: drive %q: front, rear or all", e.Model, e.Drive)
		}
		v.EVs = append(v.EVs, e)
		return nil
	})
}
