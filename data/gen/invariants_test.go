package gen

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

// variantFacts is what the editor's invariants look at for one variant of
// the full catalogue: its model's vocabulary seed and its recorded figures.
type variantFacts struct {
	row                 int
	name                string
	brand, model        string
	segment             byte
	body, fuel, drive   string
	premium             float64
	exotic              bool
	sp                  map[string]int32
	hp, weight, accel   float64 // 0 when not recorded
	co2, fuelL          float64 // g/km and l/100 km, -1 when not recorded
	batteryKWh, dcKW    float64
	year, price         int
	hasPrice, hasWeight bool
	fourByFour          bool // the nameplate was only sold with four-wheel drive (powertrains.tsv)
	limits              vocab.Limits
	yearEnd             int // the generation's last year (2026 while in production)
	// What issue 29's rules look at.
	real               bool           // the generation's line-up is data/vocab/lineups rows
	rows               []*vocab.Offer // those rows
	from, to           int            // the generation's model years within the nameplate's
	markStart, markEnd int            // its mark's years (markEnd 0 while on sale)
	powertrain         string         // the nameplate's powertrain class
	transmission       string
	gears              int
	texts              []string // the catalogue's text dictionary
	publishedTop       bool     // its row publishes its top speed
	badge              string   // its row's badge ("" when it matches none or is rule-based)
}

// dataAllows reports whether powertrains.tsv lets the nameplate have drive
// in some year of the generation (the Audi TT and the Smart Fortwo are
// sports or city cars with real front or four-wheel-drive versions).
func (f *variantFacts) dataAllows(drive string) bool {
	for y := f.year; y <= f.yearEnd; y++ {
		if slices.Contains(f.limits.Drives(y), drive) {
			return true
		}
	}
	return false
}

func collectFacts(t *testing.T, s *dataset.Set) []variantFacts {
	t.Helper()
	v := s.Vocab
	seeds := map[string]int{}
	for i, m := range v.Models {
		seeds[m.Brand+"\t"+m.Name] = i
	}
	styles := map[string]string{}
	for _, b := range v.Brands {
		styles[b.Slug] = b.Style
	}
	enum := func(group string, code uint8) string { return v.Enums[mustEnum(v, group)].Values[code].Slug }
	out := make([]variantFacts, 0, len(s.Variants))
	for row := range s.Variants {
		vr := &s.Variants[row]
		g := &s.Generations[vr.Generation]
		m := &s.Models[g.Model]
		brand := s.Brands[m.Brand].Slug
		si, ok := seeds[brand+"\t"+m.Name]
		if !ok {
			t.Fatalf("model %s %s has no vocabulary seed", brand, m.Name)
		}
		seed := v.Models[si]
		sp := specs(s, row)
		f := variantFacts{
			row: row, name: vr.Name, brand: brand, model: m.Name, segment: seed.Segment, body: enum("body", vr.Body),
			fuel: enum("fuel", vr.Fuel), drive: enum("drive", vr.Drive), premium: premiumBrand[brand],
			exotic: styles[brand] == "exotic", sp: sp, co2: -1, fuelL: -1,
			year: int(g.YearStart), price: int(vr.PriceEUR), hasPrice: vr.HasPrice && vr.PriceEUR > 0,
			fourByFour: v.PowertrainLimits(brand, m.Name).FourByFourOnly(),
			limits:     v.PowertrainLimits(brand, m.Name), yearEnd: endYear(int(g.YearEnd)),
		}
		lg := lineupGensOf1(s)[vr.Generation]
		f.rows, f.real = lg.rows, lg.rows != nil
		f.from, f.to = max(int(g.YearStart), seed.YearStart), min(endYear(int(g.YearEnd)), endYear(seed.YearEnd))
		f.markStart, f.markEnd = markOf(seed, g)
		f.powertrain = seed.Powertrain
		f.transmission = enum("transmission", vr.Transmission)
		f.gears = int(sp["gears"])
		f.texts = s.Texts
		if x, ok := sp["power_hp"]; ok {
			f.hp = float64(x)
		}
		for _, r := range f.rows {
			hp := f.hp
			if hp == 0 {
				hp = float64(r.PS)
			}
			// The longest badge that names it ("1000 i.e. 4x4", not "1000").
			if offerMatches(r, f.model, f.name, f.fuel, f.transmission, f.drive, hp) && len(r.Badge) > len(f.badge) {
				f.badge = r.Badge
				f.publishedTop = r.TopKMH > 0
			}
		}
		if x, ok := sp["curb_weight_kg"]; ok {
			f.weight, f.hasWeight = float64(x), true
		}
		if x, ok := sp["accel_0_100_s"]; ok {
			f.accel = float64(x) / 10
		}
		if x, ok := sp["co2_wltp_g_km"]; ok {
			f.co2 = float64(x)
		}
		if x, ok := sp["fuel_wltp_l_100km"]; ok {
			f.fuelL = float64(x) / 10
		}
		if x, ok := sp["battery_kwh"]; ok {
			f.batteryKWh = float64(x) / 10
		}
		if x, ok := sp["dc_charge_kw"]; ok {
			f.dcKW = float64(x)
		}
		out = append(out, f)
	}
	return out
}

