package gen

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// referenceCar is a real car with its maker's published figures: EU kerb
// weight (with a 75 kg driver; DIN weight plus 75 kg where only that was
// published), power in PS, 0-100 km/h, top speed, combined consumption in
// the cycle of its model year (NEDC before 2018, WLTP from 2018; l/100 km,
// a plug-in's and an electric car's left 0 for their electric range), the
// electric range (km, same cycle) and, where known, the Dutch list price of
// the day in euros. A zero figure is one not known for certain: it is not
// compared.
type referenceCar struct {
	brand, model, generation, badge string // as the catalogue names them: the variant's name starts with model and badge
	fuel, drive, box                string // drive and box ("manual", "automatic", "dct") "" for any
	year                            int    // the model year of the figures
	kg, hp, accel, top              float64
	l100, rangeKM, price            float64
}

// referenceCars span 1990 to 2024 and every segment: city cars to the
// S-Class, SUVs, vans, hot hatches and sports cars; petrol, diesel, full
// and mild hybrids, plug-ins and electric cars. None is a demo car.
var referenceCars = []referenceCar{
	// 1990s.
	{"volkswagen", "Golf", "Golf III", "1.8 90", "petrol", "", "manual", 1993, 1130, 90, 12.0, 178, 0, 0, 0},
	{"volkswagen", "Golf", "Golf III", "1.9 TDI 90", "diesel", "", "manual", 1994, 1180, 90, 12.9, 178, 0, 0, 0},
	{"volkswagen", "Golf", "Golf III", "VR6", "petrol", "front", "manual", 1993, 1290, 174, 7.6, 225, 0, 0, 0},
	{"volkswagen", "Golf", "Golf IV", "1.6 100", "petrol", "", "manual", 1998, 1265, 100, 11.4, 188, 7.7, 0, 0},
	{"volkswagen", "Golf", "Golf IV", "1.9 TDI 110", "diesel", "", "manual", 1998, 1270, 110, 10.7, 193, 4.9, 0, 0},
	{"volkswagen", "Golf", "Golf IV", "GTI", "petrol", "", "manual", 1999, 1290, 150, 8.5, 216, 8.2, 0, 0},
	{"volkswagen", "Golf", "Golf IV", "R32", "petrol", "all", "manual", 2002, 1550, 241, 6.6, 247, 11.5, 0, 0},
	{"bmw", "3 Series", "3 Series E46", "330i", "petrol", "rear", "manual", 2000, 1435, 231, 6.5, 250, 9.0, 0, 0},
	// 2000s.
	{"volkswagen", "Golf", "Golf V", "GTI", "petrol", "", "manual", 2005, 1411, 200, 7.2, 235, 8.0, 0, 0},
	{"volkswagen", "Golf", "Golf V", "1.9 TDI 105", "diesel", "", "manual", 2005, 1355, 105, 11.3, 187, 5.1, 0, 0},
	{"volkswagen", "Golf", "Golf VI", "GTI", "petrol", "", "manual", 2009, 1393, 210, 6.9, 238, 7.3, 0, 0},
	{"volkswagen", "Golf", "Golf VI", "1.6 TDI 105", "diesel", "", "manual", 2010, 1314, 105, 11.3, 190, 4.5, 0, 0},
	{"bmw", "3 Series", "3 Series E90 LCI", "320d", "diesel", "rear", "manual", 2010, 1505, 184, 7.5, 235, 4.7, 0, 0},
	{"fiat", "500", "500 (312)", "1.2 8V 69", "petrol", "", "manual", 2008, 940, 69, 0, 160, 5.1, 0, 0},
	// 2010s.
	{"volkswagen", "Golf", "Golf VII", "GTI", "petrol", "", "manual", 2013, 1400, 220, 6.5, 246, 6.0, 0, 0},
	{"volkswagen", "Golf", "Golf VII", "1.4 TSI 122", "petrol", "", "manual", 2013, 1295, 122, 9.3, 203, 5.2, 0, 0},
	{"volkswagen", "Golf", "Golf VII", "R", "petrol", "all", "", 2014, 1551, 300, 4.9, 250, 6.9, 0, 0},
	{"volkswagen", "Golf", "Golf VII", "GTE", "plug_in_hybrid", "", "", 2015, 1600, 204, 7.6, 222, 0, 50, 0},
	{"volkswagen", "Golf", "Golf VII", "e-Golf", "electric", "", "", 2015, 1585, 115, 10.4, 140, 0, 190, 0},
	{"fiat", "Panda", "Panda III", "0.9 TwinAir 85", "petrol", "", "manual", 2012, 1050, 85, 11.2, 177, 4.2, 0, 0},
	{"renault", "Clio", "Clio IV", "R.S. 200", "petrol", "", "", 2013, 1290, 200, 6.7, 230, 6.3, 0, 0},
	{"honda", "Civic", "Civic X", "Type R", "petrol", "", "manual", 2017, 1455, 320, 5.8, 272, 0, 0, 0},
	{"bmw", "5 Series", "5 Series G30", "520d", "diesel", "rear", "automatic", 2017, 1680, 190, 7.5, 235, 4.2, 0, 0},
	{"mercedes-benz", "E-Class", "E-Class W213", "E 220 d", "diesel", "rear", "", 2017, 1755, 194, 7.3, 240, 4.2, 0, 0},
	{"volvo", "XC60", "XC60 II", "D4", "diesel", "all", "", 2018, 1915, 190, 8.0, 205, 6.2, 0, 0},
	{"nissan", "Leaf", "Leaf ZE1", "40 kWh", "electric", "", "", 2018, 1580, 150, 7.9, 144, 0, 270, 0},
	{"bmw", "i3", "i3 I01 LCI", "i3", "electric", "", "", 2019, 1345, 170, 7.3, 150, 0, 300, 0},
	{"hyundai", "i30", "i30 PD", "N Performance", "petrol", "", "manual", 2018, 1505, 275, 6.1, 250, 8.0, 0, 0},
	{"renault", "Mégane", "Mégane IV", "R.S. 280", "petrol", "", "", 2018, 1480, 280, 5.8, 250, 7.6, 0, 0},
	{"ford", "Fiesta", "Fiesta Mk8", "ST", "petrol", "", "manual", 2018, 1283, 200, 6.5, 232, 6.6, 0, 0},
	{"volkswagen", "Polo", "Polo AW", "GTI", "petrol", "", "dct", 2019, 1355, 200, 6.7, 237, 6.8, 0, 0},
	{"volkswagen", "Polo", "Polo AW", "1.0 TSI 95", "petrol", "", "manual", 2019, 1185, 95, 10.8, 187, 5.4, 0, 0},
	{"toyota", "Corolla", "Corolla E210", "Hybrid 122", "hybrid", "", "", 2019, 1370, 122, 10.9, 180, 4.6, 0, 0},
	{"toyota", "Corolla", "Corolla E210", "Hybrid 184", "hybrid", "", "", 2019, 1450, 184, 7.9, 180, 5.0, 0, 0},
	{"toyota", "RAV4", "RAV4 XA50", "Hybrid", "hybrid", "all", "", 2019, 1750, 222, 8.1, 180, 5.8, 0, 0},
	{"bmw", "3 Series", "3 Series G20", "320d", "diesel", "rear", "automatic", 2019, 1540, 190, 6.8, 240, 5.0, 0, 0},
	{"bmw", "3 Series", "3 Series G20", "330i", "petrol", "rear", "automatic", 2019, 1545, 258, 5.8, 250, 6.6, 0, 0},
	{"bmw", "3 Series", "3 Series G20", "M340i", "petrol", "all", "automatic", 2019, 1745, 374, 4.4, 250, 7.9, 0, 0},
	{"mazda", "MX-5", "MX-5 ND", "2.0 Skyactiv-G 184", "petrol", "", "manual", 2019, 1105, 184, 6.5, 219, 6.9, 0, 0},
	{"porsche", "911", "911 992", "Carrera S", "petrol", "rear", "dct", 2019, 1590, 450, 3.7, 308, 10.3, 0, 0},
	{"hyundai", "Kona", "Kona OS", "Electric 64 kWh", "electric", "", "", 2019, 1685, 204, 7.6, 167, 0, 449, 0},
	// 2020s.
	{"volkswagen", "Golf", "Golf VIII", "1.5 TSI 130", "petrol", "", "manual", 2020, 1330, 130, 9.2, 224, 5.5, 0, 0},
	{"volkswagen", "Golf", "Golf VIII", "2.0 TDI 115", "diesel", "", "manual", 2020, 1415, 115, 10.2, 202, 4.6, 0, 0},
	{"volkswagen", "Golf", "Golf VIII", "GTI", "petrol", "", "", 2021, 1463, 245, 6.3, 250, 7.1, 0, 0},
	{"volkswagen", "Golf", "Golf VIII", "R", "petrol", "all", "dct", 2021, 1551, 320, 4.7, 250, 8.3, 0, 0},
	{"volkswagen", "Golf", "Golf VIII", "GTE", "plug_in_hybrid", "", "", 2021, 1624, 245, 6.7, 225, 0, 62, 0},
	{"volkswagen", "Golf", "Golf VIII", "eHybrid", "plug_in_hybrid", "", "", 2021, 1624, 204, 7.4, 220, 0, 71, 0},
	{"volkswagen", "ID.3", "ID.3", "Pro Performance", "electric", "", "", 2020, 1805, 204, 7.3, 160, 0, 426, 0},
	{"volkswagen", "ID.4", "ID.4", "Pro Performance", "electric", "", "", 2021, 2124, 204, 8.5, 160, 0, 522, 0},
	{"volkswagen", "Tiguan", "Tiguan II", "1.5 TSI 150", "petrol", "front", "dct", 2019, 1555, 150, 9.2, 204, 6.9, 0, 0},
	{"volkswagen", "Passat", "Passat B8", "2.0 TDI 150", "diesel", "front", "dct", 2020, 1595, 150, 8.7, 218, 5.1, 0, 0},
	{"volkswagen", "Caddy", "Caddy V", "2.0 TDI 122", "diesel", "front", "", 2021, 0, 122, 0, 188, 0, 0, 0},
	{"volkswagen", "Transporter", "Transporter T6.1", "2.0 TDI 150", "diesel", "front", "manual", 2020, 0, 150, 0, 182, 0, 0, 0},
	{"bmw", "3 Series", "3 Series G20", "330e", "plug_in_hybrid", "rear", "", 2020, 1815, 292, 5.9, 230, 0, 58, 0},
	{"mercedes-benz", "C-Class", "C-Class W206", "C 200", "mild_hybrid", "rear", "", 2021, 1640, 204, 7.3, 246, 6.6, 0, 0},
	{"mercedes-benz", "S-Class", "S-Class W223", "S 500 4MATIC", "mild_hybrid", "all", "", 2021, 2115, 435, 4.9, 250, 8.8, 0, 0},
	{"audi", "A4", "A4 B9 Facelift", "35 TDI", "mild_hybrid", "front", "", 2020, 1570, 163, 8.6, 228, 4.9, 0, 50000},
	{"toyota", "Yaris", "Yaris XP210", "Hybrid 116", "hybrid", "", "", 2021, 1180, 116, 9.7, 175, 4.0, 0, 0},
	{"toyota", "RAV4", "RAV4 XA50", "Plug-in Hybrid", "plug_in_hybrid", "all", "", 2021, 1985, 306, 6.0, 180, 0, 75, 0},
	{"renault", "Clio", "Clio V", "TCe 100", "petrol", "", "manual", 2020, 1165, 100, 11.8, 187, 5.3, 0, 0},
	{"renault", "Zoe", "Zoe Facelift", "R135", "electric", "", "", 2020, 1577, 135, 9.5, 140, 0, 386, 0},
	{"peugeot", "208", "208 II", "1.2 PureTech 100", "petrol", "", "manual", 2020, 1165, 100, 9.9, 188, 5.5, 0, 0},
	{"peugeot", "208", "208 II", "e-208 136", "electric", "", "", 2020, 1530, 136, 8.1, 150, 0, 340, 34500},
	{"dacia", "Sandero", "Sandero III", "TCe 90", "petrol", "", "manual", 2021, 1100, 90, 12.2, 178, 5.3, 0, 0},
	{"ford", "Focus", "Focus Mk4", "1.0 EcoBoost 125", "petrol", "", "manual", 2019, 1322, 125, 10.0, 200, 5.8, 0, 0},
	{"tesla", "Model 3", "Model 3", "Long Range", "electric", "all", "", 2021, 1919, 0, 4.4, 233, 0, 590, 0},
	{"skoda", "Octavia", "Octavia IV", "RS", "petrol", "", "dct", 2021, 1520, 245, 6.7, 250, 7.0, 0, 0},
	{"kia", "EV6", "EV6", "77.4 kWh RWD", "electric", "rear", "", 2021, 2000, 229, 7.3, 185, 0, 528, 0},
}

