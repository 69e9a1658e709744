package gen

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

// demoSet is a small catalogue: its demo set is the full catalogue's
// (TestDemoFrozen checks that), at a fraction of the generation time.
func demoSet(t *testing.T) *dataset.Set {
	t.Helper()
	s, err := Generate(vocab.Default(), Options{Scale: 0.01, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// demoCarByName finds the table row of a demo variant.
func demoCarByName(model, gen, name string) *DemoCar {
	for _, m := range DemoModels {
		if m.Model != model {
			continue
		}
		for _, pair := range m.Cars {
			for _, c := range pair {
				if c.Generation == gen && c.Name == name {
					return c
				}
			}
		}
	}
	return nil
}

// TestDemoCoverage checks what issue 16 asks of the hand-picked set: all 10
// fuels, at least 7 body types with an estate, an MPV and a convertible, a
// French, Italian or Czech make, a Chinese or Korean one and a budget one.
func TestDemoCoverage(t *testing.T) {
	s := demoSet(t)
	v := s.Vocab
	fuels, bodies := map[string]int{}, map[string]int{}
	countries := map[string]bool{}
	budget := false
	for _, row := range s.Demo {
		vr := &s.Variants[row]
		fuels[v.Enums[mustEnum(v, "fuel")].Values[vr.Fuel].Slug]++
		bodies[v.Enums[mustEnum(v, "body")].Values[vr.Body].Slug]++
		b := &s.Brands[s.Models[s.Generations[vr.Generation].Model].Brand]
		countries[b.Country] = true
		budget = budget || budgetBrand[b.Slug]
	}
	t.Logf("fuels %v\nbodies %v\ncountries %v", fuels, bodies, countries)
	for _, f := range v.Enums[mustEnum(v, "fuel")].Values {
		if fuels[f.Slug] == 0 {
			t.Errorf("no demo car runs on %s", f.Slug)
		}
	}
	if len(bodies) < 7 {
		t.Errorf("%d body types, want at least 7", len(bodies))
	}
	for _, b := range []string{"estate", "mpv", "convertible"} {
		if bodies[b] == 0 {
			t.Errorf("no %s in the demo set", b)
		}
	}
	if !countries["FR"] && !countries["IT"] && !countries["CZ"] {
		t.Error("no French, Italian or Czech make")
	}
	if !countries["CN"] && !countries["KR"] {
		t.Error("no Chinese or Korean make")
	}
	if !budget {
		t.Error("no budget make")
	}
}

// TestDemoCarsPassEveryRule runs every editor and naming rule on the 40 demo
// cars: a hand-picked car must be as right as the generator's.
func TestDemoCarsPassEveryRule(t *testing.T) {
	s := demoSet(t)
	facts := collectFacts(t, s)
	rules := append(append(append([]editorRule(nil), editorRules...), nameRules...), lineupRules...)
	n := 0
	for _, row := range s.Demo {
		f := &facts[row]
		for _, rule := range rules {
			if why := rule.bad(f); why != "" {
				n++
				t.Errorf("%s (%d): %s: %s", f.name, f.year, rule.name, why)
			}
		}
	}
	t.Logf("%d rules on %d demo cars, %d violations", len(rules), len(s.Demo), n)
}

// TestDemoCarsCarryTheirFigures checks that each demo variant serves the
// published figures of its table row, with full confidence, in its real
// generation.
func TestDemoCarsCarryTheirFigures(t *testing.T) {
	s := demoSet(t)
	v := s.Vocab
	enum := func(group string, code uint8) string { return v.Enums[mustEnum(v, group)].Values[code].Slug }
	seen := map[*DemoCar]bool{}
	for _, row := range s.Demo {
		vr := &s.Variants[row]
		g := &s.Generations[vr.Generation]
		m := &s.Models[g.Model]
		d := demoCarByName(m.Name, g.Name, vr.Name)
		if d == nil {
			t.Errorf("demo variant %q of %s %s is in no table row", vr.Name, m.Name, g.Name)
			continue
		}
		seen[d] = true
		check := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 0.5 {
				t.Errorf("%s: %s = %v, want %v", d.Name, what, got, want)
			}
		}
		if fuel := enum("fuel", vr.Fuel); fuel != d.Fuel || enum("drive", vr.Drive) != d.Drive || enum("transmission", vr.Transmission) != d.Gearbox {
			t.Errorf("%s: %s/%s/%s, want %s/%s/%s", d.Name, fuel, enum("drive", vr.Drive), enum("transmission", vr.Transmission), d.Fuel, d.Drive, d.Gearbox)
		}
		if int(g.YearStart) > d.Year || (g.YearEnd != 0 && int(g.YearEnd) < d.Year) {
			t.Errorf("%s: model year %d outside its generation %d-%d", d.Name, d.Year, g.YearStart, g.YearEnd)
		}
		sp := map[string]int32{}
		for j := vr.SpecStart; j < vr.SpecEnd; j++ {
			key := v.Specs[s.SpecKey[j]].Key
			sp[key] = s.SpecVal[j]
			if demoPublished[key] && s.SpecConf[j] != 0 {
				t.Errorf("%s: published %s at confidence %d%%", d.Name, key, s.SpecConf[j])
			}
		}
		must := func(key string) float64 {
			t.Helper()
			x, ok := sp[key]
			if !ok {
				t.Errorf("%s: no %s", d.Name, key)
			}
			return float64(x)
		}
		check("power_kw", must("power_kw"), d.KW)
		// The maker's PS, as its line-up row states it (130 PS is 96 kW).
		if hp := must("power_hp"); math.Abs(hp-d.KW*1.35962) > 1.5 {
			t.Errorf("%s: power_hp = %v for %v kW", d.Name, hp, d.KW)
		}
		check("torque_nm", must("torque_nm"), d.TorqueNM)
		check("curb_weight_kg", must("curb_weight_kg"), d.KerbKG)
		check("accel_0_100_s x10", must("accel_0_100_s"), d.Accel*10)
		check("top_speed_kmh", must("top_speed_kmh"), d.TopSpeed)
		check("length_mm", must("length_mm"), d.Length)
		check("width_mm", must("width_mm"), d.Width)
		check("height_mm", must("height_mm"), d.Height)
		check("wheelbase_mm", must("wheelbase_mm"), d.Wheel)
		check("seats", must("seats"), float64(d.Seats))
		check("doors", must("doors"), float64(d.Doors))
		if d.PriceNL > 0 {
			check("price", float64(vr.PriceEUR), d.PriceNL)
		}
		if !vr.HasPrice || vr.PriceEUR <= 0 {
			t.Errorf("%s: no Dutch price", d.Name)
		}
		// The catalogue records the figures of the model year's cycle:
		// NEDC before 2018 (the table's WLTP equivalents brought back to
		// it), WLTP from 2018.
		nedc := d.Year < 2018
		switch d.Fuel {
		case "electric":
			check("battery_kwh x10", must("battery_kwh"), d.BatteryKWh*10)
			if nedc {
				check("range_nedc_km", must("range_nedc_km"), math.Round(d.RangeKM/wltpRangeRatio))
			} else {
				check("range_wltp_km", must("range_wltp_km"), d.RangeKM)
				check("energy x10", must("energy_wltp_kwh_100km"), d.EnergyKWh100*10)
				check("co2", must("co2_wltp_g_km"), 0)
			}
			check("dc_charge_kw", float64(sp["dc_charge_kw"]), d.DCKW)
		case "plug_in_hybrid":
			check("battery_kwh x10", must("battery_kwh"), d.BatteryKWh*10)
			check("electric_range_km", must("electric_range_km"), d.RangeKM)
			check("displacement_cc", must("displacement_cc"), float64(d.CC))
			if !nedc {
				weighted := math.Max(0.3, roundTo(d.Consumption*(1-phevUtility(d.RangeKM)), 0.1))
				check("weighted l/100 km x10", must("fuel_wltp_l_100km"), weighted*10)
			}
		case "hydrogen":
			check("kg H2/100 km x10", must("gas_wltp_kg_100km"), math.Round(d.Consumption*10))
			check("co2", must("co2_wltp_g_km"), 0)
		default:
			check("displacement_cc", must("displacement_cc"), float64(d.CC))
			check("cylinders", must("cylinders"), float64(d.Cylinders))
			if nedc {
				check("co2 NEDC", must("co2_nedc_g_km"), math.Round(d.CO2*nedcRatio))
				break
			}
			check("co2", must("co2_wltp_g_km"), d.CO2)
			if d.Fuel == "cng" {
				check("kg CNG/100 km x10", must("gas_wltp_kg_100km"), d.Consumption*10)
			} else {
				check("l/100 km x10", must("fuel_wltp_l_100km"), d.Consumption*10)
			}
		}
	}
	if len(seen) != 40 {
		t.Errorf("%d of the 40 table rows are in the demo set", len(seen))
	}
}

// TestDemoGenerationsAreReal checks that every generation of a demo model is
// the table's, with its name and years, in the full catalogue.
func TestDemoGenerationsAreReal(t *testing.T) {
	s := demoSet(t)
	for _, dm := range DemoModels {
		var got []string
		for _, g := range s.Generations {
			m := &s.Models[g.Model]
			if m.Name == dm.Model && s.Brands[m.Brand].Slug == dm.Brand {
				got = append(got, fmt.Sprintf("%s %d-%d", g.Name, g.YearStart, g.YearEnd))
			}
		}
		var want []string
		for _, g := range dm.Generations[len(dm.Generations)-2:] { // a small catalogue keeps the demo two
			want = append(want, fmt.Sprintf("%s %d-%d", g.Name, g.Start, g.End))
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s %s: generations %q, want %q", dm.Brand, dm.Model, got, want)
		}
	}
	full := full(t)
	n := 0
	for _, dm := range DemoModels {
		for _, g := range full.Generations {
			m := &full.Models[g.Model]
			if m.Name == dm.Model && full.Brands[m.Brand].Slug == dm.Brand {
				n++
			}
		}
	}
	want := 0
	for _, dm := range DemoModels {
		want += len(dm.Generations)
	}
	if n != want {
		t.Errorf("the full catalogue has %d generations of the demo models, the table %d", n, want)
	}
}

// TestParseDemoRejects checks that a malformed table row is refused with a
// message naming it, never misread.
func TestParseDemoRejects(t *testing.T) {
	row := strings.Split(strings.TrimSpace(demoRow(t)), "\t")
	set := func(col int, val string) string {
		r := append([]string(nil), row...)
		r[col] = val
		return strings.Join(r, "\t")
	}
	cases := map[string]string{
		"short row":          strings.Join(row[:10], "\t"),
		"bad number":         set(8, "12x"),
		"negative":           set(21, "-5"),
		"NaN":                set(9, "NaN"),
		"no power":           set(8, "0"),
		"not its generation": set(1, "Kuga IX"),
		"name not the model": set(2, "Escape 1.5"),
		"no consumption":     set(19, ""),
	}
	for what, bad := range cases {
		if _, err := parseDemo(demoGenerationsTSV, demoCarsTSV+bad+"\n"); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
	// A third car for a generation.
	if _, err := parseDemo(demoGenerationsTSV, demoCarsTSV+demoRow(t)); err == nil || !strings.Contains(err.Error(), "third car") {
		t.Errorf("a third car: %v", err)
	}
	if _, err := parseDemo(demoGenerationsTSV, demoCarsTSV); err != nil {
		t.Fatal(err)
	}
}

// demoRow is the first car row of the table.
func demoRow(t *testing.T) string {
	for _, line := range strings.Split(demoCarsTSV, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "model\t") {
			return line + "\n"
		}
	}
	t.Fatal("no car rows")
	return ""
}

// FuzzParseDemoCar feeds arbitrary rows to the car parser: it returns a car
// or an error, never panics, and never accepts a car without its required
// figures.
func FuzzParseDemoCar(f *testing.F) {
	for _, line := range strings.Split(demoCarsTSV, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			f.Add(line)
		}
	}
	f.Add("ford/Kuga\tKuga III\tKuga x")
	f.Add(strings.Repeat("\t", demoCarFields-1))
	f.Fuzz(func(t *testing.T, line string) {
		c, err := parseDemoCar(strings.Split(line, "\t"))
		if err != nil {
			return
		}
		if c.KW <= 0 || c.KerbKG <= 0 || c.Accel <= 0 || math.IsNaN(c.KW) || math.IsInf(c.KerbKG, 0) {
			t.Fatalf("accepted %q as %+v", line, c)
		}
	})
}
