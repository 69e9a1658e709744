package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestQuote covers every rule of the contract's price table and licence
// terms, with the edges of each: see PriceQuote for the reading tested.
func TestQuote(t *testing.T) {
	type want struct {
		modulesTotal, data int
		bundle             string
		subset             int
		langs, langCount   int
		allLangs           bool
		export, licence    int
		monthly, invoice   int
		perYear, firstYear int
		minimum            bool
	}
	data8 := []string{"engine_performance", "dimensions_weights", "consumption_emissions", "ev_hybrid", "equipment", "service_costs", "list_prices", "scores_costs"}
	cases := []struct {
		name string
		req  QuoteRequest
		want want
	}{
		// Module prices and the catalogue always included.
		{"catalogue only", QuoteRequest{},
			want{modulesTotal: 490, data: 490, subset: 490, export: 490, licence: 490, firstYear: 490}},
		{"catalogue named explicitly", QuoteRequest{Modules: []string{"catalogue"}},
			want{modulesTotal: 490, data: 490, subset: 490, export: 490, licence: 490, firstYear: 490}},
		{"each module once, repeats ignored", QuoteRequest{Modules: []string{"equipment", "equipment", "images"}},
			want{modulesTotal: 490 + 590 + 1490, data: 2570, subset: 2570, export: 2570, licence: 2570, firstYear: 2570}},
		{"every module price", QuoteRequest{Modules: []string{"service_costs", "list_prices", "ev_hybrid"}},
			want{modulesTotal: 490 + 190 + 390 + 290, data: 1360, subset: 1360, export: 1360, licence: 1360, firstYear: 1360}},
		// Bundles: proposed only when the modules add up to more.
		{"data modules just below the bundle", QuoteRequest{Modules: []string{"equipment", "scores_costs", "engine_performance", "dimensions_weights", "consumption_emissions", "service_costs"}},
			want{modulesTotal: 2830, data: 2830, subset: 2830, export: 2830, licence: 2830, firstYear: 2830}},
		{"data modules just above the bundle", QuoteRequest{Modules: []string{"scores_costs", "engine_performance", "dimensions_weights", "list_prices", "consumption_emissions", "ev_hybrid", "service_costs"}},
			want{modulesTotal: 2920, data: 2900, bundle: BundleData.Title, subset: 2900, export: 2900, licence: 2900, firstYear: 2900}},
		{"all data modules", QuoteRequest{Modules: data8},
			want{modulesTotal: 3510, data: 2900, bundle: BundleData.Title, subset: 2900, export: 2900, licence: 2900, firstYear: 2900}},
		{"all keyword", QuoteRequest{Modules: []string{"all"}},
			want{modulesTotal: 3510, data: 2900, bundle: BundleData.Title, subset: 2900, export: 2900, licence: 2900, firstYear: 2900}},
		{"images with modules just below the images bundle", QuoteRequest{Modules: []string{"images", "equipment", "scores_costs", "engine_performance", "dimensions_weights"}},
			want{modulesTotal: 3840, data: 3840, subset: 3840, export: 3840, licence: 3840, firstYear: 3840}},
		{"images with modules just above the images bundle", QuoteRequest{Modules: []string{"images", "engine_performance", "dimensions_weights", "list_prices", "consumption_emissions", "ev_hybrid", "service_costs"}},
			want{modulesTotal: 3920, data: 3900, bundle: BundleAllImages.Title, subset: 3900, export: 3900, licence: 3900, firstYear: 3900}},
		{"everything", QuoteRequest{Modules: []string{"everything"}},
			want{modulesTotal: 5000, data: 3900, bundle: BundleAllImages.Title, subset: 3900, export: 3900, licence: 3900, firstYear: 3900}},
		{"images alone never gets the data bundle", QuoteRequest{Modules: []string{"images"}},
			want{modulesTotal: 1980, data: 1980, subset: 1980, export: 1980, licence: 1980, firstYear: 1980}},
		// Subset: share of variants, minimum 30 %, on the data price only.
		{"half the variants", QuoteRequest{Modules: []string{"equipment"}, Share: 0.5},
			want{modulesTotal: 1080, data: 1080, subset: 540, export: 540, licence: 540, firstYear: 540}},
		{"share rounds half up", QuoteRequest{Share: 0.45},
			want{modulesTotal: 490, data: 490, subset: 221, export: 221, licence: 221, firstYear: 221}},
		{"share exactly 30 %", QuoteRequest{Modules: []string{"equipment"}, Share: 0.3},
			want{modulesTotal: 1080, data: 1080, subset: 324, export: 324, licence: 324, firstYear: 324}},
		{"share just below 30 % costs 30 %", QuoteRequest{Modules: []string{"equipment"}, Share: 0.2999},
			want{modulesTotal: 1080, data: 1080, subset: 324, export: 324, licence: 324, firstYear: 324}},
		{"share just above 30 %", QuoteRequest{Modules: []string{"equipment"}, Share: 0.31},
			want{modulesTotal: 1080, data: 1080, subset: 335, export: 335, licence: 335, firstYear: 335}},
		{"a tiny subset costs 30 %", QuoteRequest{Modules: []string{"equipment"}, Share: 0.000001},
			want{modulesTotal: 1080, data: 1080, subset: 324, export: 324, licence: 324, firstYear: 324}},
		{"share 1 is the whole catalogue", QuoteRequest{Modules: []string{"equipment"}, Share: 1},
			want{modulesTotal: 1080, data: 1080, subset: 1080, export: 1080, licence: 1080, firstYear: 1080}},
		{"subset of a bundle", QuoteRequest{Modules: []string{"all"}, Share: 0.5},
			want{modulesTotal: 3510, data: 2900, bundle: BundleData.Title, subset: 1450, export: 1450, licence: 1450, firstYear: 1450}},
		{"languages do not shrink with the subset", QuoteRequest{Share: 0.5, Languages: []string{"de"}},
			want{modulesTotal: 490, data: 490, subset: 245, langs: 190, langCount: 1, export: 435, licence: 435, firstYear: 435}},
		// Languages: English included, 190 each, 990 for all 19.
		{"English is free", QuoteRequest{Languages: []string{"en"}},
			want{modulesTotal: 490, data: 490, subset: 490, export: 490, licence: 490, firstYear: 490}},
		{"one language", QuoteRequest{Languages: []string{"DE", "de", "en"}},
			want{modulesTotal: 490, data: 490, subset: 490, langs: 190, langCount: 1, export: 680, licence: 680, firstYear: 680}},
		{"five languages at 190 each", QuoteRequest{Languages: []string{"de", "fr", "es", "it", "pl"}},
			want{modulesTotal: 490, data: 490, subset: 490, langs: 950, langCount: 5, export: 1440, licence: 1440, firstYear: 1440}},
		{"six languages: all 19 are cheaper", QuoteRequest{Languages: []string{"de", "fr", "es", "it", "pl", "cs"}},
			want{modulesTotal: 490, data: 490, subset: 490, langs: 990, langCount: 19, allLangs: true, export: 1480, licence: 1480, firstYear: 1480}},
		{"all languages", QuoteRequest{Languages: []string{"all"}},
			want{modulesTotal: 490, data: 490, subset: 490, langs: 990, langCount: 19, allLangs: true, export: 1480, licence: 1480, firstYear: 1480}},
		// Public display: twice the export price, languages included.
		{"public display", QuoteRequest{Modules: []string{"equipment"}, Languages: []string{"de"}, Display: true},
			want{modulesTotal: 1080, data: 1080, subset: 1080, langs: 190, langCount: 1, export: 1270, licence: 2540, firstYear: 2540}},
		{"public display of a subset", QuoteRequest{Modules: []string{"equipment"}, Share: 0.1, Display: true},
			want{modulesTotal: 1080, data: 1080, subset: 324, export: 324, licence: 648, firstYear: 648}},
		// Update subscription: 4 % a month, minimum 49, 10 months a year or 3 a quarter.
		{"subscription at the minimum, annual", QuoteRequest{Billing: BillingAnnual},
			want{modulesTotal: 490, data: 490, subset: 490, export: 490, licence: 490, monthly: 49, minimum: true, invoice: 490, perYear: 490, firstYear: 980}},
		{"subscription at the minimum, quarterly", QuoteRequest{Billing: BillingQuarterly},
			want{modulesTotal: 490, data: 490, subset: 490, export: 490, licence: 490, monthly: 49, minimum: true, invoice: 147, perYear: 588, firstYear: 1078}},
		{"4 % of 730 is 29: minimum", QuoteRequest{Modules: []string{"equipment"}, Languages: []string{"de"}, Share: 0.5, Billing: BillingAnnual},
			// 540 + 190 = 730 -> 29.2
			want{modulesTotal: 1080, data: 1080, subset: 540, langs: 190, langCount: 1, export: 730, licence: 730, monthly: 49, minimum: true, invoice: 490, perYear: 490, firstYear: 1220}},
		{"4 % just above the minimum", QuoteRequest{Modules: []string{"engine_performance", "ev_hybrid"}, Languages: []string{"de"}, Billing: BillingAnnual},
			// 490 + 390 + 290 + 190 = 1360 -> 54.4
			want{modulesTotal: 1170, data: 1170, subset: 1170, langs: 190, langCount: 1, export: 1360, licence: 1360, monthly: 54, invoice: 540, perYear: 540, firstYear: 1900}},
		{"4 % of 1,216 rounds to 49: no minimum needed", QuoteRequest{Modules: []string{"equipment"}, Share: 0.95, Languages: []string{"de"}, Billing: BillingAnnual},
			// 1080 x 0.95 = 1026, + 190 = 1216 -> 48.64 -> 49
			want{modulesTotal: 1080, data: 1080, subset: 1026, langs: 190, langCount: 1, export: 1216, licence: 1216, monthly: 49, invoice: 490, perYear: 490, firstYear: 1706}},
		{"4 % of 1,212 rounds to 48: minimum", QuoteRequest{Modules: []string{"equipment"}, Share: 0.9463, Languages: []string{"de"}, Billing: BillingAnnual},
			// 1080 x 0.9463 = 1022.004 -> 1022, + 190 = 1212 -> 48.48 -> 48
			want{modulesTotal: 1080, data: 1080, subset: 1022, langs: 190, langCount: 1, export: 1212, licence: 1212, monthly: 49, minimum: true, invoice: 490, perYear: 490, firstYear: 1702}},
		{"4 % of 1,162 is 46: minimum, quarterly", QuoteRequest{Modules: []string{"equipment"}, Share: 0.9, Languages: []string{"de"}, Billing: BillingQuarterly},
			// 1080 x 0.9 = 972, + 190 = 1162 -> 46.48 -> minimum
			want{modulesTotal: 1080, data: 1080, subset: 972, langs: 190, langCount: 1, export: 1162, licence: 1162, monthly: 49, minimum: true, invoice: 147, perYear: 588, firstYear: 1750}},
		{"4 % rounds half up", QuoteRequest{Modules: []string{"everything"}, Languages: []string{"de"}, Billing: BillingAnnual},
			// 3900 + 190 = 4090 -> 163.6 -> 164
			want{modulesTotal: 5000, data: 3900, bundle: BundleAllImages.Title, subset: 3900, langs: 190, langCount: 1, export: 4090, licence: 4090, monthly: 164, invoice: 1640, perYear: 1640, firstYear: 5730}},
		{"subscription on the export price, not the display licence", QuoteRequest{Modules: []string{"all"}, Display: true, Billing: BillingQuarterly},
			want{modulesTotal: 3510, data: 2900, bundle: BundleData.Title, subset: 2900, export: 2900, licence: 5800, monthly: 116, invoice: 348, perYear: 1392, firstYear: 7192}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := PriceQuote(c.req)
			if err != nil {
				t.Fatal(err)
			}
			w := c.want
			got := want{modulesTotal: q.ModulesTotal, data: q.DataPrice, bundle: q.Bundle, subset: q.SubsetPrice, langs: q.LanguagesPrice,
				langCount: len(q.Languages), allLangs: q.LanguagesAll, export: q.ExportPrice, licence: q.LicencePrice, firstYear: q.FirstYearTotal}
			if s := q.Subscription; s != nil {
				got.monthly, got.invoice, got.perYear, got.minimum = s.Monthly, s.Invoice, s.PerYear, s.MinimumApplied
			}
			if got != w {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if q.Bundle != "" && q.BundleSaving != q.ModulesTotal-q.DataPrice {
				t.Errorf("bundle saving %d", q.BundleSaving)
			}
			var table bytes.Buffer
			if err := q.WriteTable(&table); err != nil || !strings.Contains(table.String(), Euros(q.LicencePrice)) {
				t.Errorf("table: %v\n%s", err, table.String())
			}
			if _, err := json.Marshal(q); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestQuoteDelivered(t *testing.T) {
	q, _ := PriceQuote(QuoteRequest{Modules: []string{"all"}})
	if len(q.Delivered) != 9 || q.Delivered[0] != Catalogue {
		t.Errorf("a data bundle delivers %v", q.Delivered)
	}
	q, _ = PriceQuote(QuoteRequest{Modules: []string{"images", "engine_performance", "dimensions_weights", "list_prices", "consumption_emissions", "ev_hybrid", "service_costs"}})
	if len(q.Delivered) != 10 {
		t.Errorf("the images bundle delivers %v", q.Delivered)
	}
	q, _ = PriceQuote(QuoteRequest{Modules: []string{"equipment"}})
	if len(q.Delivered) != 2 {
		t.Errorf("modules deliver %v", q.Delivered)
	}
	q, _ = PriceQuote(QuoteRequest{Languages: []string{"de", "fr", "es", "it", "pl", "cs"}})
	if len(q.Languages) != 19 || q.LanguageSaving != 6*190-990 {
		t.Errorf("six languages: %v, saving %d", q.Languages, q.LanguageSaving)
	}
}

func TestQuoteErrors(t *testing.T) {
	for _, c := range []struct {
		req  QuoteRequest
		want string
	}{
		{QuoteRequest{Modules: []string{"gossip"}}, "unknown module"},
		{QuoteRequest{Languages: []string{"nl"}}, "unknown language"},
		{QuoteRequest{Share: 1.01}, "out of range"},
		{QuoteRequest{Share: -0.5}, "out of range"},
		{QuoteRequest{Share: 1e-9}, "empty"},
		{QuoteRequest{Billing: "monthly"}, "unknown billing"},
	} {
		if _, err := PriceQuote(c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.req, err, c.want)
		}
	}
}

func TestEuros(t *testing.T) {
	for v, want := range map[int]string{0: "0", 49: "49", 990: "990", 1490: "1,490", 3900: "3,900", 1234567: "1,234,567", -2900: "-2,900"} {
		if got := Euros(v); got != want {
			t.Errorf("Euros(%d) = %q, want %q", v, got, want)
		}
	}
}
