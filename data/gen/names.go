package gen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// trimsByBrand lists each brand's trim names from base to top. Brands not
// listed use the style's list, then genericTrims.
var trimsByBrand = map[string][]string{
	"volkswagen":    {"Trendline", "Comfortline", "Life", "Highline", "Style", "R-Line"},
	"skoda":         {"Active", "Ambition", "Style", "Sportline", "Laurin & Klement"},
	"seat":          {"Reference", "Style", "Xcellence", "FR"},
	"cupra":         {"Base", "V", "VZ"},
	"bmw":           {"Advantage", "Sport Line", "Luxury Line", "M Sport"},
	"mercedes-benz": {"Base", "Style", "Avantgarde", "AMG Line"},
	"audi":          {"Base", "Advanced", "Design", "S line"},
	"toyota":        {"Active", "Comfort", "Dynamic", "Executive", "GR Sport"},
	"renault":       {"Life", "Zen", "Intens", "Techno", "Iconic", "Esprit Alpine"},
	"peugeot":       {"Access", "Active", "Allure", "GT Line", "GT"},
	"citroen":       {"Feel", "Shine", "Plus", "Max"},
	"opel":          {"Essentia", "Edition", "Elegance", "GS Line", "Ultimate"},
	"ford":          {"Ambiente", "Trend", "Titanium", "ST-Line", "Vignale"},
	"fiat":          {"Pop", "Easy", "Lounge", "Sport", "Cross"},
	"kia":           {"Pure", "Vision", "DynamicLine", "ExecutiveLine", "GT-Line"},
	"hyundai":       {"Pure", "Comfort", "Premium", "N Line"},
	"dacia":         {"Essential", "Expression", "Extreme", "Journey"},
	"volvo":         {"Core", "Momentum", "Plus", "Inscription", "Ultimate"},
	"nissan":        {"Visia", "Acenta", "N-Connecta", "Tekna"},
	"mazda":         {"Prime-Line", "Centre-Line", "Exclusive-Line", "Homura", "Takumi"},
	"honda":         {"Comfort", "Elegance", "Sport", "Advance"},
	"suzuki":        {"Comfort", "Select", "Style"},
	"mini":          {"Classic", "Favoured", "JCW Trim"},
	"tesla":         {""},
	"porsche":       {""},
	"lexus":         {"Business", "Executive", "F Sport", "Luxury"},
	"land-rover":    {"S", "SE", "HSE", "Autobiography"},
	"jaguar":        {"S", "SE", "HSE", "R-Dynamic"},
	"jeep":          {"Longitude", "Limited", "Trailhawk", "Summit"},
	"mg":            {"Standard", "Comfort", "Luxury"},
	"alfa-romeo":    {"Super", "Sprint", "Ti", "Veloce"},
	"mitsubishi":    {"Inform", "Intense", "Instyle"},
	"subaru":        {"Comfort", "Premium", "Platinum"},
}

var styleTrims = map[string][]string{
	"exotic": {""},
}

var genericTrims = []string{"Base", "Comfort", "Premium", "Sport", "Luxury"}

func trimsFor(brand, style string) []string {
	if t, ok := trimsByBrand[brand]; ok {
		return t
	}
	if t, ok := styleTrims[style]; ok {
		return t
	}
	return genericTrims
}

// techWords names engine technologies per brand family: petrol, turbo petrol,
// diesel, mild hybrid, full hybrid, plug-in hybrid.
type techWords struct{ petrol, turbo, diesel, mild, hybrid, phev, cng, lpg, ethanol string }

