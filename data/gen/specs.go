package gen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/vspec/catalogue/data/vocab"
)

// Applicability flags of a variant, matched against the "applies" column of
// specs.tsv: a spec applies when all of its conditions hold.
type flags uint32

const (
	fAll flags = 1 << iota
	fICE
	fEV
	fPlug
	fXEV
	fHyb
	fFullHyb
	fLowHyb
	fPHEV
	fLiquid
	fGas
	fDiesel
	fCNG
	fFCEV
	fWLTP
	fNEDC
	fNoPHEV
	fAuto
	fAWD
	fSporty
	fDC
)

var flagNames = map[string]flags{
	"all": fAll, "ice": fICE, "ev": fEV, "plug": fPlug, "xev": fXEV, "hyb": fHyb, "fullhyb": fFullHyb, "lowhyb": fLowHyb,
	"phev": fPHEV, "liquid": fLiquid, "gas": fGas, "diesel": fDiesel, "cng": fCNG, "fcev": fFCEV, "wltp": fWLTP,
	"nedc": fNEDC, "nophev": fNoPHEV, "auto": fAuto, "awd": fAWD, "sporty": fSporty, "dc": fDC,
}

func (c *car) flags() flags {
	f := fAll
	set := func(cond bool, x flags) {
		if cond {
			f |= x
		}
	}
	set(c.hasICE(), fICE)
	set(c.isEV(), fEV)
	set(c.isEV() || c.isPHEV(), fPlug)
	set(c.isEV() || c.isHybrid() || c.isFCEV(), fXEV)
	set(c.isHybrid(), fHyb)
	set(c.fuel == "hybrid" || c.isPHEV(), fFullHyb)
	set(c.fuel == "hybrid" || c.fuel == "mild_hybrid", fLowHyb)
	set(c.isPHEV(), fPHEV)
	set(c.hasICE(), fLiquid) // CNG cars are bi-fuel: they also burn petrol
	set(c.fuel == "cng" || c.isFCEV(), fGas)
	set(c.fuel == "diesel", fDiesel)
	set(c.fuel == "cng", fCNG)
	set(c.isFCEV(), fFCEV)
	// The figures of the cycle of the model year: NEDC until 2017, WLTP
	// from 2018.
	set(c.year >= 2018, fWLTP)
	set(c.year < 2018, fNEDC)
	set(!c.isPHEV(), fNoPHEV)
	set(c.transmission != "manual", fAuto)
	set(c.drive == "all", fAWD)
	set(c.hp >= 250, fSporty)
	set(c.dcKW > 0, fDC)
	return f
}

// valueFn computes one spec value of a car; ok=false leaves it out.
type valueFn func(c *car, r *rng, g *generator) (v int32, ok bool)

// equipment is the parsed "eq:base:gain:since[:must]" hint of a boolean.
type equipment struct {
	base, gain  float64
	since, must int
}

type specIndexes struct {
	need  []flags
	fns   []valueFn
	eq    []equipment
	kinds []vocab.Kind
	scale []float64
	enum  []int
	// indexes used by the generator
	powerHP, torque, topSpeed, accel, battery, price int
	acc, highway, stopGo                             int // adaptive cruise control and what builds on it
}

func resolveSpecs(v *vocab.Vocabulary) specIndexes {
	n := len(v.Specs)
	s := specIndexes{need: make([]flags, n), fns: make([]valueFn, n), eq: make([]equipment, n), kinds: make([]vocab.Kind, n), scale: make([]float64, n), enum: make([]int, n)}
	for i, st := range v.Specs {
		for _, cond := range strings.Split(st.Applies, ",") {
			f, ok := flagNames[cond]
			if !ok {
				panic(fmt.Sprintf("BUG: spec %s: unknown applicability %q", st.Key, cond))
			}
			s.need[i] |= f
		}
		s.kinds[i] = st.Kind
		s.scale[i] = math.Pow10(int(st.Scale))
		s.enum[i] = st.Enum
		if strings.HasPrefix(st.Gen, "eq:") {
			p := strings.Split(st.Gen, ":")
			e := equipment{}
			e.base, _ = strconv.ParseFloat(p[1], 64)
			e.gain, _ = strconv.ParseFloat(p[2], 64)
			e.since, _ = strconv.Atoi(p[3])
			if len(p) > 4 {
				e.must, _ = strconv.Atoi(p[4])
			}
			s.eq[i] = e
			continue
		}
		fn, ok := valueFns[st.Key]
		if !ok {
			panic("BUG: no generator for spec " + st.Key)
		}
		s.fns[i] = fn
	}
	s.powerHP, s.torque, s.topSpeed = v.MustSpec("power_hp"), v.MustSpec("torque_nm"), v.MustSpec("top_speed_kmh")
	s.accel, s.battery, s.price = v.MustSpec("accel_0_100_s"), v.MustSpec("battery_kwh"), v.MustSpec("price_new_eur")
	s.acc, s.highway, s.stopGo = v.MustSpec("adaptive_cruise_control"), v.MustSpec("highway_assist"), v.MustSpec("stop_and_go")
	return s
}

