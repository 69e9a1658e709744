package vocab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// PowerCodes is one row of powercodes.tsv: the numbers a brand's model
// codes take by power for a fuel in a span of generations.
type PowerCodes struct {
	Brand       string
	Models      []string // nil: every nameplate of the brand without a row of its own
	Fuel        string   // petrol, diesel or plug_in_hybrid
	First, Last int      // generations' first model years; Last 0: still current
	Codes       []PowerCode
}

// PowerCode is a number and the least power (hp) that earns it.
type PowerCode struct{ Number, MinHP int }

// powerCodeFuel is the fuel column a car's fuel takes its numbers from.
func powerCodeFuel(fuel string) string {
	switch fuel {
	case "diesel", "plug_in_hybrid":
		return fuel
	}
	return "petrol"
}

// PowerCode returns the code number of a brand's nameplate of fuel with hp
// in a generation first sold in model year y, from the row naming the
// nameplate, else the brand's row for every nameplate; a plug-in without a
// row takes the petrol number. ok is false when no row covers the car.
func (v *Vocabulary) PowerCode(brand, model, fuel string, y, hp int) (n int, ok bool) {
	find := func(fuel string) *PowerCodes {
		var all *PowerCodes
		for i := range v.PowerCodes {
			r := &v.PowerCodes[i]
			if r.Brand != brand || r.Fuel != fuel || y < r.First || (r.Last != 0 && y > r.Last) {
				continue
			}
			if slices.Contains(r.Models, model) {
				return r
			}
			if r.Models == nil && all == nil {
				all = r
			}
		}
		return all
	}
	f := powerCodeFuel(fuel)
	r := find(f)
	if r == nil && f == "plug_in_hybrid" {
		r = find("petrol")
	}
	if r == nil {
		return 0, false
	}
	n = r.Codes[0].Number
	for _, c := range r.Codes {
		if hp >= c.MinHP {
			n = c.Number
		}
	}
	return n, true
}

// PowerCodeNumbers returns every number a brand's codes use.
func (v *Vocabulary) PowerCodeNumbers(brand string) map[int]bool {
	out := map[int]bool{}
	for _, r := range v.PowerCodes {
		if r.Brand == brand {
			for _, c := range r.Codes {
				out[c.Number] = true
			}
		}
	}
	return out
}

// loadPowerCodesFrom parses the content of powercodes.tsv.
func (v *Vocabulary) loadPowerCodesFrom(b []byte) error {
	k := v.known()
	return rowsOf("powercodes.tsv", b, 6, 6, func(rec *record) {
		f := rec.f
		r := PowerCodes{Brand: rec.text(0, k.brand)}
		if f[1] != "*" {
			r.Models = rec.list(1, func(m string) error { return k.nameplate(r.Brand, m) })
		}
		r.Fuel = rec.text(2, func(fuel string) error {
			if fuel != powerCodeFuel(fuel) {
				return fmt.Errorf("fuel %q: petrol, diesel or plug_in_hybrid", fuel)
			}
			return nil
		})
		r.First, r.Last = rec.span(3, "first year", "year", 1950)
		for i, c := range strings.Split(f[5], ",") {
			num, hp, found := strings.Cut(c, ":")
			var pc PowerCode
			var err error
			pc.Number, err = strconv.Atoi(num)
			if err == nil {
				pc.MinHP, err = strconv.Atoi(hp)
			}
			switch {
			case !found || err != nil || pc.Number < 1 || pc.Number > 999 || pc.MinHP < 0 || pc.MinHP > 2000:
				rec.failf("bad code %q", c)
			case i == 0 && pc.MinHP != 0:
				rec.failf("code %q: the first number starts at 0 hp", c)
			case i > 0 && (pc.MinHP <= r.Codes[i-1].MinHP || pc.Number <= r.Codes[i-1].Number):
				rec.failf("code %q: numbers and powers rise", c)
			}
			r.Codes = append(r.Codes, pc)
		}
		for _, o := range v.PowerCodes {
			overlap := o.Brand == r.Brand && o.Fuel == r.Fuel && slices.Equal(o.Models, r.Models) &&
				(o.Last == 0 || r.First <= o.Last) && (r.Last == 0 || o.First <= r.Last)
			if overlap {
				rec.failf("%s %s from %d overlaps the row from %d", r.Brand, r.Fuel, r.First, o.First)
			}
		}
		if rec.Err() == nil {
			v.PowerCodes = append(v.PowerCodes, r)
		}
	})
}
