package gen

import (
	"cmp"
	"math"
)

// Dutch list prices: a net base price by segment, body and brand
// positioning, a moderate premium for power within the nameplate, 21 % VAT
// and the BPM registration tax by WLTP CO2.

// vatNL is the Dutch VAT (btw) factor.
const vatNL = 1.21

// segmentNet is the net price (excluding VAT and BPM, 2024 euros) of a
// volume brand's base car of each segment at the segment's reference power
// segmentRefHP: Kia Picanto, VW Polo, VW Golf, VW Passat, Mercedes E-Class
// level, S-Class level, Mazda MX-5, VW Transporter.
var segmentNet = map[byte]float64{'A': 12500, 'B': 16500, 'C': 23500, 'D': 31000, 'E': 42000, 'F': 60000, 'S': 28000, 'V': 30000}
var segmentRefHP = map[byte]float64{'A': 70, 'B': 95, 'C': 130, 'D': 160, 'E': 220, 'F': 300, 'S': 200, 'V': 130}

var bodyPrice = map[string]float64{"suv": 1.08, "estate": 1.04, "convertible": 1.15, "coupe": 1.05, "roadster": 1.05, "mpv": 1.03}

// priceTier is a brand's price positioning against a volume brand of the
// same segment (1): in the Netherlands an A4 35 TDI (about EUR 50,000 in 2020) lists
// little above a Passat 2.0 TDI of its power: the importers price premium
// cars low against the BPM. Brands not listed: budget brands 0.7, others
// 1 + 0.5 x their premium level.
var priceTier = map[string]float64{
	"mini": 1.1, "ds": 1.15, "alfa-romeo": 1.15, "lynk-co": 1.1, "volvo": 1.15, "lexus": 1.2, "bmw": 1.05,
	"mercedes-benz": 1.05, "audi": 1.05, "jaguar": 1.2, "land-rover": 1.6, "genesis": 1.35, "tesla": 1.1,
	"polestar": 1.3, "nio": 1.3, "zeekr": 1.2, "lucid": 1.7, "cadillac": 1.4, "infiniti": 1.3, "porsche": 1.6,
	"maserati": 1.8, "alpina": 1.9, "ineos": 1.5,
	"dacia": 0.55, // Sandero TCe 90 €16,990 with about €5,500 of BPM
}

const budgetTier = 0.7

// exoticPrice is an exotic brand's entry price: net (excluding VAT and
// BPM, 2024 euros) at the reference power refHP.
type exoticPrice struct{ net, refHP float64 }

// exoticPrices are approximate 2024 Dutch entry prices of the exotic and
// luxury brands, VAT and BPM removed: Ferrari Roma about €265k on the road
// (€70k of it BPM), Rolls-Royce Ghost/Cullinan €420-500k, Bugatti Chiron
// €2.5M+ net.
var exoticPrices = map[string]exoticPrice{
	"ferrari": {160000, 620}, "lamborghini": {220000, 640}, "mclaren": {185000, 570}, "aston-martin": {150000, 510},
	"bentley": {200000, 550}, "rolls-royce": {330000, 570}, "bugatti": {2400000, 1500}, "koenigsegg": {2500000, 1300},
	"pagani": {2800000, 800}, "rimac": {2000000, 1900}, "hispano-suiza": {1400000, 1100}, "spyker": {300000, 600},
	"lotus": {80000, 400}, "morgan": {70000, 250}, "caterham": {35000, 150}, "ariel": {60000, 300}, "tvr": {70000, 400},
	"donkervoort": {150000, 400}, "maybach": {180000, 560}, "brabus": {200000, 700},
}

// exoticFloorShare is the lowest share of its brand's entry price (with
// VAT, at the model year's price level) an exotic variant may list at.
const exoticFloorShare = 0.8

// evPriceFloor is the cheapest a new electric car (not a quadricycle) is
// sold for in the Netherlands: a Dacia Spring, about €17,000.
const evPriceFloor = 16000

// bpmBracket is one bracket of the BPM table: from CO2 (g/km, WLTP) the
// tax is fixed plus perGram for every g/km above from.
type bpmBracket struct{ from, fixed, perGram float64 }

// bpm2025 is the BPM table for passenger cars of 1 January 2025
// (Belastingdienst, "Bpm-tarief personenauto", Tabel 2025; each bracket's
// fixed part is the previous bracket's maximum). Since 2025 plug-in
// hybrids use the same table; a zero-emission car pays the fixed €667.
var bpm2025 = []bpmBracket{
	{0, 667, 2},
	{79, 825, 79},
	{101, 2563, 173},
	{141, 9483, 284},
	{157, 14027, 568},
}

// The 2025 diesel surcharge: €109.87 per g/km above 70 g/km.
const (
	bpmDieselFrom    = 70
	bpmDieselPerGram = 109.87
)

