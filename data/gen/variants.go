package gen

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vspec/catalogue/data/dataset"
)

// Shares of the catalogue with missing data, as in the source catalogue.
const (
	shareNoSpecs     = 0.0012 // variants with no spec rows at all
	shareNoPrice     = 0.07   // variants without a list-price snapshot
	shareZeroPrice   = 0.006  // snapshots whose source price is 0 (unknown)
	shareUncertain   = 0.095  // spec values with a confidence below 1
	presenceCore     = 0.995  // probability that a core spec is recorded
	presenceOptional = 0.79   // probability that any other applicable spec is
)

// alwaysSpecs identify a variant: every variant with specs records them
// wherever they apply (a combustion car always has its displacement,
// consumption and CO2; an EV its battery and range).
var alwaysSpecs = map[string]bool{
	"fuel_type": true, "power_kw": true, "power_hp": true, "transmission": true, "drive_wheel": true, "body_type": true,
	"displacement_cc": true, "fuel_wltp_l_100km": true, "fuel_nedc_l_100km": true, "co2_wltp_g_km": true, "co2_nedc_g_km": true,
	"battery_kwh": true, "range_wltp_km": true, "range_nedc_km": true, "electric_range_km": true, "gas_wltp_kg_100km": true,
	// A published Euro NCAP result is recorded whole.
	"euro_ncap_stars": true, "euro_ncap_year": true, "euro_ncap_adult_pct": true,
	"gears": true,
}

// coreSpecs are recorded for almost every variant: they are what every
// source publishes.
var coreSpecs = map[string]bool{
	"torque_nm": true, "top_speed_kmh": true, "accel_0_100_s": true, "length_mm": true, "width_mm": true, "height_mm": true,
	"curb_weight_kg": true, "seats": true, "doors": true, "energy_wltp_kwh_100km": true, "cylinders": true, "fuel_tank_l": true,
}

type pendingVariant struct {
	c      car
	name   string
	demo   bool
	noSpec bool
}

func (g *generator) emitVariants() error {
	v := g.v
	s := g.set
	total := 0
	for _, m := range g.models {
		for _, gp := range m.gens {
			total += gp.variants
		}
	}
	s.Variants = make([]dataset.Variant, 0, total)
	s.SpecKey = make([]uint8, 0, total*150)
	s.SpecVal = make([]int32, 0, total*150)
	s.SpecConf = make([]uint8, 0, total*150)
	presence := make([]float64, len(v.Specs))
	for i, st := range v.Specs {
		switch {
		case alwaysSpecs[st.Key]:
			presence[i] = 1
		case coreSpecs[st.Key]:
			presence[i] = presenceCore
		default:
			presence[i] = presenceOptional
		}
	}
	genRow := uint32(0)
	done := 0
	for _, m := range g.models {
		seed := g.seedFor(m.demo >= 0)
		for _, gp := range m.gens {
			pending := g.generationVariants(m, gp, seed)
			for ord := range pending {
				pv := &pending[ord]
				id := dataset.VariantID(gp.id, ord+1)
				if pv.demo {
					s.Demo = append(s.Demo, uint32(len(s.Variants)))
				}
				g.emitVariant(pv, id, genRow, seed, presence)
				done++
				if g.opts.Progress != nil && done%2000 == 0 {
					g.opts.Progress(done, total)
				}
			}
			genRow++
		}
	}
	if g.opts.Progress != nil {
		g.opts.Progress(done, total)
	}
	if len(s.Demo) != 40 {
		return fmt.Errorf("the demo set has %d variants, want 40", len(s.Demo))
	}
	return nil
}

