package gen

import "math"

// The rules below keep the synthetic catalogue within what an automotive
// editor would sign (issue 16). The generator applies them and
// invariants_test.go checks them on the full catalogue.

// Power.

// volumeMaxHP is the most a volume brand (neither premium nor exotic)
// builds: a hot hatch tops out near 330 hp, a performance EV from Kia or
// Hyundai near 600 hp. Only the halo models below go further.
const volumeMaxHP = 600

// volumeBrand reports whether a brand sells mainstream cars: not premium
// (BMW, Volvo, DS ...), not exotic.
func volumeBrand(brand string) bool {
	return premiumBrand[brand] < 0.5 && !exoticPower(brand)
}

// haloModels are the volume brands' real halo cars and their peak power
// (hp) across the generations of the catalogue: Ford GT 660 hp (2017),
// Mustang Shelby GT500 760 hp (2020), Corvette C7 ZR1 755 hp, Viper ACR
// 654 hp, Challenger/Charger SRT Hellcat Redeye 808 hp, GT-R Nismo 600 hp.
var haloModels = map[string]float64{
	"ford/GT": 660, "ford/Mustang": 760, "chevrolet/Corvette": 755, "dodge/Viper": 654, "chrysler/Viper": 654,
	"dodge/Challenger": 808, "dodge/Charger": 808, "nissan/GT-R": 600,
	// Electric halo versions (evs.tsv): Kia EV6 GT 585 then 650 hp,
	// Hyundai Ioniq 5 N 650 hp.
	"kia/EV6": 650, "hyundai/Ioniq 5": 650,
}

// exoticHP is the power range (hp, current era) of the exotic brands'
// cars, from their catalogues: a Caterham Seven starts near 85 hp, a
// Ferrari near 480 (Roma 620, 812 Superfast 800; the plug-in SF90's 1,000
// is left to the hybrid boost, within the cap), a Bugatti at the Veyron's
// 1,001 (Chiron 1,500, Super Sport 1,600), a Rimac Nevera has 1,914.
var exoticHP = map[string][2]float64{
	"ferrari": {480, 830}, "lamborghini": {500, 830}, "mclaren": {540, 800}, "aston-martin": {400, 760},
	"bentley": {400, 780}, "rolls-royce": {450, 600}, "bugatti": {1000, 1600}, "koenigsegg": {700, 1600},
	"pagani": {650, 860}, "rimac": {1200, 1914}, "hispano-suiza": {1000, 1100}, "spyker": {400, 600},
	"lotus": {120, 600}, "morgan": {110, 370}, "caterham": {85, 310}, "ariel": {240, 500}, "tvr": {250, 500},
	"donkervoort": {200, 500},
}

func exoticPower(brand string) bool { _, ok := exoticHP[brand]; return ok }

// sportsHPLo is the entry power of a sports car of a non-exotic brand
// today (Mazda MX-5 132-184 hp, GR86 234 hp), the segment's floor.
const sportsHPLo = 150

// sportsHPHi caps sports cars of volume brands (Nissan 370Z Nismo 344 hp,
// Alpine A110 R 300 hp, Lotus-engined Opel Speedster ...; the halo models
// have caps of their own), premiumSportsHPHi those of premium brands
// (Porsche 911 GT2 RS 700 hp, Mercedes-AMG GT Black Series 730 hp).
const (
	sportsHPHi        = 520
	premiumSportsHPHi = 700
)

// Drive.

// frontDriveMaxHP is the most power a front-drive car puts down (Honda
// Civic Type R 329 hp, Focus RS500 350 hp); more goes to all four wheels.
const frontDriveMaxHP = 350

// evSingleMotorMaxHP is the most power of a single-motor electric car
// (Porsche Taycan 408 hp, Mercedes EQS 450+ 360 hp); above it a second
// motor drives the front axle.
const evSingleMotorMaxHP = 480

// Which nameplates were only sold with four-wheel drive (Land Rover,
// G-Class, Wrangler, Jimny, Land Cruiser ...), which fuels and drives each
// had and its power range are data: data/vocab/powertrains.tsv, applied
// through car.limits.

// Quadricycles: light electric city vehicles (EU L6e/L7e) with figures of
// their own. Citroën Ami and Fiat Topolino: 6 kW, 5.5 kWh, 485 kg, 45
// km/h; Microlino: 12.5 kW, 10.5 kWh, 513 kg, 90 km/h; XEV YoYo: 6 kW,
// 10.3 kWh, 750 kg, 80 km/h.
// Dutch prices: Ami €7,990, Topolino €9,890, Microlino €17,990, YoYo
// €14,990.
type quadricycle struct {
	kw, batteryKWh, weight, topSpeed, acKW, price float64
}

