package gen

import (
	"fmt"
	"sort"
	"testing"
)

// priceRules are the editor's checks of the Dutch list prices.
var priceRules = []editorRule{
	{"exotic priced below its brand's entry price", func(f *variantFacts) string {
		e, ok := exoticPrices[f.brand]
		if !ok || !f.hasPrice {
			return ""
		}
		if floor := e.net * vatNL * priceLevel(f.year) * exoticFloorShare; float64(f.price) < floor {
			return fmt.Sprintf("€%d, floor €%.0f", f.price, floor)
		}
		return ""
	}},
	{"EV priced below €16,000", func(f *variantFacts) string {
		if f.fuel == "electric" && f.hasPrice && f.year >= 2015 && f.price < evPriceFloor {
			if _, micro := quadricycles[f.key()]; !micro {
				return fmt.Sprintf("€%d", f.price)
			}
		}
		return ""
	}},
}

// TestPriceInvariants checks the price floors on every variant of the full
// catalogue.
func TestPriceInvariants(t *testing.T) {
	checkEditorRules(t, priceRules)
}

func TestBPM(t *testing.T) {
	for _, c := range []struct {
		co2    float64
		diesel bool
		want   float64
	}{
		{0, false, 667},             // zero emission
		{79, false, 825},            // top of the first bracket
		{120, false, 2563 + 19*173}, // a petrol Golf
		{157, false, 14027},
		{200, false, 14027 + 43*568},
		{120, true, 2563 + 19*173 + 50*109.87},
	} {
		if got := bpm(c.co2, c.diesel); fmt.Sprintf("%.2f", got) != fmt.Sprintf("%.2f", c.want) {
			t.Errorf("bpm(%v, diesel %v) = %.2f, want %.2f", c.co2, c.diesel, got, c.want)
		}
	}
}

// priceAnchors are published Dutch list prices of a model's latest
// generation: the median of its variants' prices must fall in the band,
// and the band's lower edge must hold for every variant where floor is set.
var priceAnchors = []struct {
	brand, model string
	lo, hi       float64
	floor        bool
}{
	{"tesla", "Model 3", 40000, 60000, false},
	// The Golf 8.5's price list runs from the 1.5 TSI 116 (about EUR
	// 36,500) to the R (about EUR 72,000); its median version, a 2.0 TDI
	// or eTSI 150 DSG in a middle trim, lists near EUR 46,000.
	{"volkswagen", "Golf", 36000, 50000, false},
	{"dacia", "Sandero", 15000, 20000, false},
	{"rolls-royce", "Cullinan", 400000, 700000, true},
	{"bugatti", "Chiron", 2500000, 4000000, true},
	{"porsche", "911", 140000, 260000, false},
	{"ferrari", "Roma", 230000, 400000, true},
}

func TestPriceAnchors(t *testing.T) {
	s := full(t)
	for _, a := range priceAnchors {
		last := -1
		for i, g := range s.Generations {
			m := s.Models[g.Model]
			if s.Brands[m.Brand].Slug == a.brand && m.Name == a.model {
				last = i
			}
		}
		if last < 0 {
			t.Logf("%s %s: not in the catalogue", a.brand, a.model)
			continue
		}
		var prices []float64
		for i := range s.Variants {
			if v := &s.Variants[i]; int(v.Generation) == last && v.HasPrice && v.PriceEUR > 0 {
				prices = append(prices, float64(v.PriceEUR))
			}
		}
		sort.Float64s(prices)
		if len(prices) == 0 {
			t.Errorf("%s %s: no prices", a.brand, a.model)
			continue
		}
		med := median(prices)
		t.Logf("%s %s (%s): €%.0f-%.0f, median €%.0f over %d variants", a.brand, a.model, s.Generations[last].Name, prices[0], prices[len(prices)-1], med, len(prices))
		if med < a.lo || med > a.hi {
			t.Errorf("%s %s: median €%.0f, want €%.0f-%.0f", a.brand, a.model, med, a.lo, a.hi)
		}
		if a.floor && prices[0] < a.lo {
			t.Errorf("%s %s: from €%.0f, want at least €%.0f", a.brand, a.model, prices[0], a.lo)
		}
	}
}
