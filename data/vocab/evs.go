package vocab

import "fmt"

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
	k := v.known()
	return rowsOf("evs.tsv", b, 7, 7, func(rec *record) {
		e := EVVersion{Brand: rec.f[0], Model: rec.f[1]}
		rec.fail(k.nameplate(e.Brand, e.Model))
		rec.who = e.Model
		e.From, e.To = rec.span(2, "first year", "year", 1990)
		e.BatteryKWh = rec.float(4, "battery", 5, 250)
		e.HP = rec.int(5, "power", 20, 2100)
		e.Drive = rec.text(6, func(d string) error {
			if d != "front" && d != "rear" && d != "all" {
				return fmt.Errorf("drive %q: front, rear or all", d)
			}
			return nil
		})
		if rec.Err() == nil {
			v.EVs = append(v.EVs, e)
		}
	})
}