func (f *variantFacts) key() string { return f.brand + "/" + f.model }

// lineupGensOf1 is lineupGensOf of s, remembered for the full catalogue.
func lineupGensOf1(s *dataset.Set) map[uint32]*lineupGen {
	if m, ok := lineupCache.Load(s); ok {
		return m.(map[uint32]*lineupGen)
	}
	m := lineupGensOf(s)
	lineupCache.Store(s, m)
	return m
}

// lineupCache keeps lineupGensOf by catalogue.
var lineupCache sync.Map

// markOf is the launch and last year of the mark of generation g (for an
// unlisted nameplate, the generation's own years).
func markOf(seed vocab.ModelSeed, g *dataset.Generation) (start, end int) {
	phase := strings.TrimSpace(strings.TrimPrefix(g.Name, seed.Name))
	for _, mk := range seed.Marks {
		for _, p := range mk.Phases() {
			if p.Name == phase && p.YearStart == int(g.YearStart) && p.YearEnd == int(g.YearEnd) {
				return mk.YearStart, mk.YearEnd
			}
		}
	}
	return int(g.YearStart), int(g.YearEnd)
}

// rule is one invariant over the facts T of an item of the catalogue (a
// variant, a generation, a mark): bad returns a description of the
// violation, or "" when the item is fine.
type rule[T any] struct {
	name string
	bad  func(f *T) string
}

// editorRule is one invariant an automotive editor checks on a variant.
type editorRule = rule[variantFacts]

