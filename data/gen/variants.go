package gen

import (
	"fmt"
	"math"
	"sort"
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
	fuelOrder := map[string]int{}
	for i, f := range v.Enums[g.mustEnum("fuel")].Values {
		fuelOrder[f.Slug] = i
	}
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
	r := g.rng
	genRow := uint32(0)
	done := 0
	for _, m := range g.models {
		demoModel := m.demo >= 0
		seed := g.seedFor(demoModel)
		trims := trimsFor(m.brand.Slug, m.brand.Style)
		for _, gp := range m.gens {
			r.seed(seed, uint64(gp.id), 4)
			platform := car{
				brand: m.brand.Slug, model: m.seed.Name, style: m.brand.Style, premium: premiumBrand[m.brand.Slug],
				segment: m.seed.Segment, body: m.seed.Body, year: gp.from, genYear: gp.yearStart, markYear: gp.markStart, trims: len(trims),
				limits: m.limits, families: g.v.EngineFamiliesFor(m.brand.Slug, m.seed.Name),
				electrified: g.v.ElectrifiedFor(m.brand.Slug, m.seed.Name), vocab: g.v,
			}
			platform.shape(r)
			if len(gp.demoCars) > 0 {
				gp.demoCars[0].shapePlatform(&platform)
			}
			pending := make([]pendingVariant, 0, gp.variants)
			names := map[string]bool{}
			for vi := 0; vi < gp.variants; vi++ {
				r.seed(seed, uint64(dataset.VariantID(gp.id, vi+1)), 5)
				pv := pendingVariant{c: platform}
				c := &pv.c
				c.year = gp.from + r.intn(gp.to-gp.from+1)
				if vi < len(gp.demoCars) {
					c.fuel = gp.demoCars[vi].Fuel
					pv.demo = true
				} else {
					fuels, w := fuelShares(m.seed.Powertrain, c.brand, c.year)
					fuels, w = c.allowFuels(m.seed.Powertrain, fuels, w)
					c.fuel = fuels[r.weighted(w)]
					if f := gp.dedicatedFuel(); f != "" {
						c.fuel = f
					}
					pv.noSpec = !demoModel && r.chance(shareNoSpecs)
				}
				c.trim = r.intn(len(trims))
				if len(trims) > 1 {
					c.trimLevel = float64(c.trim) / float64(len(trims)-1)
				} else {
					c.trimLevel = 1
				}
				c.chooseDrive(r)
				c.chooseTransmission(r)
				c.settleGearbox()
				c.powertrain(r)
				c.performance(r)
				c.pricing(r)
				c.wheels(r)
				if pv.demo {
					gp.demoCars[vi].apply(c, r)
				}
				trim := func(i int) string {
					return trimName(c.brand, m.seed.Name, gp.yearStart, i%len(trims), len(trims), trims)
				}
				name := displayName(m.seed.Name, c, trim(c.trim))
				if pv.demo {
					name = gp.demoCars[vi].Name
				}
				for try := 0; names[name]; try++ {
					// Same engine and trim twice: real catalogues tell them
					// apart by model year or by an edition name.
					if try < 3 {
						name = displayName(m.seed.Name, c, trim(c.trim+try+1))
						continue
					}
					name = fmt.Sprintf("%s (%d)", displayName(m.seed.Name, c, trim(c.trim)), c.year+try-3)
				}
				names[name] = true
				pv.name = name
				pending = append(pending, pv)
			}
			// Variants of a generation are listed by fuel, then power, then name.
			sort.SliceStable(pending, func(i, j int) bool {
				a, b := &pending[i], &pending[j]
				if fa, fb := fuelOrder[a.c.fuel], fuelOrder[b.c.fuel]; fa != fb {
					return fa < fb
				}
				if a.c.hp != b.c.hp {
					return a.c.hp < b.c.hp
				}
				return a.name < b.name
			})
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

// wheels sets rim size and tyre dimensions.
func (c *car) wheels(r *rng) {
	base := map[byte]float64{'A': 14, 'B': 15, 'C': 16, 'D': 17, 'E': 18, 'F': 19, 'S': 19, 'V': 16}[c.segment]
	rim := base + float64(c.year-2005)/8 + c.trimLevel*2 + r.between(-0.5, 0.5)
	if c.body == "suv" {
		rim++
	}
	c.rim = int(clamp(math.Round(rim), 13, 23))
	w := 145 + (c.rim-13)*20
	a := 80 - (c.rim-13)*8
	if c.body == "suv" || c.body == "pickup" {
		w, a = w+10, a+10
	}
	if c.hp >= 300 {
		w += 20
		a -= 5
	}
	c.tyreWidth = int(clamp(float64(w/10*10+5), 135, 335))
	c.tyreAspect = int(clamp(float64(a/5*5), 25, 80))
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