var techByBrand = map[string]techWords{
	"volkswagen":    {"MPI", "TSI", "TDI", "eTSI", "Hybrid", "eHybrid", "TGI", "LPG", "MultiFuel"},
	"skoda":         {"MPI", "TSI", "TDI", "e-TEC", "Hybrid", "iV", "G-TEC", "LPG", "MultiFuel"},
	"seat":          {"MPI", "TSI", "TDI", "eTSI", "Hybrid", "e-Hybrid", "TGI", "LPG", "MultiFuel"},
	"cupra":         {"MPI", "TSI", "TDI", "eTSI", "Hybrid", "e-Hybrid", "TGI", "LPG", "MultiFuel"},
	"audi":          {"FSI", "TFSI", "TDI", "MHEV", "Hybrid", "TFSI e", "g-tron", "LPG", "MultiFuel"},
	"renault":       {"SCe", "TCe", "dCi", "mild hybrid", "E-Tech Hybrid", "E-Tech Plug-in", "CNG", "LPG", "eco2 E85"},
	"dacia":         {"SCe", "TCe", "dCi", "mild hybrid", "Hybrid", "Plug-in", "CNG", "ECO-G", "E85"},
	"peugeot":       {"VTi", "PureTech", "BlueHDi", "Hybrid", "Hybrid", "Plug-in Hybrid", "CNG", "LPG", "Flexifuel"},
	"citroen":       {"VTi", "PureTech", "BlueHDi", "Hybrid", "Hybrid", "Plug-in Hybrid", "CNG", "LPG", "Flexifuel"},
	"ds":            {"VTi", "PureTech", "BlueHDi", "Hybrid", "Hybrid", "E-Tense", "CNG", "LPG", "Flexifuel"},
	"opel":          {"", "Turbo", "CDTI", "Hybrid", "Hybrid", "Plug-in Hybrid", "CNG", "LPG", "Flexfuel"},
	"ford":          {"Duratec", "EcoBoost", "TDCi", "EcoBoost mHEV", "FHEV", "PHEV", "CNG", "LPG", "Flexifuel"},
	"fiat":          {"Fire", "T-Jet", "MultiJet", "Hybrid", "Hybrid", "Plug-in", "Natural Power", "GPL", "Flex"},
	"toyota":        {"VVT-i", "Turbo", "D-4D", "Hybrid", "Hybrid", "Plug-in Hybrid", "CNG", "LPG", "Flexfuel"},
	"hyundai":       {"MPi", "T-GDi", "CRDi", "48V", "Hybrid", "Plug-in Hybrid", "CNG", "LPG", "FFV"},
	"kia":           {"MPi", "T-GDi", "CRDi", "MHEV", "HEV", "PHEV", "CNG", "LPG", "FFV"},
	"nissan":        {"", "DIG-T", "dCi", "Mild Hybrid", "e-Power", "Plug-in", "CNG", "LPG", "E85"},
	"mazda":         {"Skyactiv-G", "Skyactiv-G", "Skyactiv-D", "e-Skyactiv G", "Hybrid", "e-Skyactiv PHEV", "CNG", "LPG", "E85"},
	"honda":         {"i-VTEC", "VTEC Turbo", "i-DTEC", "Hybrid", "e:HEV", "e:PHEV", "CNG", "LPG", "E85"},
	"volvo":         {"", "T", "D", "B", "Hybrid", "Recharge T", "Bi-Fuel", "LPG", "Flexifuel"},
	"mercedes-benz": {"", "", "d", "", "Hybrid", "e", "c", "LPG", "E85"},
}

var genericTech = techWords{"", "Turbo", "Diesel", "Mild Hybrid", "Hybrid", "Plug-in Hybrid", "CNG", "LPG", "E85"}

func techFor(brand string) techWords {
	if t, ok := techByBrand[brand]; ok {
		return t
	}
	return genericTech
}

// engineBadge is the badge a name carries: the engine family's for petrol
// and diesel engines built from engines.tsv, else the brand's word for the
// technology, each as in the generation's era.
func engineBadge(c *car) string {
	if c.family != nil && (c.fuel == "petrol" || c.fuel == "diesel") {
		return eraBadge(c.family.Badge, c.genYear, c.dispCC)
	}
	return techFor(c.brand).word(c)
}

func (t techWords) word(c *car) string {
	w := eraBadge(t.rawWord(c), c.genYear, c.dispCC)
	if w == "dT" && c.hp < 70 {
		w = "D"
	}
	return w
}

func (t techWords) rawWord(c *car) string {
	switch c.fuel {
	case "diesel":
		return t.diesel
	case "mild_hybrid":
		return t.mild
	case "hybrid":
		return t.hybrid
	case "plug_in_hybrid":
		return t.phev
	case "cng":
		return t.cng
	case "lpg":
		return t.lpg
	case "ethanol":
		return t.ethanol
	}
	if c.turbo {
		return t.turbo
	}
	return t.petrol
}

// gearboxWord is the gearbox designation used in names and in the
// gearbox_code spec; "" for manual gearboxes.
func gearboxWord(c *car) string {
	w := rawGearboxWord(c)
	eras := gearboxEras()
	if e, ok := eras[w]; ok && !e.has(c.genYear) {
		if w == "S tronic" && eras["DSG"].has(c.genYear) {
			return "DSG"
		}
		return "Automatic"
	}
	return w
}