var editorRules = []editorRule{
	{"city car over 1,200 kg (A segment, combustion, not an SUV)", func(f *variantFacts) string {
		if f.segment == 'A' && f.hasWeight && isCombustion(f.fuel) && f.body != "suv" && f.weight > 1200 {
			return fmt.Sprintf("%.0f kg", f.weight)
		}
		return ""
	}},
	{"B hatchback over 1,400 kg (combustion)", func(f *variantFacts) string {
		if f.segment == 'B' && f.body == "hatchback" && f.hasWeight && isCombustion(f.fuel) && f.weight > 1400 {
			return fmt.Sprintf("%.0f kg", f.weight)
		}
		return ""
	}},
	{"C hatchback over 1,600 kg (combustion)", func(f *variantFacts) string {
		// Four-wheel-drive hot hatches of 300 hp and more are heavier
		// (Mercedes-AMG A 45 S 1,635 kg, RS 3 Sportback 1,645).
		limit := 1600.0
		if f.drive == "all" && f.hp >= 300 {
			limit = 1700
		}
		if f.segment == 'C' && f.body == "hatchback" && f.hasWeight && isCombustion(f.fuel) && f.weight > limit {
			return fmt.Sprintf("%.0f kg", f.weight)
		}
		return ""
	}},
	{"quadricycle beyond the L6e/L7e limits", func(f *variantFacts) string {
		if _, ok := quadricycles[f.key()]; ok && (f.weight > 800 || f.hp > 20) {
			return fmt.Sprintf("%.0f kg, %.0f hp", f.weight, f.hp)
		}
		return ""
	}},
	tableRule(editorRule{"front-drive sports car (S segment)", func(f *variantFacts) string {
		if f.segment == 'S' && f.drive == "front" && !f.dataAllows("front") {
			return "front-wheel drive"
		}
		return ""
	}}),
	{"front drive over the traction limit", func(f *variantFacts) string {
		if f.drive == "front" && f.hp > frontDriveMaxHP {
			return fmt.Sprintf("%.0f hp through the front wheels", f.hp)
		}
		return ""
	}},
	{"single-motor EV over 480 hp", func(f *variantFacts) string {
		if f.fuel == "electric" && f.drive != "all" && f.hp > evSingleMotorMaxHP {
			return fmt.Sprintf("%.0f hp on one axle", f.hp)
		}
		return ""
	}},
	tableRule(editorRule{"front-drive exotic", func(f *variantFacts) string {
		if exoticPower(f.brand) && f.drive == "front" && f.segment >= 'D' && !f.dataAllows("front") {
			return "front-wheel drive"
		}
		return ""
	}}),
	tableRule(editorRule{"4x4-only nameplate without all-wheel drive", func(f *variantFacts) string {
		if f.fourByFour && f.drive != "all" {
			return f.drive + "-wheel drive"
		}
		return ""
	}}),
	tableRule(editorRule{"A-segment city car with all-wheel drive", func(f *variantFacts) string {
		if f.segment == 'A' && f.body != "suv" && f.drive == "all" && !f.dataAllows("all") {
			return "all-wheel drive"
		}
		return ""
	}}),
	tableRule(editorRule{"volume brand over 600 hp (not a halo model)", func(f *variantFacts) string {
		if volumeBrand(f.brand) && f.hp > volumeMaxHP && haloModels[f.key()] == 0 {
			return fmt.Sprintf("%.0f hp", f.hp)
		}
		return ""
	}}),
	tableRule(editorRule{"halo model over its real peak power", func(f *variantFacts) string {
		if cap := haloModels[f.key()]; cap > 0 && f.hp > cap {
			return fmt.Sprintf("%.0f hp, cap %.0f", f.hp, cap)
		}
		return ""
	}}),
	{"PHEV CO2 not derived from its weighted consumption", func(f *variantFacts) string {
		if f.fuel != "plug_in_hybrid" || f.co2 < 0 || f.fuelL < 0 {
			return ""
		}
		if want := math.Round(f.fuelL * co2PerLitre["petrol"]); math.Abs(f.co2-want) > 1 {
			return fmt.Sprintf("%.0f g/km for %.1f l/100 km (want %.0f)", f.co2, f.fuelL, want)
		}
		return ""
	}},
	{"DC charging beyond the battery (> 3.5 C)", func(f *variantFacts) string {
		if f.dcKW > 0 && f.batteryKWh > 0 && f.dcKW > maxDCRate*f.batteryKWh {
			return fmt.Sprintf("%.0f kW on %.1f kWh", f.dcKW, f.batteryKWh)
		}
		return ""
	}},
	{"DC charging beyond its era", func(f *variantFacts) string {
		if f.dcKW > dcEraCap(f.year+yearsIntoGeneration) {
			return fmt.Sprintf("%.0f kW in a %d generation", f.dcKW, f.year)
		}
		return ""
	}},
	tableRule(editorRule{"EV battery, power or drive not one of the nameplate's versions (evs.tsv)", func(f *variantFacts) string {
		if f.fuel != "electric" {
			return ""
		}
		v := vocab.Default()
		listed := false
		for y := f.year; y <= f.yearEnd; y++ {
			for _, e := range v.EVVersions(f.brand, f.model, y) {
				listed = true
				// Figures the variant does not record (the catalogue's
				// missing data) cannot disagree.
				if (f.batteryKWh == 0 || math.Abs(e.BatteryKWh-f.batteryKWh) < 0.05) && (f.hp == 0 || math.Abs(float64(e.HP)-f.hp) <= 1) && e.Drive == f.drive {
					return ""
				}
			}
		}
		if !listed {
			return ""
		}
		return fmt.Sprintf("%.1f kWh, %.0f hp, %s drive in %d-%d", f.batteryKWh, f.hp, f.drive, f.year, f.yearEnd)
	}}),
	{"0-100 km/h slower than 20 s", func(f *variantFacts) string {
		if f.accel > slowestAccel {
			return fmt.Sprintf("%.1f s", f.accel)
		}
		return ""
	}},
	{"0-100 km/h beyond traction", func(f *variantFacts) string {
		if f.accel > 0 && f.accel < tractionFloor(f.drive, f.fuel == "electric")-0.05 {
			return fmt.Sprintf("%.1f s with %s drive", f.accel, f.drive)
		}
		return ""
	}},
	{"0-100 km/h beyond the power-to-weight", func(f *variantFacts) string {
		kw := f.hp / 1.35962
		if f.accel > 0 && kw > 0 && f.hasWeight && f.accel < powerLimitedAccel(f.weight, kw) {
			return fmt.Sprintf("%.1f s at %.0f kg and %.0f kW", f.accel, f.weight, kw)
		}
		return ""
	}},
}

// yearsIntoGeneration: a variant's model year can be this far past its
// generation's first year and still belong to it; the era checks allow it.
const yearsIntoGeneration = 12

func isCombustion(fuel string) bool {
	switch fuel {
	case "electric", "hydrogen", "plug_in_hybrid":
		return false
	}
	return true
}

