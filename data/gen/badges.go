package gen

import (
	"fmt"
	"strings"
	"sync"

	"github.com/vspec/catalogue/data/vocab"
)

// Names follow each brand's grammar (issue 16): a badge is only used from
// the year its technology reached the market, gearbox names are those the
// brand sold in that era, and trims belong to their brand, nameplates and
// era. Names take their era from the generation's launch year (car.genYear),
// so every variant of a generation is named as at its launch.

// era is the span of model years a name was in use: from first, up to last
// (0: still in use).
type era struct{ first, last int }

func (e era) has(year int) bool { return year >= e.first && (e.last == 0 || year <= e.last) }

// badgeTable is data/vocab/badges.tsv: each engine badge's era, the
// brand's earlier badge for the technology and its successor.
var badgeTable = sync.OnceValue(func() map[string]vocab.Badge { return vocab.Default().Badges })

// badgeEras are the eras of the badges of badges.tsv.
var badgeEras = sync.OnceValue(func() map[string]era {
	out := map[string]era{}
	for name, b := range badgeTable() {
		if b.First != 0 {
			out[name] = era{b.First, b.Last}
		}
	}
	return out
})

// eraBadge returns badge as used in year: badge itself within its era,
// else the brand's earlier badge for the same technology. TDI is never
// put on an engine under 1.2 litres (VW's 1.2 TDI of the Polo and Lupo 3L
// was the smallest).
func eraBadge(badge string, year, dispCC int) string {
	table := badgeTable()
	for i := 0; i < 8 && badge != ""; i++ {
		b, ok := table[badge]
		e := era{b.First, b.Last}
		ok = ok && b.First != 0
		small := badge == "TDI" && dispCC < 1150
		if (!ok || e.has(year)) && !small {
			return badge
		}
		if small {
			badge = "D"
			continue
		}
		if e.last != 0 && year > e.last {
			// A badge past its era (HDi after 2013) gives way to its successor.
			if b.After == "" {
				return ""
			}
			badge = b.After
			continue
		}
		badge = b.Before
	}
	return badge
}

// gearboxTable is data/vocab/gearboxes.tsv: each automatic gearbox name,
// the years it was sold and the brands that used it.
var gearboxTable = sync.OnceValue(func() map[string]vocab.Gearbox { return vocab.Default().Gearboxes })

// gearboxEras are the eras of the gearbox names of gearboxes.tsv, built
// once (the namer asks for every variant).
var gearboxEras = sync.OnceValue(func() map[string]era {
	out := map[string]era{}
	for name, g := range gearboxTable() {
		out[name] = era{g.First, g.Last}
	}
	return out
})

// gearboxBrands are the brands each gearbox name belongs to; a name with
// no brands in gearboxes.tsv is absent (any brand).
var gearboxBrands = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for name, g := range gearboxTable() {
		if g.Brands != nil {
			out[name] = g.Brands
		}
	}
	return out
})

// mercedesCompact are the front-drive compacts that get Mercedes' DCTs.
var mercedesCompact = map[string]bool{
	"A-Class": true, "A-Class Sedan": true, "B-Class": true, "CLA": true, "CLA Shooting Brake": true, "GLA": true, "GLB": true,
	"EQA": true, "EQB": true,
}

// mercedesGearbox is the Mercedes automatic of the car's era, and its gears.
func mercedesGearbox(c *car) (string, int) {
	y := c.genYear
	if c.row {
		// A line-up row gives the gears: the name is theirs.
		switch {
		case c.transmission == "dct" && c.gears == 7:
			return "7G-DCT", 7
		case c.transmission == "dct" && c.gears == 8:
			return "8G-DCT", 8
		case c.transmission == "automatic" && c.gears == 5 && y >= 1996:
			return "5G-TRONIC", 5
		case c.transmission == "automatic" && c.gears == 7:
			return "7G-TRONIC", 7
		case c.transmission == "automatic" && c.gears == 9:
			return "9G-TRONIC", 9
		}
		return "Automatic", c.gears
	}
	if c.transmission == "dct" && mercedesCompact[c.model] {
		switch {
		case y >= 2019:
			return "8G-DCT", 8
		case y >= 2012:
			return "7G-DCT", 7
		}
	}
	switch {
	case y >= 2016 || (y >= 2013 && c.gears >= 8):
		// From the W213 E-Class of 2016 on, every new generation's
		// automatic is the 9G-TRONIC (a W206 C 200 has no 7G-TRONIC).
		return "9G-TRONIC", 9
	case y >= 2003:
		return "7G-TRONIC", 7
	case y >= 1996:
		return "5G-TRONIC", 5
	}
	return "Automatic", 4
}

