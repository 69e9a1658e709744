package gen

// Euro NCAP results (issue 29, item 6): the stars, and the adult-occupant
// score where it is known for certain, of the real tests of the best
// selling nameplates, from Euro NCAP's published results. A result applies
// to the nameplate's generation on sale in its test year, from that model
// year on, until a later test of the same generation (a re-test: the Zoe's
// 0 stars of 2021, the Panda's 0 of 2018). Every other car has no rating
// (null), never an invented one.
type ncapResult struct {
	brand, model string
	year         int // the test year
	stars        int
	adult        int // adult occupant protection in %, 0 when not recorded here
}

var ncapResults = []ncapResult{
	{"volkswagen", "Golf", 2012, 5, 94},
	{"volkswagen", "Golf", 2019, 5, 95},
	{"volkswagen", "Polo", 2017, 5, 96},
	{"volkswagen", "T-Roc", 2017, 5, 96},
	{"volkswagen", "Tiguan", 2016, 5, 96},
	{"volkswagen", "Passat", 2014, 5, 85},
	{"volkswagen", "ID.3", 2020, 5, 87},
	{"volkswagen", "up!", 2011, 5, 0},
	{"volkswagen", "up!", 2019, 3, 0},
	{"skoda", "Octavia", 2019, 5, 92},
	{"skoda", "Enyaq", 2021, 5, 94},
	{"renault", "Clio", 2019, 5, 96},
	{"renault", "Captur", 2019, 5, 96},
	{"renault", "Zoe", 2013, 5, 89},
	{"renault", "Zoe", 2021, 0, 43},
	{"dacia", "Spring", 2021, 1, 49},
	{"dacia", "Sandero", 2021, 2, 70},
	{"dacia", "Jogger", 2021, 1, 0},
	{"dacia", "Duster", 2017, 3, 71},
	{"peugeot", "208", 2019, 4, 91},
	{"peugeot", "2008", 2019, 4, 0},
	{"peugeot", "3008", 2016, 5, 0},
	{"opel", "Corsa", 2019, 4, 0},
	{"citroen", "C3", 2017, 4, 0},
	{"toyota", "Yaris", 2020, 5, 86},
	{"toyota", "Corolla", 2019, 5, 95},
	{"toyota", "RAV4", 2019, 5, 93},
	{"toyota", "C-HR", 2017, 5, 95},
	{"toyota", "Aygo X", 2022, 4, 0},
	{"tesla", "Model S", 2014, 5, 0},
	{"tesla", "Model 3", 2019, 5, 96},
	{"tesla", "Model Y", 2022, 5, 97},
	{"bmw", "3 Series", 2019, 5, 97},
	{"mercedes-benz", "A-Class", 2018, 5, 96},
	{"mercedes-benz", "C-Class", 2022, 5, 0},
	{"fiat", "Panda", 2011, 4, 0},
	{"fiat", "Panda", 2018, 0, 0},
	{"fiat", "Punto", 2017, 0, 0},
	{"jeep", "Wrangler", 2018, 1, 0},
	{"ford", "Puma", 2019, 5, 94},
	{"ford", "Kuga", 2019, 5, 92},
	{"ford", "Focus", 2018, 5, 85},
	{"nissan", "Qashqai", 2021, 5, 91},
	{"mg", "MG4", 2022, 5, 83},
	{"mazda", "Mazda3", 2019, 5, 98},
	{"mazda", "CX-5", 2017, 5, 0},
	{"volvo", "XC40", 2018, 5, 97},
	{"volvo", "XC60", 2017, 5, 98},
	{"volvo", "XC90", 2015, 5, 97},
	{"kia", "EV6", 2022, 5, 0},
	{"hyundai", "Ioniq 5", 2021, 5, 0},
}

// ncapFor returns the result that applies to a car of the nameplate brand
// model whose mark was launched in markStart (ended markEnd, 0 while on
// sale), of model year y: the latest test of that mark in or before y.
func ncapFor(brand, model string, markStart, markEnd, y int) (ncapResult, bool) {
	var best ncapResult
	ok := false
	for _, n := range ncapResults {
		if n.brand != brand || n.model != model || n.year < markStart || (markEnd != 0 && n.year > markEnd) || n.year > y {
			continue
		}
		if !ok || n.year > best.year {
			best, ok = n, true
		}
	}
	return best, ok
}
