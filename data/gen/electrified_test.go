package gen

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vspec/catalogue/data/vocab"
)

// electrifiedRules are issue 16's checks of full and plug-in hybrids
// against electrified.tsv and hybridgearboxes.tsv: the years a nameplate
// had them, their system power and the gearbox their brand gave them.
var electrifiedRules = []rule[ptFacts]{
	tablePTRule(rule[ptFacts]{"full hybrid in years the nameplate had none (electrified.tsv)", func(f *ptFacts) string {
		return outsideElectrifiedYears(f, "hybrid", "hybrid")
	}}),
	tablePTRule(rule[ptFacts]{"plug-in hybrid in years the nameplate had none (electrified.tsv)", func(f *ptFacts) string {
		return outsideElectrifiedYears(f, "plug_in_hybrid", "phev")
	}}),
	tablePTRule(rule[ptFacts]{"hybrid system power outside the nameplate's hybrid range", func(f *ptFacts) string {
		if !vocab.IsElectrifiedFuel(f.fuel) || f.hp == 0 {
			return ""
		}
		listed, inside := false, false
		for y := f.from; y <= f.to; y++ {
			if lo, hi, ok := f.electrified.HP(f.fuel, y); ok {
				listed = true
				inside = inside || (f.hp >= float64(lo)-1 && f.hp <= float64(hi)+1)
			}
		}
		if listed && !inside {
			return fmt.Sprintf("%s %.0f hp in %d-%d", f.fuel, f.hp, f.from, f.to)
		}
		return ""
	}}),
	tablePTRule(rule[ptFacts]{"hybrid gearbox its brand never fitted (hybridgearboxes.tsv)", func(f *ptFacts) string {
		if !vocab.IsElectrifiedFuel(f.fuel) {
			return ""
		}
		listed := false
		for y := f.from; y <= f.to; y++ {
			for _, b := range f.v.HybridGearboxes(f.brand, f.model, f.fuel, y) {
				listed = true
				if b.Transmission == f.transmission {
					return ""
				}
			}
		}
		if listed {
			return fmt.Sprintf("%s %s in %d-%d", f.fuel, f.transmission, f.from, f.to)
		}
		return ""
	}}),
	tablePTRule(rule[ptFacts]{"full or plug-in hybrid's engine not one of its brand's hybrid engines (engines.tsv)", func(f *ptFacts) string {
		if !vocab.IsElectrifiedFuel(f.fuel) || f.dispCC == 0 {
			return ""
		}
		if f.families == nil {
			// Brands without engine families: no hybrid has a city car's
			// engine (the smallest, Honda's and Toyota's, are listed).
			if f.dispCC < minHybridCC {
				return fmt.Sprintf("%d cc", f.dispCC)
			}
			return ""
		}
		kind := "hybrid"
		if !slices.ContainsFunc(f.families, func(e *vocab.EngineFamily) bool { return e.Fuel == "hybrid" }) {
			kind = "petrol"
		}
		for _, e := range f.families {
			if e.Fuel == kind && e.CC == f.dispCC && (f.cylinders == 0 || e.Cylinders == f.cylinders) && f.anyYear(e.Covers) {
				return ""
			}
		}
		return fmt.Sprintf("%d cc, %d cylinders in %d-%d", f.dispCC, f.cylinders, f.from, f.to)
	}}),
	tablePTRule(rule[ptFacts]{"mild hybrid of a brand whose mild-hybrid engines engines.tsv does not list", func(f *ptFacts) string {
		if f.fuel != "mild_hybrid" || f.families == nil || vocab.FamilyKind(f.fuel, f.families) == "mild_hybrid" {
			return ""
		}
		return fmt.Sprintf("mild hybrid in %d-%d", f.from, f.to)
	}}),
	{"gearbox name contradicts the transmission", func(f *ptFacts) string {
		rest := " " + strings.TrimPrefix(f.name, f.model) + " "
		for word, kind := range gearboxKinds {
			if strings.Contains(rest, " "+word+" ") && kind != f.transmission {
				return fmt.Sprintf("%q on a %s gearbox", word, f.transmission)
			}
		}
		return ""
	}},
}

// minHybridCC is the smallest engine of a full or plug-in hybrid of a
// brand engines.tsv does not list (Honda's 1.3 IMA; the 1.0 of the first
// Insight and BMW's i3 range extender are listed).
const minHybridCC = 1300

// gearboxKinds are the gearbox names that say what kind of gearbox they are.
var gearboxKinds = map[string]string{
	"DCT": "dct", "DSG": "dct", "S tronic": "dct", "PDK": "dct", "EDC": "dct", "PowerShift": "dct", "7G-DCT": "dct", "8G-DCT": "dct",
	"CVT": "cvt", "e-CVT": "cvt", "Lineartronic": "cvt", "AGS": "amt", "ETG6": "amt",
}