// generationVariants builds a generation's variants: its demo cars, then
// the candidates of its line-up in the order choose gives, each named (the
// names unique through real words: disambiguate), listed by fuel, then
// power, then name.
func (g *generator) generationVariants(m *modelPlan, gp *genPlan, seed uint64) []pendingVariant {
	r := g.rng
	demoModel := m.demo >= 0
	pending := make([]pendingVariant, 0, gp.variants)
	taken := map[string]bool{}
	for vi, d := range gp.demoCars {
		r.seed(seed, uint64(dataset.VariantID(gp.id, vi+1)), 5)
		pv := pendingVariant{c: gp.platform, demo: true, name: d.Name}
		c := &pv.c
		c.year, c.fuel = d.Year, d.Fuel
		c.trimLevel = 0.5
		if t, n := g.demoTrim(m, d); n > 0 {
			// Its trim's place in the ladder prices it against its
			// siblings (a 500e La Prima above an Icon).
			c.trim = t
			c.trimLevel = float64(t) / float64(max(1, n-1))
		} else {
			// A trim the ladders do not hold: above the other demo car's
			// when it extends that one's name (Nexo Premium, Premium SE).
			c.trim = vi
			for _, o := range gp.demoCars {
				if o != d && strings.HasPrefix(d.Name, o.Name+" ") {
					t, _ := g.demoTrim(m, o)
					c.trim = t + 1
				}
			}
		}
		c.chooseDrive(r)
		c.chooseTransmission(r)
		c.settleGearbox()
		c.powertrain(r)
		c.performance(r)
		c.pricing(r)
		c.wheels(r)
		d.apply(c, r)
		// The demo car is its line-up's version: it takes the offer's
		// power as the maker states it, and stands for that version's
		// other trims.
		for _, o := range gp.offers {
			if o.proto.fuel == c.fuel && o.proto.kw == c.kw {
				c.hp = o.proto.hp
			}
		}
		taken[d.Name] = true
		pending = append(pending, pv)
	}

	want := gp.variants - len(gp.demoCars)
	order := choose(gp.cands, len(gp.cands))
	var picked []combo
	var cars []*car
	next := 0
	var names []string
	for want > 0 {
		for len(picked) < want && next < len(order) {
			cb := order[next]
			next++
			c := g.comboCar(m, gp, &cb)
			if isDemoVersion(gp, c, cb.o.badge) {
				continue
			}
			picked, cars = append(picked, cb), append(cars, c)
		}
		// One badge at several powers in a generation (330i of 252 and
		// 258 PS) says its power.
		powers := map[string]map[float64]bool{}
		for i := range picked {
			k := cars[i].fuel + "\t" + picked[i].o.badge
			if powers[k] == nil {
				powers[k] = map[float64]bool{}
			}
			powers[k][cars[i].hp] = true
		}
		parts := make([]nameParts, len(picked))
		for i := range picked {
			parts[i] = comboName(m, &picked[i], cars[i], len(powers[cars[i].fuel+"\t"+picked[i].o.badge]) > 1)
		}
		names = disambiguate(parts, cars, m.brand.Style, m.seed.Name)
		kept := 0
		for i := range picked {
			if names[i] == "" || taken[names[i]] {
				continue
			}
			picked[kept], cars[kept], names[kept] = picked[i], cars[i], names[i]
			kept++
		}
		picked, cars, names = picked[:kept], cars[:kept], names[:kept]
		if kept >= want || next >= len(order) {
			break
		}
	}
	for i := range picked {
		pv := pendingVariant{c: *cars[i], name: names[i]}
		pv.noSpec = !demoModel && g.noSpecDraw(gp, i)
		pending = append(pending, pv)
	}
	// Variants of a generation are listed by fuel, then power, then name.
	sort.SliceStable(pending, func(i, j int) bool {
		a, b := &pending[i], &pending[j]
		if fa, fb := g.fuelOrder[a.c.fuel], g.fuelOrder[b.c.fuel]; fa != fb {
			return fa < fb
		}
		if a.c.hp != b.c.hp {
			return a.c.hp < b.c.hp
		}
		return a.name < b.name
	})
	return pending
}

// demoTrim is the place of a demo car's trim (the last words of its name)
// in a ladder of its nameplate and year (trims/*.tsv, else the brand's of
// the era) and the ladder's length; 0, 0 when none holds it.
func (g *generator) demoTrim(m *modelPlan, d *DemoCar) (int, int) {
	var ladders [][]string
	for _, t := range g.v.TrimLadders {
		if t.Brand == m.brand.Slug && t.Covers(d.Year) && (t.Models == nil || slices.Contains(t.Models, m.seed.Name)) {
			ladders = append(ladders, t.Trims)
		}
	}
	base := trimsFor(m.brand.Slug, m.brand.Style)
	var era []string
	for i := range base {
		era = append(era, trimName(m.brand.Slug, m.seed.Name, d.Year, i, len(base), base))
	}
	ladders = append(ladders, era)
	for _, l := range ladders {
		for i, t := range l {
			if t != "" && strings.HasSuffix(d.Name, " "+t) {
				return i, len(l)
			}
		}
	}
	return 0, 0
}