// equip decides a boolean equipment item from its hint: never before the
// year it appeared, always from the year it became mandatory, otherwise more
// likely on higher trims and premium brands.
func equip(e equipment, c *car, r *rng) bool {
	if c.year < e.since {
		return false
	}
	if e.must > 0 && c.year >= e.must {
		return true
	}
	age := clamp(float64(c.year-e.since)/12, 0, 1)
	p := (e.base + e.gain*c.trimLevel + 0.1*math.Min(c.premium, 1)) * (0.5 + 0.7*age)
	return r.chance(clamp(p, 0, 0.98))
}

func num(v float64) int32 { return int32(math.Round(v)) }

func enumOf(g *generator, group, slug string) int32 {
	return int32(g.v.MustEnumValue(group, slug))
}

func (g *generator) text(s string) int32 {
	if i, ok := g.texts[s]; ok {
		return i
	}
	i := int32(len(g.set.Texts))
	g.set.Texts = append(g.set.Texts, s)
	g.texts[s] = i
	return i
}

func yes(b bool) (int32, bool) {
	if b {
		return 1, true
	}
	return 0, true
}

// euroNorm is the emission standard every new car of model year y met (the
// dates all registrations had to: Euro 1 from 1993, Euro 2 1997, Euro 3
// 2001, Euro 4 2006, Euro 5 2011, Euro 6 from September 2015, 6d-TEMP
// September 2019, 6d 2021, 6e September 2024); "" before 1993, when none
// applied.
func euroNorm(year int) string {
	switch {
	case year < 1993:
		return ""
	case year < 1997:
		return "euro1"
	case year < 2001:
		return "euro2"
	case year < 2006:
		return "euro3"
	case year < 2011:
		return "euro4"
	case year < 2016:
		return "euro5"
	case year < 2020:
		return "euro6"
	case year < 2021:
		return "euro6d_temp"
	case year < 2025:
		return "euro6d"
	}
	return "euro6e"
}

// co2Ceilings are the highest emissions (g/km) of the CO2 classes a to f
// (co2Classes); above them all is class g.
var (
	co2Ceilings = []float64{0, 95, 115, 135, 155, 175}
	co2Classes  = []string{"a", "b", "c", "d", "e", "f", "g"}
)

// co2Class is the class of the first ceiling that co2 does not exceed.
func co2Class(co2 float64) string { return co2Classes[sort.SearchFloat64s(co2Ceilings, co2)] }