// TestEditorInvariants checks, on every variant of the full catalogue, the
// rules an automotive editor would check first (issue 16). Each rule reports
// its violation count and a few examples.
func TestEditorInvariants(t *testing.T) {
	checkEditorRules(t, editorRules)
}

// tally counts one rule's violations and keeps the first five as examples.
type tally struct {
	n        int
	examples []string
}

// examplesShown is how many violations a failing rule prints.
var examplesShown = 5

func (v *tally) add(format string, args ...any) {
	v.n++
	if len(v.examples) < examplesShown {
		v.examples = append(v.examples, fmt.Sprintf(format, args...))
	}
}

// report logs the count and fails the test when there is any violation.
func (v *tally) report(t *testing.T) {
	t.Helper()
	t.Logf("%d violations", v.n)
	if v.n > 0 {
		t.Errorf("%d violations, e.g.\n  %s", v.n, strings.Join(v.examples, "\n  "))
	}
}

// nameplate is the vocabulary's seed of brand's model, failing t when the
// vocabulary lacks it.
func nameplate(t *testing.T, v *vocab.Vocabulary, brand, model string) vocab.ModelSeed {
	t.Helper()
	for _, m := range v.Models {
		if m.Brand == brand && m.Name == model {
			return m
		}
	}
	t.Fatalf("no nameplate %s %s", brand, model)
	return vocab.ModelSeed{}
}

// excuse names the items whose violations are logged, not failed (the demo
// set's forced fuels): of reports whether item i is one.
type excuse struct {
	what string
	of   func(i int) bool
}

// checkRules runs each rule as a subtest over items: it counts the rule's
// violations, shows the first few, each after what label says of its item,
// and fails the rule when it has any. A violation on an item excused (nil:
// none is) is logged instead.
func checkRules[T any](t *testing.T, rules []rule[T], items []T, label func(f *T) string, excused *excuse) {
	for _, r := range rules {
		t.Run(strings.ReplaceAll(r.name, " ", "_"), func(t *testing.T) {
			var v tally
			var excuses []string
			for i := range items {
				f := &items[i]
				why := r.bad(f)
				switch {
				case why == "":
				case excused != nil && excused.of(i):
					excuses = append(excuses, fmt.Sprintf("%s: %s", label(f), why))
				default:
					v.add("%s: %s", label(f), why)
				}
			}
			if len(excuses) > 0 {
				t.Logf("%s: %d (%s)", excused.what, len(excuses), strings.Join(excuses, "; "))
			}
			v.report(t)
		})
	}
}

// checkEditorRules runs rules on every variant of the full catalogue.
func checkEditorRules(t *testing.T, rules []editorRule) {
	s := full(t)
	checkRules(t, rules, collectFacts(t, s), func(f *variantFacts) string {
		return fmt.Sprintf("%q (%s, %s, %d)", s.Variants[f.row].Name, f.brand, f.fuel, f.year)
	}, nil)
}

// weightBands are the published kerb-weight medians of combustion cars per
// segment (hatchbacks, saloons and estates, not SUVs or vans): Up/Aygo/i10
// about 950-1,000 kg, Polo/Clio/Fiesta 1,100-1,200, Golf/Focus/308
// 1,300-1,400, Passat/3 Series/Mondeo 1,500-1,600.
var weightBands = map[byte][2]float64{'A': {920, 1080}, 'B': {1080, 1230}, 'C': {1270, 1430}, 'D': {1460, 1640}}

func TestWeightMedians(t *testing.T) {
	facts := collectFacts(t, full(t))
	bySeg := map[byte][]float64{}
	evExtra := map[byte][]float64{}
	for i := range facts {
		f := &facts[i]
		if !f.hasWeight || f.body == "suv" || f.body == "van" || f.body == "pickup" || f.body == "mpv" {
			continue
		}
		if isCombustion(f.fuel) {
			bySeg[f.segment] = append(bySeg[f.segment], f.weight)
		}
		if f.fuel == "electric" && f.batteryKWh > 0 {
			evExtra[f.segment] = append(evExtra[f.segment], f.weight)
		}
	}
	for _, seg := range []byte("ABCDEFSV") {
		med := median(bySeg[seg])
		t.Logf("segment %c: combustion median %.0f kg over %d variants; EV median %.0f kg over %d", seg, med, len(bySeg[seg]), median(evExtra[seg]), len(evExtra[seg]))
		if band, ok := weightBands[seg]; ok && (med < band[0] || med > band[1]) {
			t.Errorf("segment %c: combustion median %.0f kg, want %.0f-%.0f", seg, med, band[0], band[1])
		}
	}
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y[len(y)/2]
}
