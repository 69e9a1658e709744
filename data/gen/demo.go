package gen

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DemoSeed seeds every entity of the demo chain (its brands' models,
// generations and variants) instead of the catalogue seed, so the demo set is
// the same under any seed and any scale.
const DemoSeed uint64 = 0x64656d6f5f763031 // "demo_v01"

// The demo set is data: demo/generations.tsv lists every generation of the
// 10 demo models with its real name and years, demo/cars.tsv the 40
// hand-picked cars with their published figures. Changing either changes
// what every demo key reaches: data/gen/testdata/demo_set.golden records the
// result and TestDemoFrozen fails when the generator drifts from it.
var (
	//go:embed demo/generations.tsv
	demoGenerationsTSV string
	//go:embed demo/cars.tsv
	demoCarsTSV string
)

// DemoModel is one model of the frozen demo set: all its real generations,
// oldest first, and the two cars of each of its last two generations (the
// demo generations).
type DemoModel struct {
	Brand       string // brand slug
	Model       string // model name as in the vocabulary's model files
	Generations []DemoGeneration
	// Cars[0] are the two cars of the second-to-last generation, Cars[1]
	// those of the last.
	Cars [2][2]*DemoCar
}

// DemoGeneration is a real generation of a demo model.
type DemoGeneration struct {
	Name       string
	Start, End int // End 0: in production
}

// DemoCar is one hand-picked demo car with its published figures (see the
// header of demo/cars.tsv for units and conventions).
type DemoCar struct {
	Generation, Name             string
	Year                         int
	Fuel, Drive, Gearbox         string
	Gears                        int
	KW, TorqueNM                 float64
	CC, Cylinders                int
	Turbo                        bool
	MotorKW, BatteryKWh          float64
	RangeKM, EnergyKWh100        float64
	ACKW, DCKW                   float64
	Consumption, CO2             float64
	KerbKG, Accel, TopSpeed      float64
	Length, Width, Height, Wheel float64
	Seats, Doors                 int
	TrunkL, PriceNL              float64
	Source                       string
}

// DemoModels is the frozen demo set: 5 brands x 2 models x 2 generations x
// 2 cars = 40 variants covering all 10 fuel types, read from demo/*.tsv.
var DemoModels = mustDemoModels(demoGenerationsTSV, demoCarsTSV)

// DemoDescription is the demo set in words.
var DemoDescription = describeDemo(DemoModels)

func describeDemo(ms []DemoModel) string {
	var parts []string
	for i := 0; i+1 < len(ms); i += 2 {
		parts = append(parts, brandWord(ms[i].Brand)+" "+ms[i].Model+" and "+ms[i+1].Model)
	}
	return "40 cars: " + strings.Join(parts, ", ") + "; the two latest generations of each model, two variants per generation, covering all 10 fuel types."
}

func brandWord(slug string) string {
	switch slug {
	case "skoda":
		return "Škoda"
	}
	return strings.ToUpper(slug[:1]) + slug[1:]
}

func mustDemoModels(gens, cars string) []DemoModel {
	ms, err := parseDemo(gens, cars)
	if err != nil {
		panic("BUG: data/gen/demo: " + err.Error())
	}
	return ms
}

// parseDemo reads the two demo tables and checks their shape: every model
// has at least two generations, and each of its last two has exactly two
// cars, in the order of the generations.
func parseDemo(gensTSV, carsTSV string) ([]DemoModel, error) {
	var ms []DemoModel
	index := map[string]int{}
	for ln, f := range tsvRows(gensTSV) {
		if len(f) != 4 {
			return nil, fmt.Errorf("generations.tsv row %d: %d fields, want 4", ln, len(f))
		}
		brand, model, ok := strings.Cut(f[0], "/")
		if !ok {
			return nil, fmt.Errorf("generations.tsv row %d: model %q is not brand/model", ln, f[0])
		}
		start, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("generations.tsv row %d: first year %q", ln, f[2])
		}
		end := 0
		if f[3] != "" {
			if end, err = strconv.Atoi(f[3]); err != nil || end < start {
				return nil, fmt.Errorf("generations.tsv row %d: last year %q", ln, f[3])
			}
		}
		i, seen := index[f[0]]
		if !seen {
			i = len(ms)
			index[f[0]] = i
			ms = append(ms, DemoModel{Brand: brand, Model: model})
		}
		ms[i].Generations = append(ms[i].Generations, DemoGeneration{Name: f[1], Start: start, End: end})
	}
	filled := map[string]int{}
	for ln, f := range tsvRows(carsTSV) {
		c, err := parseDemoCar(f)
		if err != nil {
			return nil, fmt.Errorf("cars.tsv row %d: %w", ln, err)
		}
		i, ok := index[f[0]]
		if !ok {
			return nil, fmt.Errorf("cars.tsv row %d: model %q has no generations", ln, f[0])
		}
		m := &ms[i]
		if len(m.Generations) < 2 {
			return nil, fmt.Errorf("model %s has fewer than 2 generations", f[0])
		}
		slot := -1
		for k, g := range m.Generations[len(m.Generations)-2:] {
			if g.Name == c.Generation {
				slot = k
			}
		}
		if slot < 0 {
			return nil, fmt.Errorf("cars.tsv row %d: %q is not one of the last two generations of %s", ln, c.Generation, f[0])
		}
		n := filled[f[0]+"\t"+c.Generation]
		if n == 2 {
			return nil, fmt.Errorf("cars.tsv row %d: a third car for %s", ln, c.Generation)
		}
		m.Cars[slot][n] = c
		filled[f[0]+"\t"+c.Generation]++
	}
	for _, m := range ms {
		for _, pair := range m.Cars {
			if pair[0] == nil || pair[1] == nil {
				return nil, fmt.Errorf("model %s/%s lacks demo cars", m.Brand, m.Model)
			}
		}
	}
	if len(ms) != 10 {
		return nil, fmt.Errorf("%d demo models, want 10", len(ms))
	}
	return ms, nil
}

