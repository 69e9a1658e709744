package gen

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

var update = flag.Bool("update", false, "rewrite golden files")

var fullSet = sync.OnceValues(func() (*dataset.Set, error) { return Generate(vocab.Default(), Options{}) })

// full returns the full catalogue at the default seed, generated once.
func full(t testing.TB) *dataset.Set {
	t.Helper()
	s, err := fullSet()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFullCounts(t *testing.T) {
	s := full(t)
	// The variants are what the generations' line-ups hold: within 5 % of
	// the contract's size, never padded with invented versions to reach it.
	if len(s.Models) != FullModels || len(s.Generations) != FullGenerations || math.Abs(float64(len(s.Variants))/FullVariants-1) > 0.05 {
		t.Fatalf("%d models, %d generations, %d variants; want %d, %d, %d (within 5 %%)",
			len(s.Models), len(s.Generations), len(s.Variants), FullModels, FullGenerations, FullVariants)
	}
	t.Logf("%d variants (%+.2f %% of %d)", len(s.Variants), 100*(float64(len(s.Variants))/FullVariants-1), FullVariants)
	if len(s.Brands) < 100 {
		t.Errorf("%d brands, want at least 100", len(s.Brands))
	}
	avg := float64(len(s.SpecKey)) / float64(len(s.Variants))
	if avg < 140 || avg > 165 {
		t.Errorf("%.1f spec values per variant, want about 150", avg)
	}
}

func TestScaledCounts(t *testing.T) {
	for _, scale := range []float64{0.001, 0.01, 0.05} {
		s, err := Generate(vocab.Default(), Options{Scale: scale, Seed: 7})
		if err != nil {
			t.Fatalf("scale %v: %v", scale, err)
		}
		m, g, v := Targets(scale)
		// The variants are what the line-ups hold: the few models of a
		// tiny catalogue may hold a little less than its share (never
		// an invented version to fill it).
		if len(s.Models) != m || len(s.Generations) < g || float64(len(s.Variants)) < 0.9*float64(v) {
			t.Errorf("scale %v: %d/%d/%d, want %d/%d+/%d+", scale, len(s.Models), len(s.Generations), len(s.Variants), m, g, v)
		}
		// Demo models keep all their generations, a floor that small
		// scales stay above.
		if scale >= 0.05 && (len(s.Generations) != g || len(s.Variants) != v) {
			t.Errorf("scale %v: %d generations and %d variants, want exactly %d and %d", scale, len(s.Generations), len(s.Variants), g, v)
		}
		if len(s.Demo) != 40 {
			t.Errorf("scale %v: demo has %d variants", scale, len(s.Demo))
		}
	}
}

// specs returns a map of a variant's values by key.
func specs(s *dataset.Set, row int) map[string]int32 {
	m := map[string]int32{}
	v := &s.Variants[row]
	for j := v.SpecStart; j < v.SpecEnd; j++ {
		m[s.Vocab.Specs[s.SpecKey[j]].Key] = s.SpecVal[j]
	}
	return m
}

// TestCoherence checks the physical rules on every variant of the full catalogue.
func TestCoherence(t *testing.T) {
	s := full(t)
	v := s.Vocab
	fuelEnum, _ := v.EnumIndex("fuel")
	fuel := func(code uint8) string { return v.Enums[fuelEnum].Values[code].Slug }
	errs := 0
	fail := func(row int, format string, args ...any) {
		errs++
		if errs <= 20 || os.Getenv("COHERENCE_ALL") != "" {
			t.Errorf("variant %d %q: %s", s.Variants[row].ID, s.Variants[row].Name, fmt.Sprintf(format, args...))
		}
	}
	empty := 0
	for row := range s.Variants {
		vr := &s.Variants[row]
		sp := specs(s, row)
		if len(sp) == 0 {
			empty++
			if vr.PowerHP != dataset.Null {
				fail(row, "no specs but a power figure")
			}
			continue
		}
		f := fuel(vr.Fuel)
		has := func(k string) bool { _, ok := sp[k]; return ok }
		if kw, ok := sp["power_kw"]; ok {
			// The maker's PS and kW each rounded (130 PS is 96 kW, 131
			// PS): they agree within one PS.
			if hp, ok := sp["power_hp"]; ok && math.Abs(float64(hp)-float64(kw)*1.35962) > 1.5 {
				fail(row, "power_hp %d does not agree with power_kw %d", hp, kw)
			}
		}
		if hp, ok := sp["power_hp"]; ok != (vr.PowerHP != dataset.Null) || (ok && hp != vr.PowerHP) {
			fail(row, "summary power_hp %d does not mirror the spec %d", vr.PowerHP, hp)
		}
		switch f {
		case "electric":
			if !has("battery_kwh") || !(has("range_wltp_km") || has("range_nedc_km")) {
				fail(row, "EV without battery and range")
			}
			for _, k := range []string{"fuel_wltp_l_100km", "fuel_nedc_l_100km", "displacement_cc", "fuel_tank_l"} {
				if has(k) {
					fail(row, "EV with %s", k)
				}
			}
			if co2, ok := sp["co2_wltp_g_km"]; ok && co2 != 0 {
				fail(row, "EV emits %d g/km", co2)
			}
		case "plug_in_hybrid":
			if !has("battery_kwh") || !has("electric_range_km") || !has("displacement_cc") ||
				!(has("fuel_wltp_l_100km") || has("fuel_nedc_l_100km")) {
				fail(row, "PHEV without battery, electric range, displacement and fuel consumption")
			}
		case "hydrogen":
			if has("displacement_cc") || has("battery_kwh") {
				fail(row, "FCEV with displacement or traction battery")
			}
		default:
			if has("battery_kwh") || has("range_wltp_km") {
				fail(row, "combustion car with a traction battery")
			}
			if !has("displacement_cc") || !(has("co2_wltp_g_km") || has("co2_nedc_g_km")) ||
				!(has("fuel_wltp_l_100km") || has("fuel_nedc_l_100km") || has("gas_wltp_kg_100km")) {
				fail(row, "combustion car without displacement, consumption and CO2")
			}
			if c, ok := sp["fuel_wltp_l_100km"]; ok && (c < 20 || c > 300) {
				fail(row, "implausible consumption %.1f l/100 km", float64(c)/10)
			}
			if co2, ok := sp["co2_wltp_g_km"]; ok && f != "plug_in_hybrid" {
				if c, ok := sp["fuel_wltp_l_100km"]; ok && (co2 < c*1 || co2 > c*3) {
					fail(row, "CO2 %d g/km does not fit %.1f l/100 km", co2, float64(c)/10)
				}
			}
		}
		if a, ok := sp["accel_0_100_s"]; ok && (a < 19 || a > 400) {
			fail(row, "0-100 in %.1f s", float64(a)/10)
		}
		if ts, ok := sp["top_speed_kmh"]; ok && (ts < 45 || ts > 450) { // quadricycles: 45 km/h
			fail(row, "top speed %d km/h", ts)
		}
		if l, ok := sp["length_mm"]; ok && (l < 2300 || l > 6500) {
			fail(row, "length %d mm", l)
		}
		if w, ok := sp["curb_weight_kg"]; ok && (w < 450 || w > 4200) {
			fail(row, "weight %d kg", w)
		}
		if h, ok := sp["height_mm"]; ok {
			body := v.Enums[v.MustEnumValue("fuel", "petrol")*0+mustEnum(v, "body")].Values[vr.Body].Slug
			if body == "roadster" && h > 1450 || body == "suv" && h < 1450 || body == "van" && h < 1650 {
				fail(row, "a %s %d mm tall", body, h)
			}
		}
		if gw, ok := sp["gross_weight_kg"]; ok {
			if cw, ok := sp["curb_weight_kg"]; ok && gw <= cw {
				fail(row, "gross weight %d not above curb weight %d", gw, cw)
			}
		}
	}
	if empty == 0 || empty > len(s.Variants)/200 {
		t.Errorf("%d variants without specs, want a few", empty)
	}
	if errs > 0 {
		t.Errorf("%d coherence failures", errs)
	}
}

func mustEnum(v *vocab.Vocabulary, k string) int {
	i, _ := v.EnumIndex(k)
	return i
}

// TestPerformanceFitsPower checks that acceleration improves with power per kg.
func TestPerformanceFitsPower(t *testing.T) {
	s := full(t)
	var x, y []float64
	for row := 0; row < len(s.Variants); row += 7 {
		sp := specs(s, row)
		kw, ok1 := sp["power_kw"]
		w, ok2 := sp["curb_weight_kg"]
		a, ok3 := sp["accel_0_100_s"]
		if ok1 && ok2 && ok3 {
			x = append(x, math.Log(float64(w)/float64(kw)))
			y = append(y, math.Log(float64(a)))
		}
	}
	if r := correlation(x, y); r < 0.9 {
		t.Errorf("correlation of log(kg/kW) and log(0-100 time) is %.3f, want > 0.9", r)
	}
}

func correlation(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, syy, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		syy += y[i] * y[i]
		sxy += x[i] * y[i]
	}
	return (n*sxy - sx*sy) / math.Sqrt((n*sxx-sx*sx)*(n*syy-sy*sy))
}