// settleGearbox makes the gearbox agree with the name it will carry: a
// Mercedes automatic has the gears of its G-TRONIC, a DCT outside the
// Mercedes compacts is a torque-converter automatic.
func (c *car) settleGearbox() {
	if c.style != "mercedes" || (c.transmission != "automatic" && c.transmission != "dct") {
		return
	}
	name, gears := mercedesGearbox(c)
	if c.transmission == "dct" && !strings.Contains(name, "DCT") {
		c.transmission = "automatic"
	}
	c.gears = gears
}

// trimEras are the brand-specific trims, the brands and nameplates that
// carried them and their years. A trim not listed is a generic word
// ("Style", "Comfort", "Sport") and may appear on several brands.
type trimRule struct {
	brands []string
	models []string // nil: any nameplate of the brands
	era    era
}

var trimRules = map[string]trimRule{
	"Trendline":   {[]string{"volkswagen"}, nil, era{1997, 2019}},
	"Comfortline": {[]string{"volkswagen"}, nil, era{1997, 2019}},
	"Highline":    {[]string{"volkswagen"}, nil, era{1997, 2019}},
	"R-Line":      {[]string{"volkswagen"}, nil, era{2008, 0}},
	"Life":        {[]string{"volkswagen", "renault"}, nil, era{2012, 0}},
	"ST-Line": {[]string{"ford"}, []string{"Fiesta", "Focus", "Focus Estate", "Mondeo", "Mondeo Estate", "Kuga", "Puma", "EcoSport",
		"Galaxy", "S-Max", "Edge", "Ka+", "Tourneo Connect", "Tourneo Custom", "Transit Custom", "Explorer"}, era{2014, 0}},
	"Vignale":          {[]string{"ford"}, []string{"Mondeo", "Mondeo Estate", "Kuga", "Edge", "S-Max", "Focus", "Focus Estate", "Fiesta", "Puma"}, era{2015, 2022}},
	"Titanium":         {[]string{"ford"}, nil, era{2002, 0}},
	"Ambiente":         {[]string{"ford"}, nil, era{1996, 2018}},
	"N Line":           {[]string{"hyundai"}, []string{"i10", "i20", "i30", "i30 Wagon", "i30 Fastback", "Bayon", "Kona", "Tucson", "Elantra", "Sonata", "Santa Fe"}, era{2018, 0}},
	"GT Line":          {[]string{"peugeot"}, nil, era{2014, 0}},
	"GT-Line":          {[]string{"kia"}, nil, era{2013, 0}},
	"GS Line":          {[]string{"opel"}, nil, era{2019, 0}},
	"Sportline":        {[]string{"skoda"}, nil, era{2015, 0}},
	"Laurin & Klement": {[]string{"skoda"}, nil, era{2006, 0}},
	"Xcellence":        {[]string{"seat"}, nil, era{2016, 0}},
	"AMG Line":         {[]string{"mercedes-benz"}, nil, era{2012, 0}},
	"Avantgarde":       {[]string{"mercedes-benz"}, nil, era{1993, 0}},
	"M Sport":          {[]string{"bmw"}, nil, era{1995, 0}},
	"Sport Line":       {[]string{"bmw"}, nil, era{2012, 0}},
	"Luxury Line":      {[]string{"bmw"}, nil, era{2012, 0}},
	"S line":           {[]string{"audi"}, nil, era{1996, 0}},
	"GR Sport":         {[]string{"toyota"}, nil, era{2019, 0}},
	"Esprit Alpine":    {[]string{"renault"}, nil, era{2022, 0}},
	"Techno":           {[]string{"renault"}, nil, era{2022, 0}},
	"Iconic":           {[]string{"renault"}, nil, era{2022, 0}},
	"Intens":           {[]string{"renault"}, nil, era{2012, 0}},
	"Zen":              {[]string{"renault"}, nil, era{2012, 0}},
	"F Sport":          {[]string{"lexus"}, nil, era{2007, 0}},
	"R-Dynamic":        {[]string{"jaguar", "land-rover"}, nil, era{2017, 0}},
	"Trailhawk":        {[]string{"jeep"}, nil, era{2007, 0}},
	"Tekna":            {[]string{"nissan"}, nil, era{2003, 0}},
	"N-Connecta":       {[]string{"nissan"}, nil, era{2013, 0}},
	"Homura":           {[]string{"mazda"}, nil, era{2020, 0}},
	"Takumi":           {[]string{"mazda"}, nil, era{2021, 0}},
	"JCW Trim":         {[]string{"mini"}, nil, era{2014, 0}},
	"Veloce":           {[]string{"alfa-romeo"}, nil, era{1990, 0}},
	"Inscription":      {[]string{"volvo"}, nil, era{2003, 2021}},
	"Momentum":         {[]string{"volvo"}, nil, era{2003, 2021}},
	"Autobiography":    {[]string{"land-rover"}, nil, era{1993, 0}},
}