// bpm is the BPM of a new passenger car with the given WLTP CO2 under the
// 2025 table.
func bpm(co2 float64, diesel bool) float64 { return bpmTable(co2, diesel, 1) }

// bpmTable is the 2025 table with its per-gram rates scaled by rate (the
// fixed parts follow, each bracket's the previous one's maximum).
func bpmTable(co2 float64, diesel bool, rate float64) float64 {
	fixed := bpm2025[0].fixed
	tax := fixed
	for i, x := range bpm2025 {
		if i > 0 {
			prev := bpm2025[i-1]
			fixed += (x.from - prev.from) * prev.perGram * rate
		}
		if co2 > x.from {
			tax = fixed + (co2-x.from)*x.perGram*rate
		}
	}
	if diesel && co2 > bpmDieselFrom {
		tax += (co2 - bpmDieselFrom) * bpmDieselPerGram * rate
	}
	return tax
}

// vatNLOf is the Dutch VAT (btw) of model year y: 18.5 % until 1992, 17.5
// % until 2000, 19 % until October 2012, 21 % since.
func vatNLOf(y int) float64 {
	switch {
	case y <= 1992:
		return 1.185
	case y <= 2000:
		return 1.175
	case y <= 2012:
		return 1.19
	}
	return vatNL
}

// nlgPerEUR is the fixed conversion of the guilder: list prices before 2002
// were in guilders and are given in euros at this rate.
const nlgPerEUR = 2.20371

// bpmOf is the Dutch registration tax (BPM; before 1993 the special
// consumption tax it replaced, of the same weight) of a new car of model
// year y with the given net price (without VAT and tax) and CO2 (g/km,
// NEDC until 2019, WLTP from 2020), in euros of the day. An approximation
// of the Belastingdienst's tables that keeps their shape:
//   - until 2007 45.2 % of the net price, less EUR 1,540 for a petrol car
//     and plus EUR 328 for a diesel;
//   - 2008-2012 that percentage falling (42.3, 40, 30, 25, 11.1 %) while
//     a CO2 part takes over;
//   - 2013-2019 CO2 brackets on the NEDC figure (about EUR 6 a gram up to
//     80 g/km, 70 to 110, 120 to 160, 230 to 180, 470 beyond; diesels EUR
//     86 a gram beyond 65);
//   - from 2020 the WLTP table, whose rates rose each year to the 2025
//     table (bpm2025).
//
// Electric cars paid none until 2024 and the fixed EUR 667 from 2025.
func bpmOf(y int, net, co2 float64, fuel string, electric bool) float64 {
	diesel := fuel == "diesel"
	if electric {
		if y >= 2025 {
			return bpm2025[0].fixed
		}
		return 0
	}
	pct := interpolate([][2]float64{{2007, 0.452}, {2008, 0.423}, {2009, 0.40}, {2010, 0.30}, {2011, 0.25}, {2012, 0.111}, {2013, 0}}, float64(y))
	share := pct / 0.452
	tax := pct * net
	if diesel {
		tax += 328 * share
	} else {
		tax -= 1540 * share
	}
	if y >= 2008 && y < 2020 {
		nedc := co2
		part := 6*math.Min(nedc, 80) + 70*clamp(nedc-80, 0, 30) + 120*clamp(nedc-110, 0, 50) + 230*clamp(nedc-160, 0, 20) + 470*math.Max(0, nedc-180)
		if diesel {
			part += 86 * math.Max(0, nedc-65)
		}
		tax += part * (1 - share)
	}
	if y >= 2020 {
		rate := interpolate([][2]float64{{2020, 0.76}, {2021, 0.79}, {2022, 0.83}, {2023, 0.87}, {2024, 0.93}, {2025, 1}}, float64(y))
		tax = bpmTable(co2, diesel, rate)
	}
	return math.Max(0, tax)
}

// priceLevel is the list-price level of a model year relative to 2024, in
// money of the day: a Golf's net price (without VAT and BPM) about 45 % of
// today's in 1990, 60 % in 2004, 76 % in 2013 (Golf III 1.4 CL about NLG
// 30,000 in 1992, Golf V 1.4 Trendline about EUR 18,500 in 2004, Golf VIII
// 1.0 TSI Life about EUR 29,000 in 2020).
func priceLevel(year int) float64 {
	return interpolate([][2]float64{{1990, 0.45}, {1992, 0.47}, {1998, 0.52}, {2004, 0.60}, {2009, 0.68}, {2013, 0.76}, {2020, 0.93}, {2024, 1}, {2026, 1.05}}, float64(year))
}