func TestDistributions(t *testing.T) {
	s := full(t)
	uncertain := 0
	for _, c := range s.SpecConf {
		if c != 0 {
			if c >= 100 {
				t.Fatalf("confidence %d%%", c)
			}
			uncertain++
		}
	}
	if share := float64(uncertain) / float64(len(s.SpecConf)); share < 0.05 || share > 0.15 {
		t.Errorf("%.1f%% of values carry a confidence, want 5-15%%", 100*share)
	}
	noPrice, zero := 0, 0
	photosOf := map[[2]uint32]string{}
	for i := range s.Variants {
		vr := &s.Variants[i]
		// A hero and 3 to 9 cards, the photographs of the generation's body
		// style: every variant of a generation with that body has the same.
		n := vr.ImageEnd - vr.ImageStart
		if n < 4 || n > 10 || s.ImageRole[vr.ImageStart] != dataset.RoleHero {
			t.Fatalf("variant %d has %d images, the first of role %d", vr.ID, n, s.ImageRole[vr.ImageStart])
		}
		key := [2]uint32{vr.Generation, uint32(vr.Body)}
		imgs := fmt.Sprint(s.ImageKey[vr.ImageStart:vr.ImageEnd], s.ImageRole[vr.ImageStart:vr.ImageEnd])
		if prev, ok := photosOf[key]; ok && prev != imgs {
			t.Fatalf("variant %d: images %s, another of its generation and body has %s", vr.ID, imgs, prev)
		}
		photosOf[key] = imgs
		if !vr.HasPrice {
			noPrice++
		} else if vr.PriceEUR == 0 {
			zero++
		}
	}
	if noPrice == 0 || noPrice > len(s.Variants)/5 {
		t.Errorf("%d variants without a price snapshot, want some but not most", noPrice)
	}
	if zero == 0 || zero > len(s.Variants)/50 {
		t.Errorf("%d snapshots with price 0, want a few", zero)
	}
	roles := map[uint8]int{}
	for _, r := range s.ImageRole {
		roles[r]++
	}
	if roles[dataset.RoleCard] == 0 || roles[dataset.RoleHero] == 0 {
		t.Errorf("image roles %v, want both card and hero", roles)
	}
	fuels := map[uint8]int{}
	for i := range s.Variants {
		fuels[s.Variants[i].Fuel]++
	}
	if len(fuels) != 10 {
		t.Errorf("%d fuels present, want 10", len(fuels))
	}
}