// valueFns computes every spec whose hint is "fn". Numbers are returned in
// the spec's unit; the caller scales them.
var valueFns = map[string]valueFn{
	"fuel_type":   func(c *car, _ *rng, g *generator) (int32, bool) { return enumOf(g, "fuel", c.fuel), true },
	"engine_code": func(c *car, _ *rng, g *generator) (int32, bool) { return g.text(engineCode(c)), true },
	"engine_layout": func(c *car, r *rng, g *generator) (int32, bool) {
		l := "inline"
		switch {
		case c.brand == "subaru" || (c.brand == "porsche" && c.segment == 'S' && c.cylinders == 6):
			l = "boxer"
		case c.cylinders >= 8 && c.cylinders < 16:
			l = "v"
		case c.cylinders == 16:
			l = "w"
		case c.cylinders == 6 && c.brand != "bmw" && c.brand != "volvo" && r.chance(0.7):
			l = "v"
		}
		return enumOf(g, "layout", l), true
	},
	"cylinders": func(c *car, _ *rng, _ *generator) (int32, bool) { return int32(c.cylinders), true },
	"valves_per_cylinder": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.year < 2000 && r.chance(0.5) {
			return 2, true
		}
		return 4, true
	},
	"displacement_cc": func(c *car, _ *rng, _ *generator) (int32, bool) { return int32(c.dispCC), true },
	"bore_mm": func(c *car, _ *rng, _ *generator) (int32, bool) {
		vc := float64(c.dispCC) / float64(c.cylinders) * 1000 // mm³
		bore := math.Cbrt(4 * vc / (math.Pi * strokeRatio(c)))
		return num(bore * 10), true
	},
	"stroke_mm": func(c *car, _ *rng, _ *generator) (int32, bool) {
		vc := float64(c.dispCC) / float64(c.cylinders) * 1000
		bore := math.Cbrt(4 * vc / (math.Pi * strokeRatio(c)))
		return num(bore * strokeRatio(c) * 10), true
	},
	"compression_ratio": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.fuel == "diesel" {
			return num(r.between(15.5, 18) * 10), true
		}
		if c.turbo {
			return num(r.between(9.3, 11) * 10), true
		}
		return num(r.between(10.5, 13) * 10), true
	},
	"aspiration": func(c *car, r *rng, g *generator) (int32, bool) {
		a := "natural"
		if c.turbo {
			a = "turbo"
			if c.cylinders >= 6 && r.chance(0.5) {
				a = "twin_turbo"
			} else if c.fuel == "mild_hybrid" && c.kw > 200 && r.chance(0.3) {
				a = "e_turbo"
			} else if r.chance(0.02) {
				a = "supercharged"
			}
		}
		return enumOf(g, "aspiration", a), true
	},
	"fuel_injection": func(c *car, r *rng, g *generator) (int32, bool) {
		inj := "port"
		switch {
		case c.fuel == "diesel" && c.year >= 1999:
			inj = "common_rail"
		case c.fuel == "diesel":
			inj = "direct"
		case c.year < 1993 && r.chance(0.3):
			inj = "carburettor"
		case c.year >= 2008 && c.turbo:
			inj = "direct"
			if c.year >= 2016 && r.chance(0.2) {
				inj = "dual"
			}
		}
		return enumOf(g, "injection", inj), true
	},
	"power_kw":  func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.kw), true },
	"power_hp":  func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.hp), true },
	"power_rpm": func(c *car, r *rng, _ *generator) (int32, bool) { return num(roundTo(rpmPower(c, r), 50)), true },
	"torque_nm": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.torque), true },
	"torque_rpm": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.turbo {
			return num(roundTo(r.between(1500, 2200), 50)), true
		}
		return num(roundTo(r.between(3500, 4800), 50)), true
	},
	"engine_position": func(c *car, _ *rng, g *generator) (int32, bool) {
		p := "front"
		switch {
		case c.brand == "porsche" && c.segment == 'S':
			p = "rear"
		case c.segment == 'S' && c.hp > 500:
			p = "mid"
		case c.brand == "smart" || c.brand == "tesla" && c.isEV():
			p = "rear"
		}
		return enumOf(g, "position", p), true
	},
	"electric_motor_kw": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.motorKW), c.motorKW > 0 },
	"transmission": func(c *car, _ *rng, g *generator) (int32, bool) {
		return enumOf(g, "transmission", c.transmission), true
	},
	"gears": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return int32(c.gears), c.transmission != "cvt"
	},
	"gearbox_code": func(c *car, _ *rng, g *generator) (int32, bool) {
		w := gearboxWord(c)
		return g.text(w), w != ""
	},
	"final_drive_ratio": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.isEV() {
			return num(r.between(8, 11) * 100), true
		}
		return num(r.between(2.6, 4.4) * 100), true
	},
	"drive_wheel": func(c *car, _ *rng, g *generator) (int32, bool) { return enumOf(g, "drive", c.drive), true },
	"awd_system":  func(c *car, _ *rng, g *generator) (int32, bool) { return g.text(awdName(c.brand)), true },
	"limited_slip_diff": func(c *car, r *rng, _ *generator) (int32, bool) {
		return yes(c.hp >= 250 && r.chance(0.6) || r.chance(0.03))
	},
	"top_speed_kmh": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.topSpeed), true },
	"top_speed_electric_kmh": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(r.between(120, 145), 5)), true
	},
	// A quadricycle never reaches 100 or 120 km/h.
	"accel_0_100_s": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(c.accel * 10), c.topSpeed > 100 && c.accel > 0
	},
	"accel_80_120_s": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(c.accel * r.between(0.68, 0.8) * 10), c.topSpeed > 120 && c.accel > 0
	},
	"power_weight_kg_hp": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.weight / c.hp * 100), true },
	"quarter_mile_s": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num((6.5 + 1.25*c.accel) * 10), c.topSpeed > 100 && c.accel > 0
	},
	"battery_kwh":     func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.batteryKWh * 10), true },
	"battery_net_kwh": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.batteryKWh * 0.92 * 10), true },
	"battery_chemistry": func(c *car, r *rng, g *generator) (int32, bool) {
		ch := "nmc"
		switch {
		case c.brand == "tesla" && c.trim > 0:
			ch = "nca"
		case c.year >= 2020 && (c.trim == 0 || chineseBrand[c.brand]) && r.chance(0.7):
			ch = "lfp"
		}
		return enumOf(g, "chemistry", ch), true
	},
	"battery_voltage_v": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.year >= 2019 && c.premium >= 0.8 && c.isEV() && r.chance(0.5) {
			return num(roundTo(r.between(700, 830), 5)), true
		}
		if c.isPHEV() {
			return num(roundTo(r.between(300, 400), 5)), true
		}
		return num(roundTo(r.between(350, 410), 5)), true
	},
	"battery_weight_kg":  func(c *car, r *rng, _ *generator) (int32, bool) { return num(c.batteryKWh * r.between(5.8, 6.8)), true },
	"range_wltp_km":      func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.elecRange), true },
	"range_city_wltp_km": func(c *car, r *rng, _ *generator) (int32, bool) { return num(c.elecRange * r.between(1.25, 1.4)), true },
	"ac_charge_kw":       func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.acKW * 10), true },
	"dc_charge_kw":       func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.dcKW), true },
	"charge_ac_0_100_h": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(c.batteryKWh / (c.acKW * 0.9) * 10), true
	},
	"charge_10_80_min": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(0.7 * c.batteryKWh * 0.92 / (c.dcKW * r.between(0.55, 0.7)) * 60), true
	},
	"charge_port": func(c *car, _ *rng, g *generator) (int32, bool) {
		p := "type2_ccs"
		switch {
		case c.isPHEV() && c.dcKW == 0:
			p = "type2"
		case c.year < 2019 && (c.brand == "nissan" || c.brand == "mitsubishi"):
			p = "chademo"
		}
		return enumOf(g, "connector", p), true
	},
	"hybrid_type": func(c *car, _ *rng, g *generator) (int32, bool) {
		return enumOf(g, "hybrid", map[string]string{"hybrid": "full", "mild_hybrid": "mild", "plug_in_hybrid": "plug_in"}[c.fuel]), true
	},
	"electric_range_km": func(c *car, _ *rng, _ *generator) (int32, bool) {
		if c.year < 2018 {
			return num(c.nedcRange()), true // the cycle of its model year
		}
		return num(c.elecRange), true
	},
	"system_power_kw": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.systemKW), true },
	"system_torque_nm": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(c.torque*r.between(1.1, 1.3), 5)), true
	},
	"hybrid_battery_kwh": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.hybBattery * 100), true },
	"hybrid_voltage_v": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.fuel == "mild_hybrid" {
			return 48, true
		}
		return num(roundTo(r.between(200, 290), 5)), true
	},
	"fuel_wltp_l_100km": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.isPHEV() {
			return num(c.weightedL * 10), true // weighted combined
		}
		return num(c.litres() * 10), true
	},
	"fuel_wltp_low_l_100km":        phase(1.32),
	"fuel_wltp_medium_l_100km":     phase(1.0),
	"fuel_wltp_high_l_100km":       phase(0.9),
	"fuel_wltp_extra_high_l_100km": phase(1.17),
	"fuel_wltp_cs_l_100km": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(c.litres() * r.between(0.95, 1.15) * 10), true
	},
	"energy_wltp_kwh_100km": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.energy * 10), true },
	"gas_wltp_kg_100km":     func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.consumption * 10), true },
	"fuel_nedc_l_100km": func(c *car, _ *rng, _ *generator) (int32, bool) {
		if c.isPHEV() {
			return num(math.Max(1.3, c.litres()*0.3) * 10), true
		}
		return num(c.nedcL() * 10), true
	},
	"fuel_nedc_urban_l_100km":       func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.nedcL() * 1.3 * 10), true },
	"fuel_nedc_extra_urban_l_100km": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.nedcL() * 0.8 * 10), true },
	"energy_nedc_kwh_100km":         func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.energy * 0.88 * 10), true },
	"range_nedc_km":                 func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.nedcRange()), true },
	"co2_nedc_g_km":                 func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.nedcCO2()), true },
	"co2_wltp_g_km":                 func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.co2), true },
	"euro_norm": func(c *car, _ *rng, g *generator) (int32, bool) {
		e := euroNorm(c.year)
		if e == "" {
			return 0, false
		}
		return enumOf(g, "euro", e), true
	},
	"co2_class": func(c *car, _ *rng, g *generator) (int32, bool) { return enumOf(g, "co2class", co2Class(c.co2)), true },
	"nox_mg_km": func(c *car, r *rng, _ *generator) (int32, bool) {
		lim := map[bool]float64{true: 80, false: 60}[c.fuel == "diesel"]
		if c.year < 2015 {
			lim *= 2.5
		}
		return num(lim * r.between(0.1, 0.7) * 10), true
	},
	"pm_mg_km":  func(c *car, r *rng, _ *generator) (int32, bool) { return num(r.between(0.05, 2.5) * 100), true },
	"co_mg_km":  func(c *car, r *rng, _ *generator) (int32, bool) { return num(roundTo(r.between(60, 600), 1)), true },
	"length_mm": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.length), true },
	"width_mm":  func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.width), true },
	"width_mirrors_mm": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(c.width + r.between(150, 230)), true
	},
	"height_mm":    func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.height), true },
	"wheelbase_mm": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.wheelbase), true },
	"front_track_mm": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(c.width * 0.855), true
	},
	"rear_track_mm": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.width * 0.85), true },
	"front_overhang_mm": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num((c.length - c.wheelbase) * 0.47), true
	},
	"ground_clearance_mm": func(c *car, r *rng, _ *generator) (int32, bool) {
		gc := r.between(120, 160)
		switch c.body {
		case "suv":
			gc = r.between(170, 230)
		case "pickup":
			gc = r.between(215, 260)
		case "roadster", "coupe":
			gc = r.between(100, 130)
		}
		return num(gc), true
	},
	"drag_coefficient": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.cd * 100), true },
	"curb_weight_kg":   func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.weight), true },
	"gross_weight_kg": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(c.weight + float64(c.seats)*75 + 120 + c.trunk*0.05), true
	},
	"payload_kg": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(float64(c.seats)*75 + 120 + c.trunk*0.05), true
	},
	"towing_braked_kg": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.segment == 'A' || (c.isEV() && c.year < 2019) {
			return 0, true
		}
		t := math.Min(c.weight*r.between(0.8, 1.25), 2500)
		if c.body == "pickup" || (c.body == "suv" && c.segment >= 'D') {
			t = r.between(2500, 3500)
		}
		return num(roundTo(t, 50)), true
	},
	"towing_unbraked_kg": func(c *car, _ *rng, _ *generator) (int32, bool) {
		if c.segment == 'A' {
			return 0, true
		}
		return num(roundTo(math.Min(750, c.weight/2), 5)), true
	},
	"roof_load_kg": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(r.between(50, 100), 5)), c.body != "convertible" && c.body != "roadster"
	},
	"towbar_load_kg": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(r.between(50, 100), 5)), c.segment != 'A'
	},
	"seats":   func(c *car, _ *rng, _ *generator) (int32, bool) { return int32(c.seats), true },
	"doors":   func(c *car, _ *rng, _ *generator) (int32, bool) { return int32(c.doors), true },
	"trunk_l": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(roundTo(c.trunk, 5)), true },
	"trunk_max_l": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(c.trunk*r.between(2.4, 3.1), 5)), c.seats > 2 && c.body != "van"
	},
	"frunk_l": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(r.between(20, 90), 1)), r.chance(0.6)
	},
	"fuel_tank_l": func(c *car, r *rng, _ *generator) (int32, bool) {
		base := map[byte]float64{'A': 35, 'B': 45, 'C': 50, 'D': 60, 'E': 70, 'F': 85, 'S': 65, 'V': 80}[c.segment]
		if c.isHybrid() && c.fuel != "mild_hybrid" {
			base *= 0.8
		}
		return num(roundTo(base*r.between(0.9, 1.15), 1)), true
	},
	"adblue_tank_l": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num(roundTo(r.between(11, 24), 1)), c.year >= 2015
	},
	"cng_tank_kg":      func(c *car, r *rng, _ *generator) (int32, bool) { return num(r.between(12, 18) * 10), true },
	"hydrogen_tank_kg": func(c *car, r *rng, _ *generator) (int32, bool) { return num(r.between(5.0, 6.5) * 10), true },
	"front_suspension": func(c *car, r *rng, g *generator) (int32, bool) {
		s := "macpherson"
		switch {
		case c.body == "pickup":
			s = pick(r, []string{"double_wishbone", "rigid_axle"})
		case c.segment == 'S' || c.premium >= 1 && c.segment >= 'D':
			s = pick(r, []string{"double_wishbone", "multi_link"})
		}
		return enumOf(g, "susp_front", s), true
	},
	"rear_suspension": func(c *car, r *rng, g *generator) (int32, bool) {
		s := "multi_link"
		switch {
		case c.body == "pickup" || c.body == "van" && r.chance(0.5):
			s = "leaf_spring"
		case c.segment <= 'B' || c.segment == 'C' && c.drive == "front" && c.trimLevel < 0.5:
			s = "torsion_beam"
		case c.segment == 'S' && r.chance(0.5):
			s = "double_wishbone"
		}
		return enumOf(g, "susp_rear", s), true
	},
	"front_brakes": func(c *car, _ *rng, g *generator) (int32, bool) {
		b := "ventilated_disc"
		if c.hp >= 600 && c.segment == 'S' {
			b = "ceramic"
		}
		return enumOf(g, "brakes", b), true
	},
	"rear_brakes": func(c *car, _ *rng, g *generator) (int32, bool) {
		b := "disc"
		switch {
		case c.segment <= 'B' && c.hp < 120:
			b = "drum"
		case c.hp >= 600 && c.segment == 'S':
			b = "ceramic"
		case c.hp >= 250:
			b = "ventilated_disc"
		}
		return enumOf(g, "brakes", b), true
	},
	"front_brake_disc_mm": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(clamp(240+c.hp*0.22, 240, 420)), true
	},
	"turning_circle_m": func(c *car, r *rng, _ *generator) (int32, bool) {
		return num((c.wheelbase/1000*3.9 + r.between(-0.3, 0.3)) * 10), true
	},
	"steering_type": func(c *car, r *rng, g *generator) (int32, bool) {
		s := "electric"
		switch {
		case c.year < 2004:
			s = "hydraulic"
		case c.year < 2010 && r.chance(0.4):
			s = "electro_hydraulic"
		}
		return enumOf(g, "steering", s), true
	},
	"tyre_size_front": func(c *car, _ *rng, g *generator) (int32, bool) {
		return g.text(fmt.Sprintf("%d/%d R%d", c.tyreWidth, c.tyreAspect, c.rim)), true
	},
	"tyre_size_rear": func(c *car, _ *rng, g *generator) (int32, bool) {
		w, a := c.tyreWidth, c.tyreAspect
		if c.drive == "rear" && c.hp >= 250 {
			w, a = w+30, a-5
		}
		return g.text(fmt.Sprintf("%d/%d R%d", w, a, c.rim)), true
	},
	"wheel_size_in": func(c *car, _ *rng, _ *generator) (int32, bool) { return int32(c.rim), true },
	"spare_wheel": func(c *car, r *rng, g *generator) (int32, bool) {
		s := "repair_kit"
		switch {
		case c.body == "pickup" || c.body == "van" || (c.body == "suv" && r.chance(0.3)):
			s = "full_size"
		case c.year < 2008:
			s = pick(r, []string{"full_size", "space_saver"})
		case c.isEV() && r.chance(0.3):
			s = "none"
		case r.chance(0.25):
			s = "space_saver"
		}
		return enumOf(g, "spare", s), true
	},
	"body_type": func(c *car, _ *rng, g *generator) (int32, bool) { return enumOf(g, "body", c.body), true },
	"roof_rails": func(c *car, r *rng, _ *generator) (int32, bool) {
		return yes((c.body == "estate" || c.body == "suv" || c.body == "mpv") && r.chance(0.4+0.5*c.trimLevel))
	},
	"headlight_type": func(c *car, r *rng, g *generator) (int32, bool) {
		h := "halogen"
		switch {
		case c.year >= 2014 && c.premium >= 1 && c.trimLevel > 0.7 && r.chance(0.15):
			h = "laser"
		case c.year >= 2015 && c.trimLevel > 0.6 && r.chance(0.5+0.3*math.Min(c.premium, 1)):
			h = "matrix_led"
		case c.year >= 2013 && r.chance(0.3+0.6*c.trimLevel):
			h = "led"
		case c.year >= 2000 && c.year < 2016 && r.chance(0.2+0.6*c.trimLevel):
			h = "xenon"
		}
		return enumOf(g, "headlight", h), true
	},
	"airbags_count": func(c *car, r *rng, _ *generator) (int32, bool) {
		n := 2
		switch {
		case c.year < 1996:
			n = 1 + r.intn(2)
		case c.year < 2004:
			n = 2 + 2*r.intn(2)
		default:
			n = 6 + r.intn(3)
			if c.year >= 2019 && r.chance(0.3) {
				n += 1
			}
		}
		return int32(n), true
	},
	"hill_descent_control": func(c *car, r *rng, _ *generator) (int32, bool) {
		return yes((c.body == "suv" || c.body == "pickup" || c.drive == "all") && c.year >= 2000 && r.chance(0.7))
	},
	"euro_ncap_stars": func(c *car, _ *rng, _ *generator) (int32, bool) {
		n, ok := c.ncap()
		return int32(n.stars), ok
	},
	"euro_ncap_year": func(c *car, _ *rng, _ *generator) (int32, bool) {
		n, ok := c.ncap()
		return int32(n.year), ok
	},
	"euro_ncap_adult_pct": func(c *car, _ *rng, _ *generator) (int32, bool) {
		n, ok := c.ncap()
		return int32(n.adult), ok && n.adult > 0
	},
	"climate_zones": func(c *car, r *rng, _ *generator) (int32, bool) {
		z := 1
		if c.year >= 2000 {
			z += int(math.Round(c.trimLevel*2 + r.between(-0.4, 0.4) + 0.4*math.Min(c.premium, 1)))
		}
		return int32(max(1, min(z, 4))), c.year >= 1995
	},
	"upholstery": func(c *car, r *rng, g *generator) (int32, bool) {
		u := "cloth"
		switch {
		case c.trimLevel >= 0.99 && c.premium >= 1 && r.chance(0.3):
			u = "alcantara"
		case c.trimLevel >= 0.7 && r.chance(0.6+0.3*math.Min(c.premium, 1)):
			u = "leather"
		case c.trimLevel >= 0.4 && r.chance(0.5):
			u = pick(r, []string{"cloth_leather", "leatherette"})
		}
		return enumOf(g, "upholstery", u), true
	},
	"electric_rear_windows": func(c *car, r *rng, _ *generator) (int32, bool) {
		return yes(c.doors >= 4 && (c.year >= 2012 || r.chance(0.3+0.6*c.trimLevel)))
	},
	"split_rear_seats": func(c *car, r *rng, g *generator) (int32, bool) {
		s := "60/40"
		if c.trimLevel > 0.5 && r.chance(0.4) {
			s = "40/20/40"
		}
		return g.text(s), c.seats > 2 && c.body != "van" && c.body != "pickup"
	},
	"third_row_seats": func(c *car, _ *rng, _ *generator) (int32, bool) { return yes(c.seats >= 7 && c.body != "van") },
	"screen_size_in": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.year < 2008 {
			return 0, false
		}
		s := 5 + float64(c.year-2008)*0.45 + c.trimLevel*2.5 + r.between(-0.8, 0.8)
		return num(roundTo(clamp(s, 5, 17.7), 0.1) * 10), true
	},
	"speakers_count": func(c *car, r *rng, _ *generator) (int32, bool) {
		return int32(4 + 2*int(math.Round(c.trimLevel*3+r.between(0, 1.5)+math.Min(c.premium, 2)))), true
	},
	"premium_audio": func(c *car, r *rng, g *generator) (int32, bool) {
		name, ok := audioBrands[c.brand]
		if !ok || c.trimLevel < 0.6 || !r.chance(0.6) {
			return 0, false
		}
		return g.text(name), true
	},
	"usb_ports": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.year < 2008 {
			return 0, false
		}
		return int32(1 + int(float64(c.year-2008)/5) + r.intn(2)), true
	},
	"price_new_eur": func(c *car, _ *rng, _ *generator) (int32, bool) { return num(c.price), c.price > 0 },
	"warranty_years": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return int32(warranty(c.brand, c.year)), true
	},
	"warranty_km": func(c *car, _ *rng, _ *generator) (int32, bool) {
		if warranty(c.brand, c.year) >= 5 {
			return 150000, true
		}
		return 100000, true
	},
	"battery_warranty_years": func(c *car, _ *rng, _ *generator) (int32, bool) { return 8, true },
	"battery_warranty_km": func(c *car, r *rng, _ *generator) (int32, bool) {
		return int32(pick(r, []int{160000, 160000, 200000})), true
	},
	"rust_warranty_years": func(c *car, r *rng, _ *generator) (int32, bool) { return int32(pick(r, []int{6, 8, 10, 12, 12})), true },
	"service_interval_km": func(c *car, r *rng, _ *generator) (int32, bool) {
		if c.isEV() {
			return 30000, true
		}
		return int32(pick(r, []int{15000, 15000, 20000, 30000})), true
	},
	"service_interval_months": func(c *car, r *rng, _ *generator) (int32, bool) { return int32(pick(r, []int{12, 12, 24})), true },
	"insurance_group": func(c *car, _ *rng, _ *generator) (int32, bool) {
		return num(clamp(c.hp/12+c.price/6000, 1, 50)), true
	},
	"road_tax_eur_year": func(c *car, _ *rng, _ *generator) (int32, bool) {
		t := c.weight * 0.45
		switch c.fuel {
		case "diesel":
			t *= 1.9
		case "electric", "hydrogen":
			t *= 0.3
		case "plug_in_hybrid":
			t *= 0.5
		case "lpg", "cng":
			t *= 1.3
		}
		return num(roundTo(t, 1)), true
	},
	"running_cost_eur_month": func(c *car, _ *rng, _ *generator) (int32, bool) {
		energy := c.consumption * 1.9
		if c.isEV() {
			energy = c.energy * 0.35
		}
		return num(c.price*0.012 + energy*12), true
	},
	"depreciation_3y_pct": func(c *car, r *rng, _ *generator) (int32, bool) {
		d := r.between(35, 52)
		if c.isEV() && c.year < 2022 {
			d += 8
		}
		if c.premium >= 2 {
			d -= 12
		}
		return num(d), true
	},
}