// referenceBand is how far a catalogue figure may lie from the published
// one.
const referenceBand = 0.10

// TestReferenceCars finds each reference car in the full catalogue by
// brand, model, generation and badge (the variant's name is the model's,
// then the badge, then other words; its fuel, and the drive and gearbox
// where given, are the car's) and fails when it is missing. Of the
// matches it takes the one nearest in power, then the cheapest (the base
// trim the published figures are for). Every known figure must lie within
// referenceBand: kerb weight, power, 0-100 km/h, top speed, combined
// consumption (converted to the variant's cycle with nedcRatio when the
// model years differ in cycle) or electric range, and the period price.
func TestReferenceCars(t *testing.T) {
	s := full(t)
	facts := collectFacts(t, s)
	if len(referenceCars) < 60 {
		t.Fatalf("%d reference cars, want at least 60", len(referenceCars))
	}
	byGen := map[string][]int{}
	for i := range facts {
		f := &facts[i]
		g := s.Generations[s.Variants[f.row].Generation].Name
		byGen[f.brand+"|"+f.model+"|"+g] = append(byGen[f.brand+"|"+f.model+"|"+g], i)
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "%-48s | %-46s | %11s %9s %9s %9s %11s %9s\n", "reference", "catalogue", "kg", "PS", "0-100", "km/h", "l or km", "EUR")
	bad, missing, figures := 0, 0, 0
	for _, ref := range referenceCars {
		label := fmt.Sprintf("%s %s %s (%d)", ref.model, ref.badge, ref.generation, ref.year)
		best := -1
		for _, i := range byGen[ref.brand+"|"+ref.model+"|"+ref.generation] {
			f := &facts[i]
			if f.fuel != ref.fuel || (ref.drive != "" && f.drive != ref.drive) || (ref.box != "" && f.transmission != ref.box) {
				continue
			}
			if !badgeOf(f.name, ref.model, ref.badge) {
				continue
			}
			if best < 0 || better(f, &facts[best], ref.hp) {
				best = i
			}
		}
		if best < 0 {
			missing++
			fmt.Fprintf(&tab, "%-48.48s | MISSING\n", label)
			continue
		}
		f := &facts[best]
		cell := func(got, want float64) string {
			if want == 0 {
				return "-"
			}
			figures++
			mark := " "
			if got <= 0 || math.Abs(got/want-1) > referenceBand {
				mark = "!"
				bad++
			}
			return fmt.Sprintf("%s%.4g/%.4g", mark, got, want)
		}
		cons := "-"
		switch {
		case ref.rangeKM > 0:
			got := float64(f.sp["electric_range_km"])
			if f.fuel == "electric" {
				got = float64(f.sp["range_wltp_km"])
				if x, ok := f.sp["range_nedc_km"]; ok {
					got = float64(x)
				}
			}
			cons = cell(got, inCycle(ref.rangeKM, ref.year, f, true))
		case ref.l100 > 0:
			got, _ := f.combined()
			cons = cell(got, inCycle(ref.l100, ref.year, f, false))
		}
		price := "-"
		if ref.price > 0 {
			price = cell(float64(f.price), ref.price)
		}
		fmt.Fprintf(&tab, "%-48.48s | %-46.46s | %11s %9s %9s %9s %11s %9s\n", label, f.name,
			cell(f.weight, ref.kg), cell(f.hp, ref.hp), cell(f.accel, ref.accel), cell(float64(f.sp["top_speed_kmh"]), ref.top), cons, price)
	}
	t.Logf("catalogue/published, ! outside ±%.0f %%:\n%s", referenceBand*100, tab.String())
	t.Logf("%d reference cars, %d missing, %d of %d figures outside ±%.0f %%", len(referenceCars), missing, bad, figures, referenceBand*100)
	if missing > 0 || bad > 0 {
		t.Errorf("%d reference cars missing, %d figures outside ±%.0f %% of the published ones (table above)", missing, bad, referenceBand*100)
	}
}