// tsvRows splits a tab-separated table into rows, skipping comments, blank
// lines and the header (the first row whose first field is "model").
func tsvRows(s string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "model\t") {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

// demoCarFields is the column count of cars.tsv.
const demoCarFields = 33

func parseDemoCar(f []string) (*DemoCar, error) {
	if len(f) != demoCarFields {
		return nil, fmt.Errorf("%d fields, want %d", len(f), demoCarFields)
	}
	var err error
	num := func(col int) float64 {
		if err != nil || f[col] == "" {
			return 0
		}
		v, e := strconv.ParseFloat(f[col], 64)
		if e != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			err = fmt.Errorf("column %d: %q is not a number", col+1, f[col])
		}
		return v
	}
	c := &DemoCar{
		Generation: f[1], Name: f[2], Year: int(num(3)), Fuel: f[4], Drive: f[5], Gearbox: f[6], Gears: int(num(7)),
		KW: num(8), TorqueNM: num(9), CC: int(num(10)), Cylinders: int(num(11)), Turbo: f[12] == "turbo",
		MotorKW: num(13), BatteryKWh: num(14), RangeKM: num(15), EnergyKWh100: num(16), ACKW: num(17), DCKW: num(18),
		Consumption: num(19), CO2: num(20), KerbKG: num(21), Accel: num(22), TopSpeed: num(23),
		Length: num(24), Width: num(25), Height: num(26), Wheel: num(27), Seats: int(num(28)), Doors: int(num(29)),
		TrunkL: num(30), PriceNL: num(31), Source: f[32],
	}
	if err != nil {
		return nil, err
	}
	_, model, ok := strings.Cut(f[0], "/")
	if !ok || model == "" {
		return nil, fmt.Errorf("model %q is not brand/model", f[0])
	}
	if !strings.HasPrefix(c.Name, model+" ") {
		return nil, fmt.Errorf("name %q does not start with the model name", c.Name)
	}
	if c.KW <= 0 || c.KerbKG <= 0 || c.Accel <= 0 || c.TopSpeed <= 0 || c.Length <= 0 || c.Year < 1990 {
		return nil, fmt.Errorf("%s: power, weight, 0-100, top speed, length and year are required", c.Name)
	}
	switch c.Fuel {
	case "electric":
		if c.BatteryKWh <= 0 || c.RangeKM <= 0 || c.EnergyKWh100 <= 0 {
			return nil, fmt.Errorf("%s: an electric car needs its battery, range and consumption", c.Name)
		}
	case "plug_in_hybrid":
		if c.BatteryKWh <= 0 || c.RangeKM <= 0 || c.Consumption <= 0 || c.CC <= 0 {
			return nil, fmt.Errorf("%s: a plug-in hybrid needs its battery, electric range, consumption and engine", c.Name)
		}
	case "hydrogen":
		if c.Consumption <= 0 {
			return nil, fmt.Errorf("%s: a fuel-cell car needs its hydrogen consumption", c.Name)
		}
	default:
		if c.Consumption <= 0 || c.CO2 <= 0 || c.CC <= 0 || c.Cylinders <= 0 {
			return nil, fmt.Errorf("%s: a combustion car needs its engine, consumption and CO2", c.Name)
		}
	}
	return c, nil
}