func TestHierarchy(t *testing.T) {
	s := full(t)
	for i, m := range s.Models {
		b := s.Brands[m.Brand]
		if dataset.ParentOfModel(m.ID) != b.ID || (i > 0 && m.ID <= s.Models[i-1].ID) {
			t.Fatalf("model %d under brand %d: ids not hierarchical or not ascending", m.ID, b.ID)
		}
	}
	ongoing := 0
	for i, g := range s.Generations {
		if dataset.ParentOfGeneration(g.ID) != s.Models[g.Model].ID || (i > 0 && g.ID <= s.Generations[i-1].ID) {
			t.Fatalf("generation %d: ids not hierarchical or not ascending", g.ID)
		}
		if g.YearEnd == 0 {
			ongoing++
		} else if g.YearEnd < g.YearStart {
			t.Fatalf("generation %d ends before it starts", g.ID)
		}
	}
	if ongoing == 0 {
		t.Error("no generation in production")
	}
	if last := s.Variants[len(s.Variants)-1].ID; last >= 1<<24 {
		t.Errorf("variant id %d does not fit in 24 bits", last)
	}
	names := map[string]bool{}
	for i, v := range s.Variants {
		g := s.Generations[v.Generation]
		if dataset.ParentOfVariant(v.ID) != g.ID || (i > 0 && v.ID <= s.Variants[i-1].ID) {
			t.Fatalf("variant %d: ids not hierarchical or not ascending", v.ID)
		}
		key := fmt.Sprint(v.Generation, "\t", v.Name)
		if names[key] {
			t.Fatalf("generation %d has two variants named %q", g.ID, v.Name)
		}
		names[key] = true
		if !strings.HasPrefix(v.Name, s.Models[g.Model].Name) {
			t.Fatalf("variant %q does not start with its model name", v.Name)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, err := Generate(vocab.Default(), Options{Seed: 42, Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(vocab.Default(), Options{Seed: 42, Scale: 0.02})
	c, _ := Generate(vocab.Default(), Options{Seed: 43, Scale: 0.02})
	if fmt.Sprint(a.Variants) != fmt.Sprint(b.Variants) || fmt.Sprint(a.SpecVal) != fmt.Sprint(b.SpecVal) {
		t.Error("the same seed gave two catalogues")
	}
	if fmt.Sprint(a.Variants) == fmt.Sprint(c.Variants) {
		t.Error("two seeds gave the same catalogue")
	}
}

// demoDump renders the demo set with every spec value, so the golden file
// pins the 40 cars completely.
func demoDump(s *dataset.Set) string {
	var b strings.Builder
	for _, row := range s.Demo {
		v := &s.Variants[row]
		g := &s.Generations[v.Generation]
		m := &s.Models[g.Model]
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\t%d-%d\t%s\t%s\t%d specs\n", v.ID, s.Brands[m.Brand].Slug, m.Name, g.Name, g.YearStart, g.YearEnd,
			s.Vocab.Enums[mustEnum(s.Vocab, "fuel")].Values[v.Fuel].Slug, v.Name, v.SpecEnd-v.SpecStart)
		for j := v.SpecStart; j < v.SpecEnd; j++ {
			val := s.SpecVal[j]
			if s.Vocab.Specs[s.SpecKey[j]].Kind == vocab.KindText {
				fmt.Fprintf(&b, "  %s=%q", s.Vocab.Specs[s.SpecKey[j]].Key, s.Texts[val])
			} else {
				fmt.Fprintf(&b, "  %s=%d", s.Vocab.Specs[s.SpecKey[j]].Key, val)
			}
			if s.SpecConf[j] != 0 {
				fmt.Fprintf(&b, "@%d%%", s.SpecConf[j])
			}
		}
		fmt.Fprintf(&b, "\n  price=%v/%d/%d images=%d\n", v.HasPrice, v.PriceEUR, v.PriceAsOf, v.ImageEnd-v.ImageStart)
	}
	return b.String()
}

// TestDemoFrozen checks the demo set's shape and coverage, and that it is
// the recorded one under the default seed, another seed and a small scale.
func TestDemoFrozen(t *testing.T) {
	s := full(t)
	if len(s.Demo) != 40 {
		t.Fatalf("%d demo variants", len(s.Demo))
	}
	brands, models, gens, fuels := map[uint32]bool{}, map[uint32]bool{}, map[uint32]int{}, map[uint8]bool{}
	for _, r := range s.Demo {
		v := &s.Variants[r]
		g := &s.Generations[v.Generation]
		gens[v.Generation]++
		models[g.Model] = true
		brands[s.Models[g.Model].Brand] = true
		fuels[v.Fuel] = true
		if v.SpecEnd == v.SpecStart || v.ImageEnd == v.ImageStart || !v.HasPrice {
			t.Errorf("demo variant %d lacks specs, images or a price", v.ID)
		}
	}
	if len(brands) != 5 || len(models) != 10 || len(gens) != 20 || len(fuels) != 10 {
		t.Errorf("demo spans %d brands, %d models, %d generations, %d fuels; want 5, 10, 20, 10", len(brands), len(models), len(gens), len(fuels))
	}
	for g, n := range gens {
		if n != 2 {
			t.Errorf("generation row %d has %d demo variants", g, n)
		}
	}
	got := demoDump(s)
	golden := "testdata/demo_set.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./data/gen -run TestDemoFrozen -update to record it)", err)
	}
	if got != string(want) {
		t.Errorf("the demo set drifted from %s; if intended, rerun with -update and review the diff", golden)
	}
	for _, o := range []Options{{Seed: 99}, {Scale: 0.01, Seed: 5}} {
		other, err := Generate(vocab.Default(), o)
		if err != nil {
			t.Fatal(err)
		}
		if demoDump(other) != got {
			t.Errorf("options %+v give another demo set", o)
		}
	}
}

func TestSlugify(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
	f("Mégane E-Tech", "megane-e-tech")
	f("3 Series Touring", "3-series-touring")
	f("ID.3", "id-3")
	f("Up!", "up")
	f("Škoda", "skoda")
	f("Model S Plaid+", "model-s-plaid-plus")
}

var _ = bytes.Equal
