package gen

// DemoSeed seeds every entity of the demo chain (its brands' models,
// generations and variants) instead of the catalogue seed, so the demo set is
// the same under any seed and any scale.
const DemoSeed uint64 = 0x64656d6f5f763031 // "demo_v01"

// DemoModel names one model of the frozen demo set and the fuels forced on
// the two demo variants of each of its last two generations.
type DemoModel struct {
	Brand string // brand slug
	Model string // model name as in the vocabulary's model files
	// Fuels[0] are the fuels of the second-to-last generation's two demo
	// variants, Fuels[1] those of the last generation.
	Fuels [2][2]string
}

// DemoModels is the frozen demo set: 5 brands x 2 models x 2 generations x
// 2 variants = 40 variants covering all 10 fuel types. Changing it changes
// what every demo key reaches: data/gen/testdata/demo_set.golden records the
// result and a test fails when the generator drifts from it.
var DemoModels = [10]DemoModel{
	{"volkswagen", "Golf", [2][2]string{{"cng", "electric"}, {"mild_hybrid", "plug_in_hybrid"}}},
	{"volkswagen", "Transporter", [2][2]string{{"diesel", "petrol"}, {"diesel", "plug_in_hybrid"}}},
	{"toyota", "Corolla", [2][2]string{{"petrol", "hybrid"}, {"hybrid", "hybrid"}}},
	{"toyota", "Prius", [2][2]string{{"hybrid", "plug_in_hybrid"}, {"hybrid", "plug_in_hybrid"}}},
	{"bmw", "3 Series", [2][2]string{{"petrol", "diesel"}, {"diesel", "plug_in_hybrid"}}},
	{"bmw", "i3", [2][2]string{{"electric", "electric"}, {"electric", "electric"}}},
	{"hyundai", "Tucson", [2][2]string{{"diesel", "mild_hybrid"}, {"hybrid", "plug_in_hybrid"}}},
	{"hyundai", "Nexo", [2][2]string{{"hydrogen", "hydrogen"}, {"hydrogen", "hydrogen"}}},
	{"ford", "Focus", [2][2]string{{"ethanol", "lpg"}, {"petrol", "diesel"}}},
	{"ford", "Mustang", [2][2]string{{"petrol", "petrol"}, {"petrol", "petrol"}}},
}

// DemoDescription is the demo set in words, as DemoSet.set says it.
const DemoDescription = "40 cars: Volkswagen Golf and Transporter, Toyota Corolla and Prius, BMW 3 Series and i3, Hyundai Tucson and Nexo, Ford Focus and Mustang; the two latest generations of each model, two variants per generation, covering all 10 fuel types."