func (t trimRule) allows(brand, model string, year int) bool {
	ok := false
	for _, b := range t.brands {
		ok = ok || b == brand
	}
	if !ok || !t.era.has(year) {
		return false
	}
	if t.models == nil {
		return true
	}
	for _, m := range t.models {
		if m == model {
			return true
		}
	}
	return false
}

// eraTrims are the trim lines of a brand by era, base to top, where they
// changed: VW's Trendline/Comfortline/Highline gave way to Life/Style/
// R-Line in 2020, Renault's Authentique/Expression/Dynamique/Privilège to
// Life/Zen/Intens in 2012 and Evolution/Techno/Iconic/Esprit Alpine in 2022.
var eraTrims = map[string][]struct {
	from  int
	trims []string
}{
	"volkswagen": {{0, []string{"CL", "GL", "GT"}}, {1997, []string{"Trendline", "Comfortline", "Highline"}},
		{2008, []string{"Trendline", "Comfortline", "Highline", "R-Line"}}, {2020, []string{"Life", "Style", "R-Line"}}},
	"renault": {{0, []string{"RN", "RT", "RXE", "Baccara"}}, {1998, []string{"Authentique", "Expression", "Dynamique", "Privilège"}},
		{2012, []string{"Life", "Zen", "Intens"}}, {2022, []string{"Evolution", "Techno", "Iconic", "Esprit Alpine"}}},
	"ford": {{0, []string{"CL", "GL", "Ghia"}}, {1996, []string{"Ambiente", "Zetec", "Ghia"}}, {2002, []string{"Ambiente", "Trend", "Titanium"}},
		{2014, []string{"Trend", "Titanium", "ST-Line"}}, {2015, []string{"Trend", "Titanium", "ST-Line", "Vignale"}},
		{2019, []string{"Titanium", "ST-Line", "Vignale"}}, {2023, []string{"Titanium", "ST-Line", "Active"}}},
	"hyundai":       {{0, []string{"GL", "GLS", "Premium"}}, {2008, []string{"Pure", "Comfort", "Premium"}}, {2018, []string{"Pure", "Comfort", "Premium", "N Line"}}},
	"peugeot":       {{0, []string{"XR", "XT", "GT"}}, {2001, []string{"Access", "Active", "Allure", "GT"}}, {2014, []string{"Access", "Active", "Allure", "GT Line", "GT"}}},
	"kia":           {{0, []string{"LX", "EX", "SX"}}, {2007, []string{"Pure", "Vision", "DynamicLine", "ExecutiveLine"}}, {2013, []string{"Pure", "Vision", "DynamicLine", "ExecutiveLine", "GT-Line"}}},
	"opel":          {{0, []string{"GL", "GLS", "CD"}}, {2000, []string{"Essentia", "Enjoy", "Cosmo"}}, {2014, []string{"Essentia", "Edition", "Elegance", "Ultimate"}}, {2019, []string{"Edition", "Elegance", "GS Line", "Ultimate"}}},
	"toyota":        {{0, []string{"XLi", "GLi", "GS"}}, {2000, []string{"Active", "Comfort", "Dynamic", "Executive"}}, {2019, []string{"Active", "Comfort", "Dynamic", "Executive", "GR Sport"}}},
	"volvo":         {{0, []string{"Base", "GL", "GLT"}}, {2003, []string{"Kinetic", "Momentum", "Summum", "Inscription"}}, {2022, []string{"Core", "Plus", "Ultimate"}}},
	"mazda":         {{0, []string{"GLX", "GT"}}, {2013, []string{"Prime-Line", "Centre-Line", "Exclusive-Line"}}, {2020, []string{"Prime-Line", "Centre-Line", "Exclusive-Line", "Homura"}}, {2021, []string{"Prime-Line", "Centre-Line", "Exclusive-Line", "Homura", "Takumi"}}},
	"skoda":         {{0, []string{"LX", "GLX"}}, {1999, []string{"Classic", "Comfort", "Elegance"}}, {2006, []string{"Active", "Ambition", "Elegance", "Laurin & Klement"}}, {2015, []string{"Active", "Ambition", "Style", "Sportline", "Laurin & Klement"}}},
	"bmw":           {{0, []string{"", "M Sport"}}, {2012, []string{"Advantage", "Sport Line", "Luxury Line", "M Sport"}}},
	"mercedes-benz": {{0, []string{"Classic", "Elegance", "Avantgarde"}}, {2012, []string{"Base", "Style", "Avantgarde", "AMG Line"}}},
	"nissan":        {{0, []string{"LX", "SLX", "SE"}}, {2003, []string{"Visia", "Acenta", "Tekna"}}, {2013, []string{"Visia", "Acenta", "N-Connecta", "Tekna"}}},
	"lexus":         {{0, []string{"Base", "Executive", "Luxury"}}, {2007, []string{"Business", "Executive", "F Sport", "Luxury"}}},
	"jaguar":        {{0, []string{"S", "SE", "Sport"}}, {2017, []string{"S", "SE", "HSE", "R-Dynamic"}}},
	"mini":          {{0, []string{"Classic", "Chili"}}, {2014, []string{"Classic", "Favoured", "JCW Trim"}}},
	"seat":          {{0, []string{"Reference", "Stella", "Signo"}}, {2000, []string{"Reference", "Style", "FR"}}, {2016, []string{"Reference", "Style", "Xcellence", "FR"}}},
	"jeep":          {{0, []string{"Sport", "Laredo", "Limited"}}, {2007, []string{"Longitude", "Limited", "Trailhawk", "Summit"}}},
}