// outsideElectrifiedYears is the violation of a variant of fuel on a
// nameplate that electrified.tsv gives no such version in any year of
// its generation; class is the powertrain class dedicated to that fuel.
func outsideElectrifiedYears(f *ptFacts, fuel, class string) string {
	if f.fuel != fuel || f.seed.Powertrain == class {
		return ""
	}
	if f.anyYear(func(y int) bool { _, _, ok := f.electrified.HP(fuel, y); return ok }) {
		return ""
	}
	var years []string
	for _, r := range f.electrified {
		if r.Fuel == fuel {
			years = append(years, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	return fmt.Sprintf("%s in %d-%d (listed: %s)", fuel, f.from, f.to, strings.Join(years, ", "))
}

// TestElectrifiedInvariants checks the hybrid rules on every variant of the
// full catalogue, the demo set's included.
func TestElectrifiedInvariants(t *testing.T) {
	facts, _ := collectPTFacts(full(t))
	checkRules(t, electrifiedRules, facts, (*ptFacts).label, nil)
}

// TestElectrifiedRulesCatch feeds each rule a known-good and a known-bad
// variant, so none passes by being unable to fail.
func TestElectrifiedRulesCatch(t *testing.T) {
	v := vocab.Default()
	car := func(brand, model, fuel, box string, hp float64, from, to int, name string) ptFacts {
		return ptFacts{brand: brand, model: model, seed: nameplate(t, v, brand, model), fuel: fuel, hp: hp, from: from, to: to,
			transmission: box, name: model + " " + name, electrified: v.ElectrifiedFor(brand, model), v: v}
	}
	withEngine := func(f ptFacts, cc, cyl int) ptFacts {
		f.dispCC, f.cylinders, f.families = cc, cyl, v.EngineFamiliesFor(f.brand, f.model)
		return f
	}
	rule := func(name string) func(*ptFacts) string {
		for _, r := range electrifiedRules {
			if strings.HasPrefix(r.name, name) {
				return r.bad
			}
		}
		t.Fatalf("no rule %q", name)
		return nil
	}
	for _, c := range []struct {
		rule string
		f    ptFacts
		bad  bool
	}{
		{"plug-in", car("toyota", "RAV4", "plug_in_hybrid", "cvt", 306, 2012, 2015, "2.5 Plug-in Hybrid 306 e-CVT"), true},
		{"plug-in", car("toyota", "RAV4", "plug_in_hybrid", "cvt", 306, 2018, 2025, "2.5 Plug-in Hybrid 306 e-CVT"), false},
		{"plug-in", car("toyota", "Yaris Cross", "plug_in_hybrid", "cvt", 130, 2021, 2024, "1.5 Plug-in Hybrid 130 e-CVT"), true},
		{"full hybrid", car("volvo", "XC60", "hybrid", "automatic", 250, 2017, 2021, "T5 Hybrid"), true},
		{"full hybrid", car("toyota", "Prius", "hybrid", "cvt", 122, 2016, 2022, "1.8 Hybrid 122 e-CVT"), false},
		{"hybrid system power", car("bmw", "3 Series", "plug_in_hybrid", "automatic", 373, 2019, 2022, "330e Steptronic"), true},
		{"hybrid system power", car("bmw", "3 Series", "plug_in_hybrid", "automatic", 292, 2019, 2022, "330e Steptronic"), false},
		{"hybrid gearbox", car("toyota", "C-HR", "hybrid", "dct", 184, 2016, 2019, "2.0 Hybrid 184 DCT"), true},
		{"hybrid gearbox", car("toyota", "C-HR", "hybrid", "cvt", 184, 2016, 2019, "2.0 Hybrid 184 e-CVT"), false},
		{"gearbox name", car("toyota", "C-HR", "hybrid", "cvt", 184, 2016, 2019, "2.0 Hybrid 184 DCT Active"), true},
		{"full or plug-in", withEngine(car("honda", "Civic", "hybrid", "cvt", 184, 2022, 2025, "1.0 e:HEV 184"), 999, 3), true},
		{"full or plug-in", withEngine(car("honda", "Civic", "hybrid", "cvt", 184, 2022, 2025, "2.0 e:HEV 184"), 1993, 4), false},
		{"full or plug-in", withEngine(car("genesis", "G80", "hybrid", "automatic", 184, 2022, 2025, "1.0 Hybrid 184"), 999, 3), true},
		{"gearbox name", car("volkswagen", "Golf", "petrol", "automatic", 150, 2016, 2019, "1.5 TSI 150 DSG Style"), true},
		{"gearbox name", car("volkswagen", "Golf", "petrol", "dct", 150, 2016, 2019, "1.5 TSI 150 DSG Style"), false},
		{"mild hybrid", withEngine(car("honda", "Jazz", "mild_hybrid", "manual", 90, 2008, 2011, "1.2 Hybrid 90"), 1198, 4), true},
		{"mild hybrid", withEngine(car("volkswagen", "Golf", "mild_hybrid", "dct", 150, 2020, 2024, "1.5 eTSI 150 DSG"), 1498, 4), false},
	} {
		if got := rule(c.rule)(&c.f) != ""; got != c.bad {
			t.Errorf("%s on %s %q %d-%d: bad=%v, want %v", c.rule, c.f.brand, c.f.name, c.f.from, c.f.to, got, c.bad)
		}
	}
	if !slices.ContainsFunc(v.HybridGearboxes("toyota", "C-HR", "hybrid", 2020), func(b *vocab.HybridGearbox) bool { return b.Name == "e-CVT" }) {
		t.Error("a 2020 Toyota hybrid has no e-CVT in hybridgearboxes.tsv")
	}
}