// noSpecDraw decides whether the i-th chosen variant of a generation is
// one of the few the source records no specs for.
func (g *generator) noSpecDraw(gp *genPlan, i int) bool {
	g.rng.seed(g.opts.Seed, uint64(gp.id)<<8|uint64(i), 9)
	return g.rng.chance(shareNoSpecs)
}

// comboCar derives one candidate's figures: the offer's engine with the
// combo's gearbox, drive and trim, what the row publishes over what the
// formulas give.
func (g *generator) comboCar(m *modelPlan, gp *genPlan, cb *combo) *car {
	r := g.rng
	o := cb.o
	c := comboBase(cb)
	r.seed(g.seedFor(m.demo >= 0), uint64(gp.id)<<16^hashString(o.badge+"|"+cb.box.String()+"|"+cb.drive)^uint64(cb.trim)<<40, 5)
	if q, ok := quadricycles[c.brand+"/"+c.model]; ok {
		c.quadricycle(q, r)
	} else if c.pub.kerb > 0 {
		c.weight = c.pub.kerb
		size := kerbBase[c.segment] / kerbBase['C']
		if c.drive == "all" && o.drives[0] != "all" {
			c.weight += math.Round(55 * size)
		}
	} else {
		c.kerbWeight(r)
	}
	c.weight += 8 * float64(c.trim)
	c.performance(r)
	c.applyPublished()
	c.pricing(r)
	c.wheels(r)
	return &c
}

// comboBase is a candidate's car before its figures: the offer's engine
// with the combo's year, gearbox, drive and trim (all its name needs).
func comboBase(cb *combo) car {
	o := cb.o
	c := o.proto
	c.year = cb.year
	c.drive = cb.drive
	c.transmission, c.gears = cb.box.Transmission, cb.box.Gears
	c.trim = cb.trim
	switch n := len(cb.trims); {
	case n > 1:
		c.trimLevel = float64(cb.trim) / float64(n-1)
	case n == 1:
		c.trimLevel = 0.5
	default:
		c.trimLevel = 1 // a performance version comes well equipped
	}
	c.hybridBox = nil
	if c.fuel == "hybrid" || c.isPHEV() {
		for _, b := range c.vocab.HybridGearboxes(c.brand, c.model, c.fuel, c.year) {
			if b.Transmission == c.transmission {
				c.hybridBox = b
				break
			}
		}
	}
	if o.row == nil {
		c.settleGearbox()
	}
	return c
}

// capacity is how many of a generation's candidates can be variants: those
// whose names, made unique, stay apart, other than its demo cars' own
// versions.
func (g *generator) capacity(m *modelPlan, gp *genPlan) int {
	var parts []nameParts
	var cars []*car
	for i := range gp.cands {
		c := comboBase(&gp.cands[i])
		if isDemoVersion(gp, &c, gp.cands[i].o.badge) {
			continue
		}
		cars = append(cars, &c)
		parts = append(parts, comboName(m, &gp.cands[i], &c, false))
	}
	n := 0
	for _, name := range disambiguate(parts, cars, m.brand.Style, m.seed.Name) {
		if name != "" {
			n++
		}
	}
	return n
}

// isDemoVersion reports whether a candidate is the version of one of the
// generation's demo cars (fuel, power, drive and gearbox): the demo car
// stands for it.
func isDemoVersion(gp *genPlan, c *car, badge string) bool {
	for _, d := range gp.demoCars {
		named := badge == c.model || strings.HasPrefix(d.Name, c.model+" "+badge+" ") || badge == ""
		if d.Fuel == c.fuel && math.Abs(d.KW-c.kw) < 1 && d.Drive == c.drive && d.Gearbox == c.transmission && named {
			return true
		}
	}
	return false
}

// comboName are the name words of a candidate: the offer's badge, the
// brand's word for its gearbox and drive, its trim.
func comboName(m *modelPlan, cb *combo, c *car, sayPower bool) nameParts {
	badge := cb.o.badge
	switch {
	case badge == m.seed.Name:
		badge = "" // the Ami's only version is the Ami
	case strings.HasPrefix(badge, m.seed.Name+" "):
		badge = strings.TrimPrefix(badge, m.seed.Name+" ") // Porsche's "Macan S" of the Macan
	}
	if cb.o.row != nil && m.brand.Slug == "bmw" && c.drive == "all" && awdNameOf("bmw", c.genYear, c.year) == "x" && m.seed.Name[0] >= '1' && m.seed.Name[0] <= '8' {
		badge = bmwX(badge)
	}
	if sayPower {
		badge = strings.TrimSpace(badge + " (" + strconv.Itoa(int(c.hp)) + " PS)")
	}
	trim := shownTrim(m.seed.Name, cb.o.badge, cb.trimName())
	return nameParts{badge: badge, box: boxWord(c), drive: driveWord(c, badge), trim: trim}
}