// modelTrims are the nameplates whose trims differ from their brand's.
var modelTrims = map[string][]string{
	"ford/Mustang": {"", "GT", "Mach 1"}, "ford/GT": {""}, "ford/Ranger": {"XL", "XLT", "Wildtrak", "Raptor"},
	"ford/Bronco": {"Big Bend", "Outer Banks", "Badlands", "Wildtrak"}, "ford/Mustang Mach-E": {"Select", "Premium", "GT"},
	"ford/Transit": {"Trend", "Limited"}, "ford/Transit Connect": {"Trend", "Limited"}, "ford/Transit Courier": {"Trend", "Limited"},
	"ford/Capri": {"Select", "Premium"}, "ford/Maverick": {"XLS", "XLT", "Limited"},
	"hyundai/Nexo": {"", "Premium"}, "hyundai/Ioniq 5": {"Pure", "Lounge", "Premium"}, "hyundai/Ioniq 6": {"Pure", "Lounge", "Premium"},
	"hyundai/Ioniq 9": {"Pure", "Lounge", "Premium"}, "hyundai/Ioniq": {"Pure", "Comfort", "Premium"},
	"volkswagen/Phaeton": {"", "Exclusive"}, "volkswagen/Touareg": {"", "Elegance", "R-Line"},
}

