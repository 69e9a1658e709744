package gen

import "math"

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
// same segment (1): a BMW 320i costs about a third more than a Passat. Brands not listed: budget brands 0.7, others
// 1 + 0.5 x their premium level.
var priceTier = map[string]float64{
	"mini": 1.15, "ds": 1.2, "alfa-romeo": 1.2, "lynk-co": 1.1, "volvo": 1.25, "lexus": 1.3, "bmw": 1.35,
	"mercedes-benz": 1.35, "audi": 1.35, "jaguar": 1.35, "land-rover": 1.6, "genesis": 1.35, "tesla": 1.1,
	"polestar": 1.3, "nio": 1.3, "zeekr": 1.2, "lucid": 1.7, "cadillac": 1.4, "infiniti": 1.3, "porsche": 1.85,
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

// bpm is the BPM of a new passenger car with the given WLTP CO2. Every
// model year uses the current table: the catalogue's price is a current
// list-price snapshot.
func bpm(co2 float64, diesel bool) float64 {
	b := bpm2025[0]
	for _, x := range bpm2025 {
		if co2 > x.from {
			b = x
		}
	}
	tax := b.fixed + math.Max(0, co2-b.from)*b.perGram
	if diesel && co2 > bpmDieselFrom {
		tax += (co2 - bpmDieselFrom) * bpmDieselPerGram
	}
	return tax
}

// priceLevel is the price level of a model year relative to 2024: list
// prices about doubled since 1990 (Dutch CPI), a little more after 2024.
func priceLevel(year int) float64 {
	if year >= 2024 {
		return 1 + 0.025*float64(min(year, 2026)-2024)
	}
	return clamp(0.55+0.45*float64(year-1990)/34, 0.55, 1)
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
	if c.isEV() {
		hp /= 1.4 // electric motors give more power for the money
	}
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
func fuelPrice(fuel string, year int) float64 {
	switch fuel {
	case "electric":
		switch {
		case year < 2020:
			return 1.3
		case year < 2024:
			return 1.15
		}
		return 1.05
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

// pricing sets the Dutch list price in euros: net price with VAT plus BPM.
func (c *car) pricing(r *rng) {
	if q, ok := quadricycles[c.brand+"/"+c.model]; ok {
		c.price = math.Round(q.price*r.between(1, 1.15)/100)*100 - 10
		return
	}
	net := c.netPrice() * fuelPrice(c.fuel, c.year)
	if c.isFCEV() {
		net = fcevNet
	}
	net *= 1 + 0.04*float64(c.trim) // each trim level up adds equipment
	net *= priceLevel(c.year) * clamp(r.normal(1, 0.04), 0.92, 1.08)
	co2 := c.co2
	if c.isEV() || c.isFCEV() {
		co2 = 0
	}
	p := net*vatNL + bpm(co2, c.fuel == "diesel")
	if c.isEV() && p < evPriceFloor {
		p = evPriceFloor * r.between(1.05, 1.15)
	}
	c.price = math.Round(p/100)*100 - 10
}
