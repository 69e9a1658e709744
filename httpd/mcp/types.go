package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/vspec/catalogue/httpd/x402"
)

// This file holds the typed results of the four tools (their arguments are
// their operations' parameter tables, see tools.go). The output schemas in
// tools/list are inferred from these types (see schema.go); the results
// themselves are the REST bodies, passed through unchanged; the tests
// validate them against the output schemas (see call.go).

// ID is a variant or generation id: the opaque token ("v_…", "g_…") a
// caller without a key or with a demo key sees, or the raw integer id a key
// of the apify plan sees.
type ID string

// UnmarshalJSON takes a string or an integer.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ID(s)
		return nil
	}
	n, err := strconv.ParseUint(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("an id is a string such as \"v_0a1b2c3d\" or a whole number, not %.40s", b)
	}
	*id = ID(strconv.FormatUint(n, 10))
	return nil
}

// Value is a spec value: a number, a boolean, a localized label or a text.
type Value any

// Meta is the meta object of every REST success body.
type Meta struct {
	LastSyncedAt string `json:"last_synced_at" jsonschema:"When the data was last synced, RFC 3339."`
	Locale       string `json:"locale" jsonschema:"The locale applied: en when the one asked for is not published."`
	Units        string `json:"units" jsonschema:"metric or imperial."`
	Note         string `json:"note,omitempty" jsonschema:"Only on answers from the demo set (no key, or a demo key): it reaches 40 cars only, and where the full catalogue is."`
}

// Links is the links object of a page.
type Links struct {
	Next string `json:"next,omitempty" jsonschema:"Cursor of the next page: pass it as cursor to get that page. Absent on the last page."`
}

// SearchResult is one search hit.
type SearchResult struct {
	VariantID    ID `json:"variant_id"`
	GenerationID ID `json:"generation_id"`
	Names
	Years
	Score *float64 `json:"score" jsonschema:"Match score from 0 to 1; null in the demo set, which is not ranked."`
}

// Names holds the slugs and the display name a search hit and a spec sheet
// share.
type Names struct {
	BrandSlug   string `json:"brand_slug"`
	ModelSlug   string `json:"model_slug"`
	DisplayName string `json:"display_name"`
}

// Years holds the production years of a variant's generation, which a
// search hit and a spec sheet share.
type Years struct {
	YearFrom *int `json:"year_from"`
	YearTo   *int `json:"year_to" jsonschema:"null while the generation is in production."`
}

// Variant is the summary of a variant in a list.
type Variant struct {
	VariantID    ID      `json:"variant_id"`
	GenerationID ID      `json:"generation_id"`
	DisplayName  string  `json:"display_name"`
	FuelSlug     *string `json:"fuel_slug"`
	BodyTypeEN   *string `json:"body_type_en" jsonschema:"English body-type label."`
	Headline
}

// Headline holds the headline figures a summary and a spec sheet share.
type Headline struct {
	PowerHP     *int     `json:"power_hp"`
	TorqueNM    *int     `json:"torque_nm"`
	TopSpeedKMH *int     `json:"top_speed_kmh"`
	Accel0100S  *float64 `json:"accel_0_100_s" jsonschema:"0-100 km/h, seconds."`
	BatteryKWh  *float64 `json:"battery_kwh"`
	PriceNewEUR *int     `json:"price_new_eur" jsonschema:"Dutch new-car list price; null when unknown (never 0)."`
}

// SpecValue is one value of a spec sheet.
type SpecValue struct {
	Label      string   `json:"label" jsonschema:"The spec's name in the requested locale."`
	V          Value    `json:"v"`
	U          *string  `json:"u" jsonschema:"Unit, e.g. kW or mph; null when the value has none."`
	Confidence *float64 `json:"confidence" jsonschema:"Below 1 when the value is estimated; null when certain."`
}

// VariantSpecs is the full spec sheet of a variant.
type VariantSpecs struct {
	VariantID ID `json:"variant_id"`
	Names
	Locale string `json:"locale"`
	Years
	Headline
	Specs map[string]SpecValue `json:"specs" jsonschema:"Spec key (e.g. length_mm, fuel_consumption_combined) -> value, in the requested locale and units."`
}

// SearchOutput is the result of search_catalogue: the body of GET
// /v1/search.
type SearchOutput struct {
	Data  []SearchResult `json:"data" jsonschema:"The matches, best first."`
	Links Links          `json:"links"`
	Meta  Meta           `json:"meta"`
}

// FilterOutput is the result of filter_catalogue: the body of GET
// /v1/variants.
type FilterOutput struct {
	Data  []Variant `json:"data" jsonschema:"The variants meeting every filter, in a stable order."`
	Links Links     `json:"links"`
	Meta  Meta      `json:"meta"`
}

// SpecsOutput is the result of get_specs_full: the body of GET
// /v1/variants/{id}/specs.
type SpecsOutput struct {
	Data VariantSpecs `json:"data"`
	Meta Meta         `json:"meta"`
}

// CompareOutput is the result of compare_full: the body of GET
// /v1/compare.
type CompareOutput struct {
	Data []VariantSpecs `json:"data" jsonschema:"The cars, in the order asked."`
	Meta Meta           `json:"meta"`
}

// PaymentOutput is the structuredContent of a tool error asking a caller
// without a key to pay (x402): the offer, and after a payment that could
// not be settled, the failed settlement. It is a second branch of every
// output schema when payments are on, since clients validate
// structuredContent even on errors.
type PaymentOutput struct {
	x402.PaymentRequired
	PaymentResponse *x402.SettlementResponse `json:"x402/payment-response,omitempty"`
}