func rawGearboxWord(c *car) string {
	if c.hybridBox != nil && c.hybridBox.Name != "" {
		return c.hybridBox.Name
	}
	switch c.transmission {
	case "manual":
		return ""
	case "single_speed":
		return ""
	case "cvt":
		// e-CVT is a hybrid's power-split "transmission"; Toyota calls its
		// belt CVT for petrol engines Multidrive S.
		if c.brand == "toyota" || c.brand == "lexus" {
			if c.fuel == "hybrid" || c.fuel == "plug_in_hybrid" {
				return "e-CVT"
			}
			if c.brand == "toyota" {
				return "Multidrive S"
			}
		}
		return "CVT"
	}
	switch c.brand {
	case "volkswagen", "skoda", "seat", "cupra":
		if c.transmission == "dct" {
			return "DSG"
		}
		return "Tiptronic"
	case "audi":
		if c.transmission == "dct" {
			return "S tronic"
		}
		return "tiptronic"
	case "bmw", "alpina":
		return "Steptronic"
	case "mercedes-benz", "maybach", "brabus":
		w, _ := mercedesGearbox(c)
		return w
	case "porsche":
		if c.transmission == "dct" {
			return "PDK"
		}
		return "Tiptronic S"
	case "renault", "dacia":
		if c.transmission == "dct" {
			return "EDC"
		}
	case "peugeot", "citroen", "ds", "opel":
		switch c.gears {
		case 6:
			return "EAT6"
		case 8:
			return "EAT8"
		}
	case "ford":
		if c.transmission == "dct" {
			return "PowerShift"
		}
	case "hyundai", "kia":
		if c.transmission == "dct" {
			return "DCT"
		}
	case "fiat", "alfa-romeo", "abarth", "lancia":
		if c.transmission == "dct" {
			return "DCT"
		}
	}
	if c.transmission == "dct" {
		return "DCT"
	}
	return "Automatic"
}

var awdNames = map[string]string{
	"volkswagen": "4MOTION", "skoda": "4x4", "seat": "4Drive", "cupra": "4Drive", "audi": "quattro", "bmw": "xDrive",
	"mercedes-benz": "4MATIC", "volvo": "AWD", "subaru": "Symmetrical AWD", "mazda": "i-Activ AWD", "toyota": "AWD-i",
	"ford": "AWD", "land-rover": "4WD", "jeep": "4x4", "porsche": "PTM", "nissan": "ALL MODE 4x4-i", "hyundai": "HTRAC",
	"kia": "AWD", "mitsubishi": "S-AWC", "alfa-romeo": "Q4", "jaguar": "AWD", "renault": "4x4", "dacia": "4x4",
	"peugeot": "HYBRID4", "citroen": "4x4", "opel": "AWD", "fiat": "4x4", "suzuki": "ALLGRIP", "tesla": "Dual Motor AWD",
	"lamborghini": "AWD", "ferrari": "4RM", "bentley": "AWD", "honda": "Real Time AWD", "lexus": "E-Four",
}

func awdName(brand string) string {
	if n, ok := awdNames[brand]; ok {
		return n
	}
	return "AWD"
}

func litres(cc int) string {
	return strconv.FormatFloat(math.Round(float64(cc)/100)/10, 'f', 1, 64)
}

// engineDesignation is the badge of a rule-based offer in the brand's
// style, without trim, gearbox or drive words: "1.5 TSI 150", "320d",
// "C 200", "45 TFSI", "T5", "58 kWh 204 hp".
func engineDesignation(model string, c *car) string {
	hp := strconv.Itoa(int(c.hp))
	join := func(s ...string) string {
		var out []string
		for _, x := range s {
			if x != "" {
				out = append(out, x)
			}
		}
		return strings.Join(out, " ")
	}
	switch {
	case c.isEV() && c.style == "mercedes" && strings.HasPrefix(model, "EQ"):
		return mercedesCode(model, c)
	case c.isEV():
		return join(strconv.FormatFloat(c.batteryKWh*0.92, 'f', 0, 64)+" kWh", hp+" hp")
	case c.isFCEV():
		return join("Fuel Cell", hp+" hp")
	}
	switch c.style {
	case "bmw":
		code := bmwCode(model, c)
		if c.genYear < 2003 && c.drive == "all" && model[0] >= '1' && model[0] <= '8' {
			code = bmwX(code) // 325xi, 330xd
		}
		return code
	case "mercedes":
		return mercedesCode(model, c)
	case "audi":
		if c.year >= 2018 {
			return audiPowerClass(c.kw) + " " + techFor("audi").word(c)
		}
		return join(litres(c.dispCC)+" "+techFor("audi").word(c), hp)
	case "volvo":
		return volvoCode(c)
	case "tesla":
		return hp + " hp"
	case "porsche", "exotic":
		return join(litres(c.dispCC), hp+" hp")
	case "lexus":
		return lexusCode(c)
	case "mini":
		return miniCode(c)
	case "jlr":
		letter := "P"
		if c.fuel == "diesel" {
			letter = "D"
		}
		code := fmt.Sprintf("%s%d", letter, int(c.hp/10)*10)
		if c.isPHEV() {
			code += "e"
		}
		return code
	}
	return join(litres(c.dispCC), engineBadge(c), hp)
}