// badgeOf reports whether a variant's name is the model's and the badge's,
// then other words (the four-wheel-drive word may stand in the badge or
// after the gearbox).
func badgeOf(name, model, badge string) bool {
	if badge == model {
		return strings.HasPrefix(name, model)
	}
	rest := " " + withoutDriveWords(strings.TrimPrefix(name, model)) + " "
	return strings.HasPrefix(name, model+" ") && strings.HasPrefix(rest, " "+withoutDriveWords(badge)+" ")
}

// better reports whether variant f is a better match for a reference of
// power hp than g: nearer in power, then cheaper.
func better(f, g *variantFacts, hp float64) bool {
	df, dg := math.Abs(f.hp-hp), math.Abs(g.hp-hp)
	if hp == 0 {
		df, dg = 0, 0
	}
	if df != dg {
		return df < dg
	}
	if f.hasWeight != g.hasWeight {
		return f.hasWeight // one that records its figures
	}
	pf, pg := f.price, g.price
	if !f.hasPrice {
		pf = math.MaxInt32
	}
	if !g.hasPrice {
		pg = math.MaxInt32
	}
	return pf < pg
}

// inCycle is a published consumption (or electric range, when rng) of
// model year y in the cycle the variant records: NEDC before 2018, WLTP
// from 2018; a figure of the other cycle is brought over with the
// generator's ratios.
func inCycle(x float64, y int, f *variantFacts, rng bool) float64 {
	refNEDC := y < 2018
	_, cycle := f.combined()
	if rng {
		_, nedc := f.sp["range_nedc_km"]
		cycle = map[bool]string{true: "NEDC", false: "WLTP"}[nedc]
		if f.fuel == "plug_in_hybrid" {
			_, nedc = f.sp["fuel_nedc_l_100km"]
			cycle = map[bool]string{true: "NEDC", false: "WLTP"}[nedc]
		}
	}
	switch {
	case refNEDC && cycle == "WLTP":
		if rng {
			return x * wltpRangeRatio
		}
		return x / nedcRatio
	case !refNEDC && cycle == "NEDC":
		if rng {
			return x / wltpRangeRatio
		}
		return x * nedcRatio
	}
	return x
}
