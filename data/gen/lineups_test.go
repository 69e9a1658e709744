package gen

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

// genRows are the line-up rows (data/vocab/lineups) of a catalogue
// generation: those naming its mark whose model years fall in it. A row
// that only touches the generation in the year a facelift splits the mark
// belongs to the other side. nil when the generation has none (its
// nameplate has no rows, or none for this generation): its line-up is then
// rule-based.
func genRows(v *vocab.Vocabulary, brand string, seed vocab.ModelSeed, g *dataset.Generation) []*vocab.Offer {
	rows := v.Lineup(brand, seed.Name)
	if rows == nil {
		return nil
	}
	phase := strings.TrimSpace(strings.TrimPrefix(g.Name, seed.Name))
	mark, faceliftNext, faceliftOf := -1, false, false
	if len(seed.Marks) == 0 {
		// A nameplate generations.tsv does not list: the generator's
		// cycles, whose facelifts the names say.
		faceliftOf = strings.HasSuffix(g.Name, "Facelift")
		faceliftNext = nextIsFacelift(g)
	}
	for i, mk := range seed.Marks {
		ps := mk.Phases()
		for j, p := range ps {
			if p.Name == phase && p.YearStart == int(g.YearStart) && p.YearEnd == int(g.YearEnd) {
				mark, faceliftNext, faceliftOf = i, j+1 < len(ps), j > 0
			}
		}
	}
	from := max(int(g.YearStart), seed.YearStart)
	to := min(endYear(int(g.YearEnd)), endYear(seed.YearEnd))
	var out []*vocab.Offer
	for _, r := range rows {
		if mi, ok := r.MarkOf(seed.Name); ok && mi != mark {
			continue
		}
		rf, rt := r.From, endYear(r.To)
		lo, hi := max(rf, from), min(rt, to)
		if lo > hi {
			continue
		}
		if lo == hi && rf != rt && ((faceliftNext && lo == to && rt > to) || (faceliftOf && lo == from && rf < from)) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// facelifts are the catalogues' generations by model and name, for
// nextIsFacelift.
var facelifts sync.Map

// nextIsFacelift reports whether the generation's facelift follows it (a
// generation of the same model named as it with " Facelift").
func nextIsFacelift(g *dataset.Generation) bool {
	key := fmt.Sprint(g.Model, "\t", g.Name, " Facelift")
	_, ok := facelifts.Load(key)
	return ok
}

// offerMatches reports whether a variant is row's: its name is the model's
// and the row's badge (BMW's "x" of four-wheel drive before 2003 put in),
// then other words; fuel, power (the row's PS within 1), gearbox kind and
// drive are the row's.
func offerMatches(r *vocab.Offer, model, name, fuel, transmission, drive string, hp float64) bool {
	if r.Fuel != fuel || math.Abs(float64(r.PS)-hp) > 1 {
		return false
	}
	if !slices.ContainsFunc(r.Boxes, func(b vocab.Box) bool { return b.Transmission == transmission }) || !slices.Contains(r.Drives, drive) {
		return false
	}
	// The four-wheel-drive word may stand in the badge or after the
	// gearbox ("2.0 TDI 200 4x4 DSG", "2.0 TDI 200 DSG 4x4").
	rest := " " + withoutDriveWords(strings.TrimPrefix(name, model)) + " "
	for _, b := range []string{r.Badge, bmwX(r.Badge)} {
		b = strings.TrimPrefix(b, model+" ")
		if b == model || withoutDriveWords(b) == "" || strings.HasPrefix(rest, " "+withoutDriveWords(b)+" ") {
			return true
		}
	}
	return false
}

// driveWords are the four-wheel-drive words of names.
var driveWords = map[string]bool{"4x4": true, "4MOTION": true, "4Drive": true, "quattro": true, "4MATIC": true, "AWD": true,
	"ALL4": true, "ALLGRIP": true, "syncro": true, "4WD": true, "Q4": true, "E-Four": true, "AWD-i": true, "HYBRID4": true}

// withoutDriveWords is s without its four-wheel-drive words.
func withoutDriveWords(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if !driveWords[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// genFactsOf is what the line-up rules know of each generation of the full
// catalogue: its rows (nil: a rule-based line-up).
type lineupGen struct {
	rows     []*vocab.Offer
	variants []int // rows of s.Variants
}

var lineupGens = sync.OnceValue(func() map[uint32]*lineupGen {
	s, err := fullSet()
	if err != nil {
		panic(err)
	}
	return lineupGensOf(s)
})

func lineupGensOf(s *dataset.Set) map[uint32]*lineupGen {
	v := s.Vocab
	seeds := map[string]vocab.ModelSeed{}
	for _, m := range v.Models {
		seeds[m.Brand+"\t"+m.Name] = m
	}
	out := map[uint32]*lineupGen{}
	for gi := range s.Generations {
		g := &s.Generations[gi]
		facelifts.Store(fmt.Sprint(g.Model, "\t", g.Name), true)
	}
	for gi := range s.Generations {
		g := &s.Generations[gi]
		m := &s.Models[g.Model]
		brand := s.Brands[m.Brand].Slug
		out[uint32(gi)] = &lineupGen{rows: genRows(v, brand, seeds[brand+"\t"+m.Name], g)}
	}
	for row := range s.Variants {
		lg := out[s.Variants[row].Generation]
		lg.variants = append(lg.variants, row)
	}
	return out
}

// tableRule marks a rule that checks a table of the generator's own
// (engines.tsv, powertrains.tsv, electrified.tsv, evs.tsv, powercodes.tsv,
// the naming tables): where data/vocab/lineups gives a generation's real
// line-up, the rows are the facts and the line-up rules check them, so the
// rule checks the rule-based line-ups only.
func tableRule(r editorRule) editorRule {
	bad := r.bad
	r.bad = func(f *variantFacts) string {
		if f.real {
			return ""
		}
		return bad(f)
	}
	return r
}

// tablePTRule is tableRule for the powertrain facts.
func tablePTRule(r rule[ptFacts]) rule[ptFacts] {
	bad := r.bad
	r.bad = func(f *ptFacts) string {
		if f.real {
			return ""
		}
		return bad(f)
	}
	return r
}

// lineupRules are issue 29's invariants on every variant of the full
// catalogue, by item: the line-ups, impossible combinations and
// anachronisms, figures, names, prices, safety and equipment, shape.
var lineupRules = []editorRule{
	// 1-2. Line-ups.
	{"variant of a real line-up that none of its rows gives", func(f *variantFacts) string {
		if !f.real {
			return ""
		}
		for _, r := range f.rows {
			hp := f.hp
			if hp == 0 {
				hp = float64(r.PS) // no specs recorded: the name, fuel, gearbox and drive must still be the row's
			}
			if offerMatches(r, f.model, f.name, f.fuel, f.transmission, f.drive, hp) {
				return ""
			}
		}
		return fmt.Sprintf("%s %.0f hp %s %s drive is in none of the %d rows", f.fuel, f.hp, f.transmission, f.drive, len(f.rows))
	}},
	// Impossible combinations and anachronisms.
	{"manual gearbox where only automatics were sold", func(f *variantFacts) string {
		if f.transmission != "manual" || f.real {
			return ""
		}
		prem := premiumBrand[f.brand]
		switch {
		case f.fuel == "hybrid" || f.fuel == "plug_in_hybrid" || f.fuel == "electric" || f.fuel == "hydrogen":
			return "manual " + f.fuel
		case f.segment == 'F' && f.year >= 1995:
			return "manual luxury car"
		case prem >= 0.7 && f.body == "suv" && f.segment >= 'D' && f.year >= 2007:
			return "manual premium SUV"
		case prem >= 0.7 && f.segment == 'E' && f.year >= 2017:
			return "manual premium E segment"
		case prem >= 1.5 && f.brand != "porsche" && f.year >= 2012:
			return "manual exotic"
		}
		return ""
	}},
	{"combustion engine in an electric-only nameplate", func(f *variantFacts) string {
		if f.powertrain == "ev" && f.fuel != "electric" && !f.real {
			return f.fuel
		}
		return ""
	}},
	{"four-wheel-drive name before or after its era", func(f *variantFacts) string {
		w := " " + nameRest(f) + " "
		switch {
		case f.brand == "volkswagen" && strings.Contains(w, " 4MOTION ") && f.to < 1998:
			return "4MOTION before 1998"
		case f.brand == "volkswagen" && strings.Contains(w, " syncro ") && f.from > 2000:
			return "syncro after 2000"
		case f.brand == "bmw" && strings.Contains(w, "xDrive") && f.to < 2003:
			return "xDrive before 2003"
		}
		return ""
	}},
	{"electric car before 2010 that no table lists", func(f *variantFacts) string {
		if f.fuel != "electric" || f.to >= 2010 || f.powertrain == "ev" || f.real {
			return ""
		}
		for y := f.from; y <= f.to; y++ {
			if len(vocab.Default().EVVersions(f.brand, f.model, y)) > 0 {
				return ""
			}
		}
		return fmt.Sprintf("electric in %d-%d", f.from, f.to)
	}},
	{"emission standard outside its model years", func(f *variantFacts) string {
		e, ok := f.sp["euro_norm"]
		if !ok {
			return ""
		}
		got := vocab.Default().Enums[mustEnum(vocab.Default(), "euro")].Values[e].Slug
		lo, hi := euroRank(euroNorm(f.from)), euroRank(euroNorm(f.to))
		if r := euroRank(got); r < lo || r > hi || lo < 0 && hi < 0 {
			return fmt.Sprintf("%s in %d-%d", got, f.from, f.to)
		}
		return ""
	}},
	tableRule(editorRule{"engine too big for its segment (rule-based line-ups)", func(f *variantFacts) string {
		cc, cyl := int(f.sp["displacement_cc"]), int(f.sp["cylinders"])
		if cc == 0 || cyl == 0 || engineFitsSegment(cc, cyl, f.segment) || f.body == "van" || f.body == "pickup" || haloModels[f.key()] > 0 {
			return ""
		}
		// Too big, when the brand had an engine of the segment's size in
		// those years (a brand without one sold its bigger ones: the
		// Vaneo's 2.1 CDI).
		fams := vocab.Default().EngineFamiliesFor(f.brand, f.model)
		kind := vocab.FamilyKind(f.fuel, fams)
		for _, fam := range fams {
			if fam.Models == nil && fam.Fuel == kind && engineFitsSegment(fam.CC, fam.Cylinders, f.segment) && fam.Covers(f.from) && fam.Covers(f.to) {
				return fmt.Sprintf("%d cc, %d cylinders in segment %c", cc, cyl, f.segment)
			}
		}
		return ""
	}}),
	// 3. Figures.
	{"combustion consumption below its era", func(f *variantFacts) string {
		l, cycle := f.combined()
		if l <= 0 || f.fuel != "petrol" && f.fuel != "diesel" {
			return ""
		}
		// The floor of the generation's last model year: an engine of any
		// of its years is at least that thirsty.
		floor := interpolate([][2]float64{{1990, 5.0}, {2000, 4.5}, {2005, 4.3}, {2010, 3.9}, {2018, 3.5}}, float64(f.to))
		if f.fuel == "diesel" {
			floor = interpolate([][2]float64{{1990, 4.3}, {1998, 2.9}, {2018, 2.9}}, float64(f.to))
		}
		if cycle == "WLTP" {
			floor /= nedcRatio
		}
		if l < floor {
			return fmt.Sprintf("%.1f l/100 km %s in %d", l, cycle, f.from)
		}
		return ""
	}},
	{"six or more cylinders under 7.5 l/100 km before 2005 (petrol)", func(f *variantFacts) string {
		l, _ := f.combined()
		if f.fuel == "petrol" && f.sp["cylinders"] >= 6 && f.to < 2005 && l > 0 && l < 7.5 {
			return fmt.Sprintf("%.1f l/100 km", l)
		}
		return ""
	}},
	{"EV range disagrees with its usable battery and consumption", func(f *variantFacts) string {
		rng, e := float64(f.sp["range_wltp_km"]), float64(f.sp["energy_wltp_kwh_100km"])/10
		if f.fuel != "electric" || rng == 0 || e == 0 || f.batteryKWh == 0 {
			return ""
		}
		if k := rng * e / 100 / (f.batteryKWh * 0.92); k < 0.95 || k > 1.45 {
			return fmt.Sprintf("%.0f km at %.1f kWh/100 km from %.1f kWh usable (%.2f)", rng, e, f.batteryKWh*0.92, k)
		}
		return ""
	}},
	{"top speed beyond the maker's limiter", func(f *variantFacts) string {
		ts := float64(f.sp["top_speed_kmh"])
		hyb := f.fuel == "hybrid" || f.fuel == "plug_in_hybrid"
		switch {
		case ts == 0:
		case germanLimited[f.brand] && f.segment != 'S' && ts > 250 && !f.publishedTop:
			return fmt.Sprintf("%.0f km/h", ts)
		case f.brand == "volvo" && f.from >= 2020 && ts > 180:
			return fmt.Sprintf("%.0f km/h", ts)
		case f.brand == "toyota" && hyb && ts > 180:
			return fmt.Sprintf("%.0f km/h hybrid", ts)
		}
		return ""
	}},
	{"dimensions of another era", func(f *variantFacts) string {
		l, ok := f.sp["length_mm"]
		if !ok || (f.body != "hatchback" && f.body != "sedan") {
			return ""
		}
		anchors := map[byte][2]float64{'B': {3700, 4050}, 'C': {4050, 4300}, 'D': {4500, 4750}}
		a, ok := anchors[f.segment]
		if !ok {
			return ""
		}
		want := a[0] + (a[1]-a[0])*math.Min(float64(f.markStart-1990)/30, 1)
		if math.Abs(float64(l)/want-1) > 0.08 {
			return fmt.Sprintf("%d mm in a %d mark (about %.0f)", l, f.markStart, want)
		}
		awd := 0.0
		if f.drive == "all" {
			awd = 75 // a Golf III VR6 syncro weighed about 1,425 kg
		}
		if f.from < 1995 && f.hasWeight && isCombustion(f.fuel) && (f.segment == 'B' && f.weight > 1100+awd || f.segment == 'C' && f.weight > 1350+awd) {
			return fmt.Sprintf("%.0f kg in %d", f.weight, f.from)
		}
		return ""
	}},
	{"tyres outside the car's class", func(f *variantFacts) string {
		tyre, ok := f.text("tyre_size_front")
		if !ok {
			return ""
		}
		var w, a, rim int
		if _, err := fmt.Sscanf(tyre, "%d/%d R%d", &w, &a, &rim); err != nil {
			return "unreadable " + tyre
		}
		switch {
		case f.body == "hatchback" && w > 245:
			return tyre + " on a hatchback"
		case f.body == "suv" && f.segment <= 'C' && (w > 255 || rim > 20):
			return tyre + " on a small SUV"
		case a < 30 || rim > 22:
			return tyre
		}
		return ""
	}},
	// 4. Names.
	{"model year in the name", func(f *variantFacts) string {
		if yearInName.MatchString(f.name) {
			return "year"
		}
		return ""
	}},
	// 6. Safety and equipment.
	{"Euro NCAP result not from the published results", func(f *variantFacts) string {
		stars, has := f.sp["euro_ncap_stars"]
		adult, hasAdult := f.sp["euro_ncap_adult_pct"]
		if !has {
			if hasAdult {
				return fmt.Sprintf("adult %d %% without stars", adult)
			}
			return ""
		}
		// The result of one of the generation's model years.
		for y := f.from; y <= f.to; y++ {
			n, ok := ncapFor(f.brand, f.model, f.markStart, f.markEnd, y)
			if ok && int(stars) == n.stars && f.sp["euro_ncap_year"] == int32(n.year) && (hasAdult && int(adult) == n.adult || !hasAdult && n.adult == 0) {
				return ""
			}
		}
		return fmt.Sprintf("%d stars (%d), no such published result", stars, f.sp["euro_ncap_year"])
	}},
	{"highway assist or stop & go without adaptive cruise control", func(f *variantFacts) string {
		acc, known := f.sp["adaptive_cruise_control"]
		if (f.sp["highway_assist"] == 1 || f.sp["stop_and_go"] == 1) && known && acc != 1 {
			return "no adaptive cruise control"
		}
		return ""
	}},
	{"equipment before its era", func(f *variantFacts) string {
		v := vocab.Default()
		for k, x := range f.sp {
			st := v.Specs[v.MustSpec(k)]
			if x != 1 || !strings.HasPrefix(st.Gen, "eq:") {
				continue
			}
			since, _ := strconv.Atoi(strings.Split(st.Gen, ":")[3])
			if f.to < since {
				return fmt.Sprintf("%s (from %d) in %d-%d", k, since, f.from, f.to)
			}
		}
		return ""
	}},
	// 5. Prices.
	{"price not in the money of its day", func(f *variantFacts) string {
		if !f.hasPrice || f.fuel == "electric" || !volumeBrand(f.brand) || f.segment > 'C' || f.segment == 'A' && f.from >= 2010 {
			return ""
		}
		if f.to < 2000 && (f.price > 32000 || f.price < 4000) {
			return fmt.Sprintf("€%d in %d-%d", f.price, f.from, f.to)
		}
		return ""
	}},
}

var (
	yearInName = regexp.MustCompile(`\(\d{4}\)`)
	powerWord  = regexp.MustCompile(`\(\d+ PS\)`)
)

// euroRank is a Euro norm's place in the sequence, -1 for none.
func euroRank(e string) int {
	return slices.Index([]string{"euro1", "euro2", "euro3", "euro4", "euro5", "euro6", "euro6d_temp", "euro6d", "euro6e"}, e)
}

// combined is the variant's combined consumption as recorded and its
// cycle: the NEDC figure before 2018, WLTP after.
func (f *variantFacts) combined() (float64, string) {
	if x, ok := f.sp["fuel_nedc_l_100km"]; ok {
		return float64(x) / 10, "NEDC"
	}
	if x, ok := f.sp["fuel_wltp_l_100km"]; ok {
		return float64(x) / 10, "WLTP"
	}
	return 0, ""
}

// text is a text spec's value.
func (f *variantFacts) text(key string) (string, bool) {
	x, ok := f.sp[key]
	if !ok {
		return "", false
	}
	return f.texts[x], true
}

// TestLineupInvariants checks issue 29's rules on every variant of the
// full catalogue: each by name, 0 violations.
func TestLineupInvariants(t *testing.T) {
	checkEditorRules(t, lineupRules)
}

// TestGenerationInvariants29 checks the rules that look at a generation's
// variants together.
func TestLineupGroupInvariants(t *testing.T) {
	s := full(t)
	facts := collectFacts(t, s)
	byGen := map[uint32][]*variantFacts{}
	var order []uint32
	for i := range facts {
		g := s.Variants[facts[i].row].Generation
		if byGen[g] == nil {
			order = append(order, g)
		}
		byGen[g] = append(byGen[g], &facts[i])
	}
	label := func(f *variantFacts) string { return fmt.Sprintf("%q (%s %d)", f.name, f.brand, f.from) }
	groups := []struct {
		name string
		bad  func(vs []*variantFacts, add func(f *variantFacts, format string, args ...any))
	}{
		{"line-up row without a variant in its generation", func(vs []*variantFacts, add func(*variantFacts, string, ...any)) {
			if len(vs) == 0 || !vs[0].real {
				return
			}
			for _, r := range vs[0].rows {
				found := false
				for _, f := range vs {
					hp := f.hp
					if hp == 0 {
						hp = float64(r.PS) // a variant without specs: its name, fuel, gearbox and drive
					}
					if offerMatches(r, f.model, f.name, f.fuel, f.transmission, f.drive, hp) {
						found = true
						break
					}
				}
				// Two rows of one badge, power and fuel in one generation
				// are one offer.
				for _, f := range vs {
					for _, r2 := range vs[0].rows {
						if r2 != r && r2.Badge == r.Badge && r2.PS == r.PS && r2.Fuel == r.Fuel && offerMatches(r2, f.model, f.name, f.fuel, f.transmission, f.drive, f.hp) {
							found = true
						}
					}
				}
				if !found {
					add(vs[0], "%s %s %d PS (%s)", r.Badge, r.Fuel, r.PS, r.Source)
				}
			}
		}},
		{"one badge at several powers in a generation", func(vs []*variantFacts, add func(*variantFacts, string, ...any)) {
			powers := map[string]map[float64]bool{}
			first := map[string]*variantFacts{}
			for _, f := range vs {
				if f.hp == 0 {
					continue
				}
				k := f.fuel + "\t" + versionKey(f)
				if f.real {
					// A real variant's version is its row's badge, and
					// the power its name says when the badge had two.
					k = f.fuel + "\t" + f.badge + powerWord.FindString(f.name)
				}
				if powers[k] == nil {
					powers[k], first[k] = map[float64]bool{}, f
				}
				powers[k][f.hp] = true
			}
			for k, p := range powers {
				if len(p) > 1 {
					add(first[k], "%q at %d powers", strings.Split(k, "\t")[1], len(p))
				}
			}
		}},
		{"EVs of one powertrain at different top speeds", func(vs []*variantFacts, add func(*variantFacts, string, ...any)) {
			speeds := map[string][]float64{}
			first := map[string]*variantFacts{}
			for _, f := range vs {
				ts := float64(f.sp["top_speed_kmh"])
				if f.fuel != "electric" || ts == 0 {
					continue
				}
				k := fmt.Sprintf("%.0f/%.1f/%s", f.hp, f.batteryKWh, f.drive)
				speeds[k] = append(speeds[k], ts)
				if first[k] == nil {
					first[k] = f
				}
			}
			for k, x := range speeds {
				if slices.Max(x)-slices.Min(x) >= 20 {
					add(first[k], "%s: %.0f-%.0f km/h", k, slices.Min(x), slices.Max(x))
				}
			}
		}},
		{"higher trim cheaper than a lower one of the same version", func(vs []*variantFacts, add func(*variantFacts, string, ...any)) {
			by := map[string][]*variantFacts{}
			var keys []string
			for _, f := range vs {
				if !f.hasPrice {
					continue
				}
				version := versionKey(f)
				if f.real {
					version = f.badge + powerWord.FindString(f.name)
				}
				k := fmt.Sprintf("%s|%s|%s|%d|%s|%.0f", version, f.fuel, f.transmission, f.gears, f.drive, f.hp)
				if by[k] == nil {
					keys = append(keys, k)
				}
				by[k] = append(by[k], f)
			}
			for _, k := range keys {
				fs := by[k]
				if len(fs) < 2 {
					continue
				}
				ladders := laddersOf(fs)
				if fs[0].real {
					ladders = realLadders(fs)
				}
				if len(ladders) == 0 {
					add(fs[0], "trims %v in no ladder of the brand", trimsOfAll(fs))
					continue
				}
				// The prices rise with the trims of the ladder of one of
				// the offer's years.
				var why string
				for _, ladder := range ladders {
					trimOf := func(f *variantFacts) string {
						if f.real {
							return shownTrimOf(f, ladder)
						}
						return trimOf(f)
					}
					why = ""
					for _, hi := range fs {
						for _, lo := range fs {
							if why == "" && ladder[trimOf(hi)] > ladder[trimOf(lo)] && hi.price < lo.price {
								why = fmt.Sprintf("%q at €%d below %q at €%d", hi.name, hi.price, lo.name, lo.price)
							}
						}
					}
					if why == "" {
						break
					}
				}
				if why != "" {
					add(fs[0], "%s", why)
				}
			}
		}},
		{"variants that differ only in their names", func(vs []*variantFacts, add func(*variantFacts, string, ...any)) {
			seen := map[string]*variantFacts{}
			for _, f := range vs {
				if !f.hasPrice {
					continue
				}
				l, _ := f.combined()
				k := fmt.Sprintf("%s|%.0f|%d|%d|%.1f|%.1f|%.0f|%s|%d|%s|%s|%d|%d", f.fuel, f.hp, f.sp["displacement_cc"], f.sp["torque_nm"], f.batteryKWh, l, f.co2, f.transmission, f.gears, f.drive, f.body, f.sp["seats"], f.price)
				if g := seen[k]; g != nil {
					add(f, "same as %q", g.name)
				}
				seen[k] = f
			}
		}},
	}
	for _, gr := range groups {
		t.Run(strings.ReplaceAll(gr.name, " ", "_"), func(t *testing.T) {
			var v tally
			for _, g := range order {
				gr.bad(byGen[g], func(f *variantFacts, format string, args ...any) {
					v.add("%s: %s", label(f), fmt.Sprintf(format, args...))
				})
			}
			v.report(t)
		})
	}
}

// TestVariantsPerGeneration: a generation shows what its line-up and its
// nameplate's popularity give, not a fixed number: no count holds more
// than 7 % of the generations (the id scheme's 63 is reached only by the
// line-ups that hold more), the counts spread, and a real line-up's
// count follows its number of engine offers.
func TestVariantsPerGeneration(t *testing.T) {
	s := full(t)
	count := map[uint32]int{}
	for i := range s.Variants {
		count[s.Variants[i].Generation]++
	}
	hist := map[int]int{}
	for _, n := range count {
		hist[n]++
	}
	top, topN := 0, 0
	for n, k := range hist {
		if k > topN || k == topN && n > top {
			top, topN = n, k
		}
	}
	t.Logf("%d generations; the commonest count %d holds %d; %d at the id scheme's %d; %d distinct counts", len(count), top, topN, hist[maxVariantsPerGen], maxVariantsPerGen, len(hist))
	if float64(topN) > 0.07*float64(len(count)) {
		t.Errorf("%d generations have %d variants: a cap, not line-ups", topN, top)
	}
	if len(hist) < 40 {
		t.Errorf("only %d distinct variant counts per generation", len(hist))
	}
	var x, y []float64
	for g, lg := range lineupGens() {
		if lg.rows == nil {
			continue
		}
		offers := map[string]bool{}
		for _, r := range lg.rows {
			offers[fmt.Sprint(r.Badge, r.PS, r.Fuel)] = true
		}
		x, y = append(x, float64(len(offers))), append(y, float64(count[g]))
	}
	r := correlation(x, y)
	t.Logf("%d generations with real line-ups: correlation of their variants with their engine offers %.2f", len(x), r)
	if r < 0.6 {
		t.Errorf("a real line-up's variants follow its offers with correlation %.2f, want at least 0.6", r)
	}
}

// versionKey is a variant's name without its trim, gearbox, drive and
// the words that tell duplicates apart: the version ("Golf 2.0 TDI 150",
// "3 Series 320d").
func versionKey(f *variantFacts) string {
	words := strings.Fields(nameRest(f))
	trims := trimWords()[f.brand]
	for len(words) > 1 {
		cut := false
		for n := min(3, len(words)-1); n >= 1 && !cut; n-- {
			tail := strings.Join(words[len(words)-n:], " ")
			if nameExtras()[tail] || trims[tail] {
				words, cut = words[:len(words)-n], true
			}
		}
		if !cut {
			break
		}
	}
	return strings.Join(words, " ")
}

// nameExtras are the name words that are not the version's: gearbox and
// drive names, the disambiguating words.
var nameExtras = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{"FWD": true, "RWD": true, "AWD": true, "manual": true, "CVT": true, "e-CVT": true, "Automatic": true,
		"Multidrive S": true}
	for g := range gearboxEras() {
		out[g] = true
	}
	for _, w := range []string{"DSG", "S tronic", "tiptronic", "Tiptronic", "Steptronic", "PDK", "Tiptronic S", "EDC", "EAT6", "EAT8", "PowerShift", "DCT"} {
		out[w] = true
	}
	for n := 2; n <= 10; n++ {
		out[strconv.Itoa(n)+"-speed"] = true
		out[strconv.Itoa(n)+"-speed manual"] = true
		out[strconv.Itoa(n)+" seats"] = true
	}
	return out
})

// trimWords are the trim names of each brand in the generator's tables
// and in data/vocab/trims.
var trimWords = sync.OnceValue(func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	add := func(brand string, ws []string) {
		if out[brand] == nil {
			out[brand] = map[string]bool{}
		}
		for _, w := range ws {
			if w != "" {
				out[brand][w] = true
			}
		}
	}
	for _, t := range vocab.Default().TrimLadders {
		add(t.Brand, t.Trims)
	}
	for _, b := range vocab.Default().Brands {
		add(b.Slug, trimsFor(b.Slug, b.Style))
		for _, e := range eraTrims[b.Slug] {
			add(b.Slug, e.trims)
		}
	}
	for k, ts := range modelTrims {
		brand, _, _ := strings.Cut(k, "/")
		add(brand, ts)
	}
	return out
})

// trimOf is the trim word(s) at the end of a variant's name (before the
// words that tell duplicates apart), "" when it has none.
func trimOf(f *variantFacts) string {
	words := strings.Fields(nameRest(f))
	trims := trimWords()[f.brand]
	for len(words) > 1 {
		cut := false
		for n := min(2, len(words)-1); n >= 1 && !cut; n-- {
			if tail := strings.Join(words[len(words)-n:], " "); nameExtras()[tail] && !trims[tail] {
				words, cut = words[:len(words)-n], true
			}
		}
		if !cut {
			break
		}
	}
	for n := min(3, len(words)-1); n >= 1; n-- {
		if tail := strings.Join(words[len(words)-n:], " "); trims[tail] {
			return tail
		}
	}
	return ""
}

func trimsOfAll(fs []*variantFacts) []string {
	var out []string
	for _, f := range fs {
		out = append(out, trimOf(f))
	}
	return out
}

// laddersOf are the ranks of each trim in the ladders of the variants'
// brand that hold all their trims (no trim word ranks first: the base
// trim named as the model, or none).
func laddersOf(fs []*variantFacts) []map[string]int {
	f := fs[0]
	var ladders [][]string
	for _, t := range vocab.Default().TrimLadders {
		if t.Brand == f.brand {
			ladders = append(ladders, t.Trims)
		}
	}
	for _, e := range eraTrims[f.brand] {
		ladders = append(ladders, e.trims)
	}
	if t, ok := modelTrims[f.brand+"/"+f.model]; ok {
		ladders = append(ladders, t)
	}
	ladders = append(ladders, trimsFor(f.brand, ""), genericTrims)
	var out []map[string]int
	for _, l := range ladders {
		rank := map[string]int{"": -1}
		for i, t := range l {
			if t == f.model {
				continue
			}
			if _, dup := rank[t]; !dup {
				rank[t] = i
			}
		}
		all := true
		for _, g := range fs {
			if _, ok := rank[trimOf(g)]; !ok {
				all = false
			}
		}
		if all {
			out = append(out, rank)
		}
	}
	return out
}

// lineupCheck is the engine line-up of one real generation as the makers'
// European price lists of its years gave it: each offer as its fuel and
// power in PS ("petrol 245"), the same offer at the same power once.
type lineupCheck struct {
	brand, model, generation string
	offers                   []string
}

// lineupChecks are 32 well-known generations of the 1990s to today.
var lineupChecks = []lineupCheck{
	{"volkswagen", "Golf", "Golf VIII", []string{"petrol 90", "petrol 110", "petrol 130", "petrol 150", "petrol 190", "petrol 245", "petrol 300", "petrol 320", "petrol 333",
		"mild_hybrid 110", "mild_hybrid 130", "mild_hybrid 150", "diesel 115", "diesel 150", "diesel 200", "plug_in_hybrid 204", "plug_in_hybrid 245"}},
	{"volkswagen", "Golf", "Golf VII", []string{"petrol 85", "petrol 86", "petrol 105", "petrol 110", "petrol 115", "petrol 122", "petrol 125", "petrol 140", "petrol 150",
		"petrol 220", "petrol 230", "petrol 265", "petrol 300", "petrol 310", "cng 110", "diesel 90", "diesel 105", "diesel 110", "diesel 150", "diesel 184",
		"plug_in_hybrid 204", "electric 115"}},
	{"volkswagen", "Polo", "Polo AW", []string{"petrol 65", "petrol 75", "petrol 95", "petrol 115", "petrol 150", "petrol 200", "cng 90", "diesel 80", "diesel 95"}},
	{"volkswagen", "Passat", "Passat B8", []string{"petrol 125", "petrol 150", "petrol 180", "petrol 220", "petrol 280", "diesel 120", "diesel 150", "diesel 190",
		"diesel 240", "plug_in_hybrid 218"}},
	{"volkswagen", "Tiguan", "Tiguan II", []string{"petrol 125", "petrol 130", "petrol 150", "petrol 180", "petrol 190", "petrol 220", "diesel 115", "diesel 150",
		"diesel 190", "diesel 240"}},
	{"volkswagen", "ID.3", "ID.3", []string{"electric 145", "electric 150", "electric 204"}},
	{"volkswagen", "up!", "up!", []string{"petrol 60", "petrol 75", "cng 68", "electric 82"}},
	{"skoda", "Octavia", "Octavia IV", []string{"petrol 110", "petrol 150", "petrol 190", "petrol 245", "mild_hybrid 110", "mild_hybrid 150", "cng 130",
		"diesel 115", "diesel 150", "diesel 200", "plug_in_hybrid 204", "plug_in_hybrid 245"}},
	{"toyota", "Yaris", "Yaris XP210", []string{"petrol 72", "petrol 125", "hybrid 116"}},
	{"toyota", "Corolla", "Corolla E210", []string{"petrol 116", "petrol 132", "hybrid 122", "hybrid 184"}},
	{"toyota", "RAV4", "RAV4 XA50", []string{"petrol 175", "hybrid 218", "hybrid 222", "plug_in_hybrid 306"}},
	{"toyota", "C-HR", "C-HR I", []string{"petrol 116", "hybrid 122"}},
	{"toyota", "Aygo X", "Aygo X", []string{"petrol 72"}},
	{"nissan", "Qashqai", "Qashqai J12", []string{"mild_hybrid 140", "mild_hybrid 158", "hybrid 190"}},
	{"nissan", "Leaf", "Leaf ZE1", []string{"electric 150", "electric 217"}},
	{"dacia", "Sandero", "Sandero III", []string{"petrol 67", "petrol 90", "petrol 110", "lpg 100"}},
	{"dacia", "Spring", "Spring", []string{"electric 45", "electric 65"}},
	{"fiat", "500", "500 (332)", []string{"electric 95", "electric 118"}},
	{"peugeot", "208", "208 II", []string{"petrol 75", "petrol 100", "petrol 130", "diesel 102", "electric 136"}},
	{"peugeot", "3008", "3008 II", []string{"petrol 130", "petrol 165", "petrol 180", "diesel 100", "diesel 120", "diesel 130", "diesel 150", "diesel 177", "diesel 180"}},
	{"renault", "Clio", "Clio V", []string{"petrol 67", "petrol 72", "petrol 90", "petrol 100", "petrol 130", "diesel 85", "diesel 100", "diesel 115",
		"hybrid 140", "hybrid 143", "lpg 100"}},
	{"renault", "Captur", "Captur II", []string{"petrol 90", "petrol 100", "petrol 130", "petrol 155", "mild_hybrid 140", "mild_hybrid 158",
		"diesel 95", "diesel 115", "hybrid 143", "plug_in_hybrid 160", "lpg 100"}},
	{"renault", "Zoe", "Zoe", []string{"electric 88", "electric 92", "electric 108"}},
	{"ford", "Focus", "Focus Mk4", []string{"petrol 85", "petrol 100", "petrol 125", "petrol 150", "petrol 182", "petrol 280", "mild_hybrid 125",
		"mild_hybrid 155", "diesel 95", "diesel 120", "diesel 150", "diesel 190"}},
	{"mazda", "MX-5", "MX-5 ND", []string{"petrol 131", "petrol 132", "petrol 160", "petrol 184"}},
	{"hyundai", "Kona", "Kona OS", []string{"petrol 120", "petrol 177", "diesel 115", "diesel 136", "hybrid 141", "electric 136", "electric 204"}},
	{"hyundai", "i30", "i30 PD", []string{"petrol 100", "petrol 120", "petrol 140", "petrol 250", "petrol 275", "diesel 110", "diesel 136"}},
	{"kia", "EV6", "EV6", []string{"electric 170", "electric 229", "electric 325", "electric 585"}},
	{"porsche", "911", "911 992", []string{"petrol 385", "petrol 450", "petrol 480", "petrol 510", "petrol 525", "petrol 550", "petrol 580", "petrol 650"}},
	{"mercedes-benz", "A-Class", "A-Class W177", []string{"petrol 109", "petrol 136", "petrol 163", "petrol 190", "petrol 224", "petrol 306", "petrol 387",
		"petrol 421", "diesel 116", "diesel 150", "diesel 190", "plug_in_hybrid 218"}},
	{"audi", "A3 Sportback", "A3 Sportback 8Y", []string{"petrol 110", "petrol 150", "petrol 190", "petrol 310", "petrol 400", "mild_hybrid 150",
		"cng 131", "diesel 116", "diesel 150", "diesel 200", "plug_in_hybrid 204", "plug_in_hybrid 245"}},
	{"bmw", "1 Series", "1 Series F40", []string{"petrol 109", "petrol 140", "petrol 178", "petrol 265", "petrol 306", "diesel 116", "diesel 150", "diesel 190"}},
}

// TestLineups checks the line-up of each generation of lineupChecks in the
// full catalogue: every offer of the list is there (recall), and every
// offer there is in the list (precision), by fuel and power within 1 PS.
// Both must reach 0.95 over the 32 generations, and none may be missing.
func TestLineups(t *testing.T) {
	s := full(t)
	facts := collectFacts(t, s)
	if len(lineupChecks) < 30 {
		t.Fatalf("%d generations checked, want at least 30", len(lineupChecks))
	}
	byGen := map[string][]*variantFacts{}
	for i := range facts {
		f := &facts[i]
		g := s.Generations[s.Variants[f.row].Generation].Name
		byGen[f.brand+"|"+f.model+"|"+g] = append(byGen[f.brand+"|"+f.model+"|"+g], f)
	}
	var want, found, have, known int
	for _, lc := range lineupChecks {
		vs := byGen[lc.brand+"|"+lc.model+"|"+lc.generation]
		if len(vs) == 0 {
			t.Errorf("%s %s: no such generation in the catalogue", lc.brand, lc.generation)
			continue
		}
		type offer struct {
			fuel string
			ps   float64
		}
		var list []offer
		for _, o := range lc.offers {
			fuel, ps, _ := strings.Cut(o, " ")
			x, _ := strconv.Atoi(ps)
			list = append(list, offer{fuel, float64(x)})
		}
		in := func(o offer, os []offer) bool {
			for _, p := range os {
				if p.fuel == o.fuel && math.Abs(p.ps-o.ps) <= 1 {
					return true
				}
			}
			return false
		}
		var cat []offer
		for _, f := range vs {
			if f.hp > 0 && !in(offer{f.fuel, f.hp}, cat) {
				cat = append(cat, offer{f.fuel, f.hp})
			}
		}
		var miss, extra []string
		for _, o := range list {
			want++
			if in(o, cat) {
				found++
			} else {
				miss = append(miss, fmt.Sprintf("%s %.0f", o.fuel, o.ps))
			}
		}
		for _, o := range cat {
			have++
			if in(o, list) {
				known++
			} else {
				extra = append(extra, fmt.Sprintf("%s %.0f", o.fuel, o.ps))
			}
		}
		if len(miss)+len(extra) > 0 {
			t.Logf("%s: missing %v; not in the list %v", lc.generation, miss, extra)
		}
	}
	recall, precision := float64(found)/float64(want), float64(known)/float64(have)
	t.Logf("%d generations: recall %.3f (%d of %d offers), precision %.3f (%d of %d)", len(lineupChecks), recall, found, want, precision, known, have)
	if recall < 0.95 || precision < 0.95 {
		t.Errorf("recall %.3f, precision %.3f; want both at least 0.95", recall, precision)
	}
}

// realLadders are, for a group of one real version's variants, the ranks of
// the trims as their names show them (shownTrim) in each ladder the
// version may have had in the generation's years: its own and its
// nameplate's of trims/*.tsv, else the brand's of the era. No trim word
// ranks as the ladder's first trim the name leaves out, else first.
func realLadders(fs []*variantFacts) []map[string]int {
	f := fs[0]
	v := vocab.Default()
	perf := performanceBadge(f.brand, f.badge)
	var ladders [][]string
	for y := f.from; y <= f.to; y++ {
		if t := v.Trims(f.brand, f.model, f.badge, y, perf); t != nil {
			ladders = append(ladders, t)
		}
	}
	base := trimsFor(f.brand, "")
	var era []string
	for i := range base {
		era = append(era, trimName(f.brand, f.model, f.year, i, len(base), base))
	}
	ladders = append(ladders, era)
	var out []map[string]int
	for _, l := range ladders {
		rank := map[string]int{}
		for i, t := range l {
			if _, dup := rank[shownTrim(f.model, f.badge, t)]; !dup {
				rank[shownTrim(f.model, f.badge, t)] = i
			}
		}
		if _, ok := rank[""]; !ok {
			rank[""] = -1
		}
		all := true
		for _, g := range fs {
			if _, ok := rank[shownTrimOf(g, rank)]; !ok {
				all = false
			}
		}
		if all {
			out = append(out, rank)
		}
	}
	return out
}

// shownTrimOf is the trim a real variant's name shows of a ladder's (as
// ranks gives them): the longest that ends the name before its
// distinguishing words, "" for none.
func shownTrimOf(f *variantFacts, ranks map[string]int) string {
	name := f.name
	for _, w := range []string{powerWord.FindString(name)} {
		name = strings.Replace(name, " "+w, "", 1)
	}
	words := strings.Fields(name)
	for len(words) > 1 && nameExtras()[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	name = " " + strings.Join(words, " ")
	best := ""
	for t := range ranks {
		if t != "" && strings.HasSuffix(name, " "+t) && len(t) > len(best) {
			best = t
		}
	}
	return best
}