// shownTrim is how a variant's name shows its trim: not at all when the
// name says it already (VW's base Golf is a "Golf", a Focus ST's trim its
// ST, the Clio Renault Sport's "Renault Sport"), without the badge's last
// word when it repeats it (208 GTi and "GTi by Peugeot Sport": "208 GTi by
// Peugeot Sport").
func shownTrim(model, badge, trim string) string {
	words := strings.Fields(badge)
	switch {
	case trim == model || trim == badge || strings.HasSuffix(" "+badge, " "+trim) || strings.HasPrefix(badge, trim+" "):
		return ""
	case len(words) > 0 && strings.HasPrefix(trim, words[len(words)-1]+" "):
		return strings.TrimPrefix(trim, words[len(words)-1]+" ")
	}
	return trim
}

func (g *generator) mustEnum(key string) int {
	i, ok := g.v.EnumIndex(key)
	if !ok {
		panic("BUG: unknown enum " + key)
	}
	return i
}

// emitVariant appends the variant row, its spec values and its images.
func (g *generator) emitVariant(pv *pendingVariant, id, genRow uint32, seed uint64, presence []float64) {
	s, v, r, c := g.set, g.v, g.rng, &pv.c
	r.seed(seed, uint64(id), 6)
	row := dataset.Variant{
		ID: id, Generation: genRow, Name: pv.name,
		Fuel:         uint8(v.MustEnumValue("fuel", c.fuel)),
		Body:         uint8(v.MustEnumValue("body", c.body)),
		Drive:        uint8(v.MustEnumValue("drive", c.drive)),
		Transmission: uint8(v.MustEnumValue("transmission", c.transmission)),
		PowerHP:      dataset.Null, TorqueNM: dataset.Null, TopSpeedKMH: dataset.Null, Accel100: dataset.Null, BatteryKWh: dataset.Null,
	}
	// The Dutch list-price snapshot.
	row.HasPrice = pv.demo || !r.chance(shareNoPrice)
	if row.HasPrice {
		row.PriceEUR = int32(c.price)
		if !pv.demo && r.chance(shareZeroPrice) {
			row.PriceEUR = 0
		}
		last := time.Date(endYear(0), 1, 1, 0, 0, 0, 0, time.UTC)
		if ye := g.genYearEnd(genRow); ye != 0 {
			last = time.Date(ye, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		asOf := last.AddDate(0, 0, r.intn(300))
		if sync := g.opts.SyncedAt.AddDate(0, 0, -1); asOf.After(sync) {
			asOf = sync
		}
		row.PriceAsOf = int32(asOf.Unix() / 86400)
	}
	row.SyncedAt = g.opts.SyncedAt.Unix() - int64(r.intn(120*86400))

	row.SpecStart = uint32(len(s.SpecKey))
	if !pv.noSpec {
		fl := c.flags()
		sp := &g.spec
		hasACC := false
		for i := range v.Specs {
			if fl&sp.need[i] != sp.need[i] {
				continue
			}
			var val int32
			var ok bool
			if sp.fns[i] != nil {
				val, ok = sp.fns[i](c, r, g)
			} else {
				val, ok = yes(equip(sp.eq[i], c, r))
				// Driving assistants build on adaptive cruise control:
				// no highway assist or stop & go without it.
				switch i {
				case sp.acc:
					hasACC = val == 1
				case sp.highway, sp.stopGo:
					if !hasACC {
						val = 0
					}
				}
			}
			if !ok {
				continue
			}
			if i == sp.price {
				// The price spec mirrors the snapshot: present exactly when
				// a known price was recorded.
				if !row.HasPrice || row.PriceEUR == 0 {
					continue
				}
				val = row.PriceEUR
			} else if !pv.demo && presence[i] < 1 && !r.chance(presence[i]) {
				continue
			}
			conf := uint8(0)
			// A demo car's published figures are checked: full confidence.
			if r.chance(shareUncertain) && !(pv.demo && demoPublished[v.Specs[i].Key]) {
				conf = uint8(50 + 5*r.intn(10))
			}
			s.SpecKey = append(s.SpecKey, uint8(i))
			s.SpecVal = append(s.SpecVal, val)
			s.SpecConf = append(s.SpecConf, conf)
			switch i {
			case sp.powerHP:
				row.PowerHP = val
			case sp.torque:
				row.TorqueNM = val
			case sp.topSpeed:
				row.TopSpeedKMH = val
			case sp.accel:
				row.Accel100 = val
			case sp.battery:
				row.BatteryKWh = val
			}
		}
	}
	row.SpecEnd = uint32(len(s.SpecKey))

	row.ImageStart = uint32(len(s.ImageKey))
	for _, img := range g.photos(pv, genRow) {
		s.ImageKey = append(s.ImageKey, img.angle)
		s.ImageRole = append(s.ImageRole, img.role)
	}
	row.ImageEnd = uint32(len(s.ImageKey))
	s.Variants = append(s.Variants, row)
}

func (g *generator) genYearEnd(row uint32) int { return int(g.set.Generations[row].YearEnd) }

// chooseDrive picks the driven wheels from brand, body and powertrain.
func (c *car) chooseDrive(r *rng) {
	rearBrands := map[string]bool{"bmw": true, "mercedes-benz": true, "alpina": true, "jaguar": true, "rolls-royce": true, "maybach": true, "brabus": true, "genesis": true, "lexus": false, "porsche": true}
	w := map[string]float64{"front": 0.85, "rear": 0, "all": 0.15}
	switch {
	case c.isEV():
		w = map[string]float64{"front": 0.3, "rear": 0.4, "all": 0.3}
	case c.body == "pickup":
		w = map[string]float64{"front": 0, "rear": 0.3, "all": 0.7}
	case c.body == "van":
		w = map[string]float64{"front": 0.7, "rear": 0.2, "all": 0.1}
	case rearBrands[c.brand] || c.style == "exotic":
		w = map[string]float64{"front": 0.05, "rear": 0.55, "all": 0.4}
	case c.body == "suv":
		w = map[string]float64{"front": 0.55, "rear": 0, "all": 0.45}
	case c.segment <= 'B':
		w = map[string]float64{"front": 0.97, "rear": 0, "all": 0.03}
	}
	if c.brand == "subaru" {
		w = map[string]float64{"front": 0, "rear": 0.05, "all": 0.95}
	}
	// Factory gas (CNG) cars were front- or rear-driven: the tanks sit
	// where a four-wheel-drive car has its rear axle drive.
	if c.fuel == "cng" {
		w["all"] = 0
	}
	drives := []string{"front", "rear", "all"}
	c.drive = drives[r.weighted([]float64{w["front"], w["rear"], w["all"]})]
}

// chooseTransmission picks gearbox type and gear count.
func (c *car) chooseTransmission(r *rng) {
	switch {
	case c.isEV() || c.isFCEV():
		c.transmission, c.gears = "single_speed", 1
		return
	case c.isPHEV() || c.fuel == "hybrid":
		// The gearbox the brand's hybrids had (hybridgearboxes.tsv): a
		// Toyota's e-CVT, a Hyundai's six-speed DCT, a Renault's
		// multi-mode automatic.
		if boxes := c.vocab.HybridGearboxes(c.brand, c.model, c.fuel, c.year); boxes != nil {
			c.hybridBox = boxes[r.intn(len(boxes))]
			c.transmission, c.gears = c.hybridBox.Transmission, c.hybridBox.Gears
			return
		}
		c.transmission = pick(r, []string{"automatic", "dct"})
		if !c.fitted("dct") {
			c.transmission = "automatic" // only the brands that fitted one (gearboxtypes.tsv)
		}
	default:
		pAuto := 0.08 + 0.6*float64(c.year-1990)/36 + 0.3*c.trimLevel + 0.2*math.Min(c.premium, 1)
		if c.style == "exotic" || c.premium >= 1.5 {
			pAuto = 0.9
		}
		if !r.chance(clamp(pAuto, 0.04, 0.97)) {
			c.transmission = "manual"
			c.gears = 5
			if c.year >= 2003 && (c.segment >= 'C' || r.chance(0.5)) {
				c.gears = 6
			}
			return
		}
		// A DCT, CVT or automated manual only where the brand fitted one
		// to that fuel and nameplate in that year (gearboxtypes.tsv: no
		// Land Rover DCT, no Toyota diesel CVT).
		switch {
		case c.fitted("dct") && r.chance(0.7):
			c.transmission = "dct"
		case c.fitted("cvt") && r.chance(0.5):
			c.transmission, c.gears = "cvt", 1
			return
		case c.segment == 'A' && c.fitted("amt") && r.chance(0.4):
			c.transmission = "amt"
		default:
			c.transmission = "automatic"
		}
	}
	switch c.transmission {
	case "dct":
		c.gears = 6 + r.intn(2)
		if c.year >= 2018 && r.chance(0.4) {
			c.gears = 8
		}
	case "amt":
		c.gears = 5
	default:
		switch {
		case c.year < 2000:
			c.gears = 4 + r.intn(2)
		case c.year < 2010:
			c.gears = 5 + r.intn(3)
		default:
			c.gears = 6 + r.intn(4)
		}
	}
}

// fitted reports whether the car's brand fitted a gearbox of that kind to
// its nameplate and fuel in its model year (gearboxtypes.tsv).
func (c *car) fitted(transmission string) bool {
	return c.vocab.Fitted(c.brand, c.model, c.fuel, transmission, c.year)
}

// rimBase is the rim (inches) of a segment's base version in 2020 (Polo
// 15-16, Golf 16-17, Passat 17, 5 Series 18, S-Class 19); cars of 1990 sat
// on rims about three inches smaller (Polo 86C 13, Golf III 14).
var rimBase = map[byte]float64{'A': 14.5, 'B': 15.5, 'C': 16.5, 'D': 17, 'E': 17.5, 'F': 18.5, 'S': 18, 'V': 16}

// tyreDiameter is the overall tyre diameter (mm) a segment's cars run:
// about 590 mm on a small car (185/65 R15), 630 on a compact (205/55 R16,
// 225/45 R17), 690 on an SUV (215/60 R17).
var tyreDiameter = map[byte]float64{'A': 560, 'B': 590, 'C': 630, 'D': 650, 'E': 670, 'F': 700, 'S': 650, 'V': 680}

// wheels sets rim size and tyre dimensions by model and era: the rim of the
// segment's era, an inch more on higher trims and performance versions;
// the tread width from the car's weight and power (a hatchback stays at
// 245 mm or under); the aspect ratio that keeps the segment's diameter.
func (c *car) wheels(r *rng) {
	rim := rimBase[c.segment] - 3*clamp(float64(2020-c.year)/30, 0, 1) + c.trimLevel
	if c.perf {
		rim++
	}
	if c.body == "suv" || c.body == "pickup" {
		rim++
	}
	c.rim = int(clamp(math.Round(rim), 13, 22))
	w := 135 + 0.055*c.weight + 0.12*math.Max(0, c.kw-90)
	maxW := 255.0
	switch {
	case c.body == "hatchback":
		maxW = 245
	case c.segment <= 'C' && c.body == "suv":
		maxW = 235
	case c.segment == 'S' || c.segment >= 'E':
		maxW = 295
	}
	w = clamp(w, 135, maxW)
	c.tyreWidth = int(math.Floor((w-5)/10))*10 + 5
	d := tyreDiameter[c.segment]
	if c.body == "suv" || c.body == "pickup" {
		d += 60
	}
	aspect := (d - float64(c.rim)*25.4) / (2 * float64(c.tyreWidth)) * 100
	c.tyreAspect = int(clamp(math.Round(aspect/5)*5, 30, 80))
}

// photo is one image of a variant: an angle (an index into
// engine.ImageAngles, which the snapshot's key holds) and a role.
type photo struct {
	angle uint32
	role  uint8
}

const photoSalt = 0x70686f746f73 // "photos"

// photoAngles are the angles of the photographs a body style has, most
// usual first: a generation's press kit always has the first three, often
// more.
var photoAngles = []uint32{0, 1, 2, 5, 6, 3, 4, 8, 7}

// photos are the images of a variant: the photographs of its generation
// with its body, shared by every such variant (a press kit photographs a
// body style, not each engine), a hero of the front three-quarter view and
// a card per angle. How many angles a generation has is drawn from the
// generation's stable id and the body alone, so it is the same under any
// seed, for the demo's cars and the others alike.
func (g *generator) photos(pv *pendingVariant, genRow uint32) []photo {
	gen := g.set.Generations[genRow].ID
	h := mix(photoSalt ^ uint64(gen)<<16 ^ uint64(g.v.MustEnumValue("body", pv.c.body)))
	n := 3 + int(h%7) // 3 to 9 angles
	out := []photo{{angle: photoAngles[0], role: dataset.RoleHero}}
	for _, a := range photoAngles[:n] {
		out = append(out, photo{angle: a, role: dataset.RoleCard})
	}
	return out
}