// bmwX puts BMW's "x" of four-wheel drive before the code's fuel letter,
// as the 3 and 5 Series had it until 2003 (325i: 325xi).
func bmwX(code string) string {
	if len(code) < 2 || strings.Contains(code, "x") {
		return code
	}
	return code[:len(code)-1] + "x" + code[len(code)-1:]
}

// rung is a step of a ladder of classes: class applies from from on.
type rung[T any] struct {
	from  float64
	class T
}

// climb returns the class of the highest rung that x reaches, the rungs
// given from the top down; below them all, bottom.
func climb[T any](x float64, rungs []rung[T], bottom T) T {
	for _, r := range rungs {
		if x >= r.from {
			return r.class
		}
	}
	return bottom
}

// audiPowerClasses are Audi's power badges (the 45 of 45 TFSI) by the least
// power in kW that earns them; below 81 kW it is 25.
var audiPowerClasses = []rung[string]{{320, "60"}, {250, "55"}, {210, "50"}, {169, "45"}, {125, "40"}, {110, "35"}, {81, "30"}}

func audiPowerClass(kw float64) string { return climb(kw, audiPowerClasses, "25") }

func volvoCode(c *car) string {
	n := max(2, min(8, int(c.kw/40)))
	switch c.fuel {
	case "diesel":
		if c.genYear >= 2020 {
			return fmt.Sprintf("B%d", n)
		}
		return fmt.Sprintf("D%d", n)
	case "plug_in_hybrid":
		switch {
		case c.genYear >= 2020:
			return fmt.Sprintf("Recharge T%d", n)
		case c.genYear >= 2015:
			return fmt.Sprintf("T%d Twin Engine", n)
		}
		return fmt.Sprintf("T%d", n)
	case "mild_hybrid":
		return fmt.Sprintf("B%d", n)
	}
	return fmt.Sprintf("T%d", n)
}

func miniCode(c *car) string {
	switch {
	case c.fuel == "diesel":
		return "Cooper D"
	case c.isPHEV():
		return "Cooper SE ALL4"
	case c.kw >= 170:
		return "John Cooper Works"
	case c.kw >= 120:
		return "Cooper S"
	case c.kw >= 80:
		return "Cooper"
	}
	return "One"
}

// engineCode is a manufacturer-style engine code, shared by variants with
// the same brand, fuel, displacement and power.
func engineCode(c *car) string {
	h := mix(uint64(len(c.brand))<<40 ^ uint64(c.dispCC)<<16 ^ uint64(c.kw) ^ uint64(c.fuel[0])<<56 ^ hashString(c.brand))
	const letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
	switch c.style {
	case "vw", "audi":
		b := make([]byte, 4)
		for i := range b {
			b[i] = letters[h%uint64(len(letters))]
			h /= uint64(len(letters))
		}
		return string(b)
	case "bmw":
		f := "B"
		if c.fuel == "diesel" {
			f = "B"
		}
		return fmt.Sprintf("%s%d%d%c%d", f, c.cylinders*10/10, int(math.Round(float64(c.dispCC)/1000*10)), "ABCT"[h%4], 20+int(h%10))
	case "mercedes":
		f := "M"
		if c.fuel == "diesel" {
			f = "OM"
		}
		return fmt.Sprintf("%s%d", f, 254+int(h%400))
	}
	return fmt.Sprintf("%c%c%d", letters[h%23], letters[(h/23)%23], 10+int(h/529%90))
}

func hashString(s string) uint64 {
	var h uint64 = 1469598103934665603
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

var audioBrands = map[string]string{
	"volkswagen": "Harman Kardon", "skoda": "Canton", "seat": "BeatsAudio", "cupra": "Sennheiser", "audi": "Bang & Olufsen",
	"bmw": "Harman Kardon", "mercedes-benz": "Burmester", "volvo": "Bowers & Wilkins", "porsche": "Bose", "toyota": "JBL",
	"lexus": "Mark Levinson", "kia": "Harman Kardon", "hyundai": "Krell", "ford": "B&O", "mazda": "Bose", "nissan": "Bose",
	"renault": "Bose", "peugeot": "Focal", "citroen": "HiFi", "ds": "Focal", "opel": "Infinity", "land-rover": "Meridian",
	"jaguar": "Meridian", "mini": "Harman Kardon", "jeep": "Alpine", "fiat": "Beats", "tesla": "Premium Audio",
	"polestar": "Harman Kardon", "genesis": "Lexicon", "bentley": "Naim", "rolls-royce": "Bespoke Audio", "mclaren": "Bowers & Wilkins",
	"maserati": "Sonus faber", "lamborghini": "Sensonum", "ferrari": "JBL", "aston-martin": "Bang & Olufsen",
}