// trimName is the trim of index i (of n in the brand's base list) for
// a nameplate launched in year: the era's trim at the same level.
func trimName(brand, model string, year, i, n int, base []string) string {
	list := modelTrims[brand+"/"+model]
	if list == nil {
		if eras, ok := eraTrims[brand]; ok {
			for _, e := range eras {
				if year >= e.from {
					list = e.trims
				}
			}
		}
	}
	if list == nil {
		list = base
	}
	if n <= 1 || len(list) == 1 {
		return list[0]
	}
	t := list[i*len(list)/n]
	if r, ok := trimRules[t]; ok && !r.allows(brand, model, year) {
		return list[0]
	}
	return t
}

// lexusCode is Lexus' power-class number: 200/250/350/500 for petrol
// engines, 300h/350h/450h/500h for hybrids, 450h+ for the plug-in, 220d
// for the diesel.
func lexusCode(c *car) string {
	switch {
	case c.isPHEV():
		return "450h+"
	case c.isHybrid():
		return climb(c.kw, []rung[string]{{260, "500h"}, {210, "450h"}, {175, "350h"}}, "300h")
	case c.fuel == "diesel":
		return "220d"
	}
	return climb(c.kw, []rung[string]{{290, "500"}, {190, "350"}, {140, "250"}}, "200")
}

var lexusCodes = map[string]bool{"200": true, "250": true, "350": true, "500": true, "300h": true, "350h": true, "450h": true, "500h": true, "450h+": true, "220d": true}

// mercedesNumbers are the numbers of Mercedes' badges by the least power
// that earns them, for petrol and diesel engines.
var (
	mercedesPetrol = []rung[int]{{370, 580}, {300, 500}, {250, 450}, {205, 350}, {170, 300}, {135, 250}, {110, 200}, {90, 180}}
	mercedesDiesel = []rung[int]{{230, 400}, {190, 350}, {165, 300}, {125, 220}, {100, 200}}
	mercedesEV     = []rung[int]{{380, 580}, {300, 500}, {250, 450}, {200, 350}, {160, 300}}
)

var mercedesNumberSet = map[int]bool{160: true, 180: true, 200: true, 220: true, 250: true, 300: true, 350: true, 400: true, 450: true, 500: true, 580: true}

// mercedesLetter is the class letter of a Mercedes model: "C" for the
// C-Class and its estate, "GLC" for the GLC Coupé, "" for nameplates
// without one (Vito, Sprinter ...).
func mercedesLetter(model string) (letter string, isClass bool) {
	w := model
	if i := strings.IndexByte(w, ' '); i > 0 {
		w = w[:i]
	}
	if l, ok := strings.CutSuffix(w, "-Class"); ok {
		return l, true
	}
	for _, c := range w {
		if c < 'A' || c > 'Z' {
			return "", false
		}
	}
	return w, false
}

func mercedesCode(model string, c *car) string {
	letter, isClass := mercedesLetter(model)
	// The number follows the power as the brand's price lists of the
	// era give it (powercodes.tsv: a W206 C 200 has 204 hp, a W177 A 200
	// 163); the ladders below serve the brands and EVs it does not list.
	n, ok := 0, false
	if c.fuel != "electric" && c.vocab != nil {
		n, ok = c.vocab.PowerCode(c.brand, c.model, c.fuel, c.genYear, int(c.hp))
	}
	switch {
	case ok:
	case c.fuel == "diesel":
		n = climb(c.kw, mercedesDiesel, 180)
	case c.fuel == "electric":
		n = climb(c.kw, mercedesEV, 250)
	default:
		n = climb(c.kw, mercedesPetrol, 160)
	}
	code := fmt.Sprint(n)
	if isClass {
		code = letter + " " + code
	}
	if m, ok := mercedesFuelMarks[c.fuel]; ok {
		code += climb(float64(c.genYear), m.rungs, m.before)
	}
	return code
}