// netPrice is the price of the car excluding VAT and BPM at 2024 levels.
func (c *car) netPrice() float64 {
	if e, ok := exoticPrices[c.brand]; ok {
		return e.net * clamp(math.Sqrt(c.hp/e.refHP), 0.9, 1.8)
	}
	tier, ok := priceTier[c.brand]
	switch {
	case ok:
	case budgetBrand[c.brand]:
		tier = budgetTier
	default:
		tier = 1 + 0.5*c.premium
	}
	hp := c.hp
	power := clamp(math.Pow(hp/segmentRefHP[c.segment], 0.25), 0.85, 1.5)
	if c.segment == 'S' {
		// A sports car's price follows its power: an MX-5 to a 911 Turbo.
		power = clamp(hp/segmentRefHP['S'], 0.75, 3)
	}
	body := bodyPrice[c.body]
	if body == 0 {
		body = 1
	}
	return segmentNet[c.segment] * body * tier * power
}

// fuelPrice is the surcharge of a powertrain over the petrol car.
func fuelPrice(fuel string, seg byte, year int) float64 {
	switch fuel {
	case "electric":
		// Batteries cost most on small cars: an e-208 lists at about 1.75
		// times a 208 PureTech's net price in 2020-2023, an ID.3 at about
		// 1.3 times a Golf's, a Model 3 at a 3 Series's; less from 2024.
		f := map[byte]float64{'A': 1.9, 'B': 1.75, 'C': 1.35, 'D': 1.2, 'E': 1.15, 'F': 1.1, 'S': 1.1, 'V': 1.5}[seg]
		switch {
		case year < 2020:
			f *= 1.1
		case year >= 2024:
			f *= 0.9
		}
		return math.Max(f, 1.05)
	case "plug_in_hybrid":
		return 1.2
	case "hybrid":
		return 1.06
	case "mild_hybrid":
		return 1.02
	case "diesel":
		return 1.06
	}
	return 1
}

// fcevNet is the net price of a fuel-cell car (Toyota Mirai, Hyundai
// Nexo: about €70,000 on the road).
const fcevNet = 57000

// trimStep is what each trim up adds to the net price (Golf Life to Style
// about EUR 3,500), boxStep an automatic or dual-clutch gearbox, awdStep
// four-wheel drive.
const (
	trimStep = 0.08
	boxStep  = 0.06
	awdStep  = 0.07
	perfStep = 0.12 // a performance version's own equipment (a Golf III GTI over a 2.0 CL)
)

// pricing sets the Dutch list price in euros of the day (guilders converted
// at nlgPerEUR before 2002): the net price at the model year's level, with
// that year's VAT and BPM. The net price follows the trim, the gearbox and
// the drive only, so a higher trim of one engine never costs less.
func (c *car) pricing(r *rng) {
	if q, ok := quadricycles[c.brand+"/"+c.model]; ok {
		c.price = math.Round(q.price*(1+trimStep*float64(c.trim))/100)*100 - 10
		return
	}
	net := c.netAt() * cmp.Or(c.priceFactor, 1)
	fuel := c.fuel
	if c.dieselBase() {
		fuel = "diesel" // a diesel mild hybrid pays the diesel surcharge
	}
	p := net*vatNLOf(c.year) + bpmOf(c.year, net, c.bpmCO2(), fuel, c.isEV() || c.isFCEV())
	if floor := evPriceFloor * 1.05 * (1 + trimStep*float64(c.trim)); c.isEV() && c.year >= 2015 && p < floor {
		p = floor // the cheapest EV, its trims above it
	}
	if c.year < 2002 {
		// A guilder price such as NLG 29,995, in euros.
		c.price = math.Round((math.Round(p*nlgPerEUR/100)*100 - 5) / nlgPerEUR)
		return
	}
	c.price = math.Round(p/100)*100 - 10
}

// netAt is the net price (without VAT and BPM) of the car in money of its
// model year, before the published prices' factor.
func (c *car) netAt() float64 {
	net := c.netPrice() * fuelPrice(c.fuel, c.segment, c.year)
	if c.isFCEV() {
		net = fcevNet
	}
	net *= 1 + trimStep*float64(c.trim)
	if c.perf {
		net *= 1 + perfStep
	}
	if c.transmission != "manual" && !c.isEV() && !c.isFCEV() && c.fuel != "hybrid" && c.fuel != "plug_in_hybrid" {
		net *= 1 + boxStep
	}
	if c.drive == "all" {
		net *= 1 + awdStep
	}
	return net * priceLevel(c.year)
}

// bpmCO2 is the CO2 the BPM of the car's model year is reckoned on: the
// NEDC figure until 2019, WLTP from 2020.
func (c *car) bpmCO2() float64 {
	if c.isEV() || c.isFCEV() {
		return 0
	}
	if c.year < 2020 {
		return c.nedcCO2()
	}
	return c.co2
}