// litres is the consumption in litres of liquid fuel per 100 km; a CNG
// car's figure is for its petrol mode.
func (c *car) litres() float64 {
	if c.fuel == "cng" {
		return c.consumption / 0.66
	}
	return c.consumption
}

// ncap is the Euro NCAP result of the car's generation and model year
// (ncapResults), false when it has none.
func (c *car) ncap() (ncapResult, bool) {
	return ncapFor(c.brand, c.model, c.markYear, c.markEnd, c.year)
}

func phase(f float64) valueFn {
	return func(c *car, r *rng, _ *generator) (int32, bool) {
		x := f
		if c.fuel == "hybrid" && f > 1.2 {
			x = 0.85 // hybrids are most frugal in town
		}
		return num(c.litres() * x * r.between(0.97, 1.03) * 10), true
	}
}

func strokeRatio(c *car) float64 {
	if c.fuel == "diesel" {
		return 1.08
	}
	if c.cylinders >= 8 {
		return 0.92
	}
	return 1.0
}

func rpmPower(c *car, r *rng) float64 {
	if c.fuel == "diesel" {
		return r.between(3500, 4200)
	}
	if c.segment == 'S' {
		return r.between(6500, 8500)
	}
	return r.between(5000, 6500)
}

func warranty(brand string, year int) int {
	switch brand {
	case "kia":
		if year >= 2008 {
			return 7
		}
	case "hyundai", "genesis", "mg", "byd", "ssangyong", "kgm":
		if year >= 2010 {
			return 5
		}
	case "toyota", "lexus":
		if year >= 2021 {
			return 10
		}
		return 3
	case "renault", "dacia", "peugeot", "citroen", "opel", "mitsubishi", "nissan", "mazda", "honda", "subaru", "suzuki":
		return 3
	}
	return 2
}

var chineseBrand = map[string]bool{"byd": true, "mg": true, "nio": true, "xpeng": true, "zeekr": true, "leapmotor": true, "omoda": true, "jaecoo": true, "chery": true, "gwm": true, "ora": true, "aiways": true, "hongqi": true, "voyah": true, "maxus": true, "dfsk": true, "seres": true, "skywell": true, "lynk-co": true, "polestar": true}