// mercedesFuelMarks are the marks that follow the number of a Mercedes
// badge, per fuel: by the first model year that carries them, and the
// mark of the years before. Petrol and electric cars carry none.
var mercedesFuelMarks = map[string]struct {
	rungs  []rung[string]
	before string
}{
	"diesel":         {[]rung[string]{{2014, " d"}, {1997, " CDI"}}, " Diesel"},
	"plug_in_hybrid": {[]rung[string]{{2014, " e"}}, " HYBRID"},
	"hybrid":         {[]rung[string]{{2014, ""}}, " HYBRID"},
	"mild_hybrid":    {[]rung[string]{{2014, ""}}, " HYBRID"},
	"cng":            {[]rung[string]{{2013, " c"}}, " NGT"},
}

// bmwCode is BMW's model code: the series digit, a number that follows the
// engine (the 30d and 40d are 3.0-litre sixes, the 20d a 2.0-litre four)
// and i/d/e; the M Performance cars (M340i) from 2019. X and Z models
// carry sDrive/xDrive (from 2009/2003) in front of the number.
func bmwCode(model string, c *car) string {
	suffix := "i"
	switch c.fuel {
	case "diesel":
		suffix = "d"
	case "plug_in_hybrid":
		if c.genYear >= 2015 {
			suffix = "e"
		}
	}
	six := c.cylinders >= 6 && c.dispCC >= 2500
	var n int
	switch {
	case c.cylinders >= 8:
		n = 50
	case six && suffix == "d" && c.genYear >= 2010:
		// The N57 and B57 sixes: 525d 204-218 hp, 530d 245-286, 540d from 313.
		n = climb(c.kw, []rung[int]{{220, 40}, {170, 30}}, 25)
	case six && suffix == "d":
		n = climb(c.kw, []rung[int]{{220, 40}}, 30)
	case six && c.kw >= 220:
		n = 40
	case six && c.genYear < 2016 && c.kw >= 210:
		n = 35
	case six:
		n = 30
	case c.cylinders <= 3:
		n = climb(c.kw, []rung[int]{{90, 18}}, 16)
	case suffix == "d" && c.genYear >= 2010:
		// 318d 143-150 hp, 320d 163-190, 325d 218-231.
		n = climb(c.kw, []rung[int]{{150, 25}, {120, 20}}, 18)
	case suffix == "d":
		n = climb(c.kw, []rung[int]{{150, 25}, {100, 20}}, 18)
	default:
		n = climb(c.kw, []rung[int]{{170, 30}, {115, 20}}, 18)
		if c.genYear < 2016 && n == 30 && suffix != "e" { // the plug-in was a 330e from its 2015 launch
			n = 28
		}
	}
	if model != "" && model[0] >= '1' && model[0] <= '8' {
		code := fmt.Sprintf("%c%d%s", model[0], n, suffix)
		if n == 40 && c.genYear >= 2019 && model[0] >= '2' && model[0] <= '4' {
			code = "M" + code
		}
		return code
	}
	if model == "" || (model[0] != 'X' && model[0] != 'Z') {
		return fmt.Sprintf("%d%s", n, suffix)
	}
	drive := ""
	switch {
	case c.drive == "all" && c.genYear >= 2003:
		drive = "xDrive"
	case c.drive != "all" && c.genYear >= 2009:
		drive = "sDrive"
	default:
		return fmt.Sprintf("%s%s", litres(c.dispCC), suffix)
	}
	return fmt.Sprintf("%s%d%s", drive, n, suffix)
}
