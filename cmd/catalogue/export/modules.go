package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vspec/catalogue/engine"
)

// Module is one licensed-export module of the contract's price table.
type Module struct {
	Name  string // stable name, as specs.tsv writes it
	Title string // the contract's wording
	Price int    // EUR, whole catalogue, English, internal use
}

// Module names. Every spec type names exactly one of the data modules; the
// images module is the image URLs.
const (
	Catalogue            = "catalogue"
	EnginePerformance    = "engine_performance"
	DimensionsWeights    = "dimensions_weights"
	ConsumptionEmissions = "consumption_emissions"
	EVHybrid             = "ev_hybrid"
	Equipment            = "equipment"
	ServiceCosts         = "service_costs"
	ListPrices           = "list_prices"
	ScoresCosts          = "scores_costs"
	Images               = "images"
)

// Modules lists the modules in the contract's order, with their prices.
var Modules = []Module{
	{Catalogue, "Catalogue (always included)", 490},
	{EnginePerformance, "Engine and performance", 390},
	{DimensionsWeights, "Dimensions and weights", 390},
	{ConsumptionEmissions, "Consumption and emissions", 290},
	{EVHybrid, "EV and hybrid", 290},
	{Equipment, "Equipment", 590},
	{ServiceCosts, "Service, warranty and costs", 190},
	{ListPrices, "List prices", 390},
	{ScoresCosts, "Scores and running costs", 490},
	{Images, "Images", 1490},
}

// Bundles of the contract's price table.
var (
	BundleData      = Bundle{"all_data", "All data modules (one-time)", 2900, false}
	BundleAllImages = Bundle{"all_data_images", "All data modules plus images (one-time)", 3900, true}
)

// Bundle is a one-time price for all data modules, with or without images.
type Bundle struct {
	Name   string
	Title  string
	Price  int
	Images bool
}

// ModuleByName returns the module called name.
func ModuleByName(name string) (Module, bool) {
	for _, m := range Modules {
		if m.Name == name {
			return m, true
		}
	}
	return Module{}, false
}

func moduleOrder(name string) int {
	for i, m := range Modules {
		if m.Name == name {
			return i
		}
	}
	return len(Modules)
}

// DataModules returns the names of the nine data modules (catalogue first),
// without images.
func DataModules() []string {
	out := make([]string, 0, len(Modules)-1)
	for _, m := range Modules {
		if m.Name != Images {
			out = append(out, m.Name)
		}
	}
	return out
}

// ParseModules parses a comma-separated module list as the commands take
// it: module names, "all" for every data module, "everything" for every
// data module and images. The result is in the contract's order, without
// repeats, and always starts with the catalogue module.
func ParseModules(list string) ([]string, error) {
	seen := map[string]bool{Catalogue: true}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "":
		case "all":
			for _, m := range DataModules() {
				seen[m] = true
			}
		case "everything":
			for _, m := range Modules {
				seen[m.Name] = true
			}
		default:
			if _, ok := ModuleByName(f); !ok {
				return nil, fmt.Errorf("unknown module %q (known: %s, all, everything)", f, strings.Join(moduleNames(), ", "))
			}
			seen[f] = true
		}
	}
	out := make([]string, 0, len(seen))
	for _, m := range Modules {
		if seen[m.Name] {
			out = append(out, m.Name)
		}
	}
	return out, nil
}

func moduleNames() []string {
	out := make([]string, len(Modules))
	for i, m := range Modules {
		out[i] = m.Name
	}
	return out
}

// ParseLanguages parses a comma-separated list of locale codes, or "all",
// against the published locales. The result starts with "en" (always
// included) and follows the order of published.
func ParseLanguages(list string, published []string) ([]string, error) {
	want := map[string]bool{"en": true}
	for _, f := range strings.Split(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch {
		case f == "":
		case f == "all":
			for _, l := range published {
				want[l] = true
			}
		case slices.Contains(published, f):
			want[f] = true
		default:
			return nil, fmt.Errorf("unknown language %q (published: %s, or all)", f, strings.Join(published, " "))
		}
	}
	out := []string{"en"}
	for _, l := range published {
		if l != "en" && want[l] {
			out = append(out, l)
		}
	}
	return out, nil
}

// CheckSpecModules reports an error unless every spec type of c belongs to
// exactly one known data module (a spec names one module; that name must
// be a data module of the price table).
func CheckSpecModules(c *engine.Catalogue) error {
	for _, s := range c.Specs {
		if s.Module == Images || moduleOrder(s.Module) == len(Modules) {
			return fmt.Errorf("spec %q belongs to unknown module %q", s.Key, s.Module)
		}
	}
	return nil
}