var quadricycles = map[string]quadricycle{
	"citroen/Ami":         {6, 5.5, 485, 45, 2.3, 8000},
	"fiat/Topolino":       {6, 5.5, 485, 45, 2.3, 9900},
	"microlino/Microlino": {12.5, 10.5, 513, 90, 2.3, 18000},
	"xev/YOYO":            {6, 10.3, 750, 80, 2.3, 15000},
}

// Emissions.

// co2PerLitre converts WLTP consumption to CO2 (g/km per l/100 km, or per
// kg/100 km for CNG): 2.38 kg CO2 per litre of petrol, 2.65 of diesel.
var co2PerLitre = map[string]float64{
	"petrol": 23.8, "diesel": 26.5, "mild_hybrid": 23.8, "hybrid": 23.8, "lpg": 16.6, "ethanol": 17.0, "cng": 27.0,
	"plug_in_hybrid": 23.8,
}

// phevUtility is the WLTP utility factor of a plug-in hybrid: the share of
// distance driven on electricity for an electric range of d km, the fleet
// factor of EU regulation 2017/1151, Annex XXI, Sub-Annex 8, Appendix 5
// (d_n = 800 km). 50 km gives about 0.75, 100 km about 0.9.
func phevUtility(d float64) float64 {
	k := [...]float64{26.25, -38.94, -631.05, 5964.83, -25095, 60380.2, -87517, 75513.8, -35749, 7154.94}
	x := math.Min(d, 800) / 800
	sum, p := 0.0, 1.0
	for _, kj := range k {
		p *= x
		sum += kj * p
	}
	return 1 - math.Exp(-sum)
}

// Charging.

// maxDCRate is the highest DC charging power per kWh of battery a car
// accepts (about 3.5 C: a 77 kWh Ioniq 5 peaks at 260 kW, a 35 kWh Mini at
// 95 kW).
const maxDCRate = 3.5

// dcEraCap is the fastest DC charging of a model year: CHAdeMO/early CCS
// at 50 kW, the 150 kW generation from 2018, the Taycan's 270 kW from
// 2020, 350 kW from 2023.
func dcEraCap(year int) float64 {
	switch {
	case year < 2014:
		return 50
	case year < 2018:
		return 120 // Tesla's first Superchargers
	case year < 2020:
		return 150
	case year < 2023:
		return 270
	}
	return 350
}

// Acceleration.

// slowestAccel is the slowest 0-100 km/h a car in the catalogue takes;
// even a 1990s diesel van or 34 hp city car makes it in under 20 s.
const slowestAccel = 20.0

// maxKgPerKW is the heaviest car per kW of power the catalogue holds, so
// that no car is slower than slowestAccel.
const maxKgPerKW = 30.0

// tractionFloor is the quickest 0-100 km/h the driven wheels allow on road
// tyres: Rimac Nevera 1.85 s (electric, all-wheel drive), Chiron 2.4 s,
// McLaren 720S 2.9 s (rear drive), Civic Type R 5.4 s (front drive).
func tractionFloor(drive string, electric bool) float64 {
	switch drive {
	case "all":
		if electric {
			return 1.85
		}
		return 2.3
	case "rear":
		return 2.7
	}
	return 5.0
}

// powerLimitedAccel is the physical lower bound of the 0-100 km/h time at
// constant power (kinetic energy at 100 km/h over power), with the
// driveline and shift losses no car beats (factor 1.2).
func powerLimitedAccel(weightKG, kw float64) float64 {
	v := 100 / 3.6
	return 1.2 * weightKG * v * v / (2 * kw * 1000)
}

// atkinsonHybrid are the brands whose hybrids and plug-in hybrids without a
// listed engine (engines.tsv) run a naturally aspirated Atkinson-cycle
// engine: Honda's 2.0 i-MMD, Lexus's 2.5, Mitsubishi's 2.4, Mazda's 2.5.
var atkinsonHybrid = map[string]bool{"toyota": true, "lexus": true, "honda": true, "mitsubishi": true, "suzuki": true, "mazda": true, "subaru": true}

// naSportsCars are the brands whose sports cars stayed naturally aspirated
// until a model year, whatever their power (Lamborghini's V10 and V12 until
// the Revuelto and Temerario).
var naSportsCars = map[string]int{"lamborghini": 2024}

// saloonBrandSports are the premium brands whose sports cars share their
// saloons' platforms and weigh accordingly (Z4, SLK/SLC, TT, F-Type, RC).
var saloonBrandSports = map[string]bool{"bmw": true, "alpina": true, "mercedes-benz": true, "audi": true, "jaguar": true, "lexus": true}

// fuelFirstYear is the first model year of a drive technology in European
// showrooms (Prius 1997; S 400 Hybrid 2009 and Ampera 2011, the generator's
// mixed-powertrain shares starting in 2010): the years powertrains.tsv
// rows cannot precede.
var fuelFirstYear = map[string]int{"hybrid": 1997, "mild_hybrid": 2010, "plug_in_hybrid": 2010, "electric": 2010}