// apply sets the car's figures to the demo car's published ones, in place
// of the drawn ones. What the table does not give (equipment, drag, tyres,
// the price when it has none) stays drawn from the demo seed.
func (d *DemoCar) apply(c *car, r *rng) {
	c.year = d.Year
	c.fuel, c.drive, c.transmission, c.gears = d.Fuel, d.Drive, d.Gearbox, d.Gears
	c.kw = d.KW
	c.hp = math.Round(d.KW * 1.35962)
	c.torque = d.TorqueNM
	c.dispCC, c.cylinders, c.turbo = d.CC, d.Cylinders, d.Turbo
	c.motorKW, c.systemKW = d.MotorKW, 0
	if c.isHybrid() && c.fuel != "mild_hybrid" {
		c.systemKW = d.KW
	}
	if !c.isHybrid() {
		c.hybBattery = 0
	}
	c.batteryKWh, c.elecRange, c.energy = d.BatteryKWh, d.RangeKM, d.EnergyKWh100
	c.acKW, c.dcKW = d.ACKW, d.DCKW
	c.consumption, c.co2 = d.Consumption, d.CO2
	if c.isPHEV() {
		// Weighted consumption and CO2 as the generator derives them, so
		// the demo car passes the same rule as every other plug-in hybrid.
		c.weightedL = math.Max(0.3, roundTo(c.consumption*(1-phevUtility(c.elecRange)), 0.1))
		c.co2 = math.Round(c.weightedL * co2PerLitre["plug_in_hybrid"])
	}
	if c.isEV() || c.isFCEV() {
		c.co2 = 0
	}
	c.weight, c.accel, c.topSpeed = d.KerbKG, d.Accel, d.TopSpeed
	c.length, c.width, c.height, c.wheelbase = d.Length, d.Width, d.Height, d.Wheel
	c.seats, c.doors, c.trunk = d.Seats, d.Doors, d.TrunkL
	c.wheels(r)
	if d.PriceNL > 0 {
		c.price = d.PriceNL
	} else {
		c.pricing(r)
	}
}

// shapePlatform gives a demo generation's platform the first demo car's
// dimensions, so the generation's other variants share them.
func (d *DemoCar) shapePlatform(c *car) {
	c.length, c.width, c.height, c.wheelbase = d.Length, d.Width, d.Height, d.Wheel
	c.seats, c.doors, c.trunk = d.Seats, d.Doors, d.TrunkL
}

// demoPublished are the spec keys a demo car takes from its table row (or
// derives from them alone): they carry full confidence.
var demoPublished = map[string]bool{
	"fuel_type": true, "body_type": true, "power_kw": true, "power_hp": true, "torque_nm": true, "displacement_cc": true,
	"cylinders": true, "transmission": true, "gears": true, "drive_wheel": true, "electric_motor_kw": true,
	"system_power_kw": true, "curb_weight_kg": true, "accel_0_100_s": true, "top_speed_kmh": true,
	"fuel_wltp_l_100km": true, "gas_wltp_kg_100km": true, "co2_wltp_g_km": true, "battery_kwh": true,
	"range_wltp_km": true, "electric_range_km": true, "energy_wltp_kwh_100km": true, "ac_charge_kw": true,
	"dc_charge_kw": true, "length_mm": true, "width_mm": true, "height_mm": true, "wheelbase_mm": true,
	"seats": true, "doors": true, "trunk_l": true, "price_new_eur": true,
}

// dedicatedFuel is the fuel of a demo generation built only as an electric
// or fuel-cell car (the Fiat 500 of 2020, the Nexo): its other variants take
// it too. Empty for every other generation.
func (gp *genPlan) dedicatedFuel() string {
	if len(gp.demoCars) == 0 {
		return ""
	}
	f := gp.demoCars[0].Fuel
	for _, c := range gp.demoCars {
		if c.Fuel != f {
			return ""
		}
	}
	if f == "electric" || f == "hydrogen" {
		return f
	}
	return ""
}
