package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/x402"
)

// Tool names.
const (
	ToolSearch  = "search_catalogue"
	ToolFilter  = "filter_catalogue"
	ToolSpecs   = "get_specs_full"
	ToolCompare = "compare_full"
)

// annotations of every tool: reads of a closed catalogue, repeatable.
func annotations(title string) *sdk.ToolAnnotations {
	closed := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// addTools registers the four tools, their schemas inferred from the types
// of types.go and completed with what the catalogue knows (locales, fuels).
func addTools(s *sdk.Server, svc *httpd.Service) error {
	t := &tools{svc: svc}
	v := vocabularyOf(svc.Catalogue())
	pay := svc.Payments() != nil
	price := func(op httpd.Operation, what string) string {
		if svc.Payments() == nil {
			return "Without an API key, only the 40 cars of a demo set are reachable; an API key (Authorization: Bearer <key>) reaches the full catalogue: " + svc.UpgradeURL() + "."
		}
		return "Without an API key, " + what + " costs " + x402.USD(op.Price()) + " USD per call, paid with x402 (the tool result says how when payment is needed; nothing is charged for a failed call); an API key (Authorization: Bearer <key>) needs no payment: " + svc.UpgradeURL() + "."
	}
	ids := " Ids are opaque: use them exactly as search_catalogue or filter_catalogue return them."

	in, err := schemaFor[SearchInput]()
	if err != nil {
		return err
	}
	q := prop(in, "query")
	q.MinLength, q.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(200)
	v.common(in)
	out, err := outputSchema[SearchOutput](pay)
	if err != nil {
		return err
	}
	sdk.AddTool(s, &sdk.Tool{Name: ToolSearch, Title: "Search the vehicle catalogue", Annotations: annotations("Search the vehicle catalogue"), InputSchema: marshalled(in), OutputSchema: marshalled(out),
		Description: "Find car variants by name in the European vehicle catalogue (brand > model > generation > variant): brand, model and variant words, typos tolerated. " +
			"Returns one page of matches, best first, each with variant_id (pass it to get_specs_full or compare_full), brand and model slugs, display name and production years; " +
			"links.next, when present, is the cursor of the next page. Without an API key, matches come from the 40-car demo set only (substring match, no score). " +
			price(httpd.OpSearch, "searching the full catalogue")}, t.search)

	if in, err = schemaFor[FilterInput](); err != nil {
		return err
	}
	for _, name := range []string{"power_min", "power_max", "price_max", "year"} {
		notNull(prop(in, name))
	}
	prop(in, "fuel").Description = "Fuel type, one of: " + strings.Join(v.fuels, ", ") + "."
	prop(in, "body").Description = "Body type, one of: " + strings.Join(v.bodies, ", ") + " (or its English label, any case)."
	prop(in, "drive").Description = "Drivetrain, one of: " + strings.Join(v.drives, ", ") + "."
	v.common(in)
	if out, err = outputSchema[FilterOutput](pay); err != nil {
		return err
	}
	sdk.AddTool(s, &sdk.Tool{Name: ToolFilter, Title: "Filter the vehicle catalogue", Annotations: annotations("Filter the vehicle catalogue"), InputSchema: marshalled(in), OutputSchema: marshalled(out),
		Description: "List the car variants meeting every filter given: fuel, body type, drivetrain, power range (hp), highest list price (EUR), production year, battery-electric only. " +
			"Returns one page in a stable order, each variant with variant_id (pass it to get_specs_full or compare_full), display name and headline figures " +
			"(power, torque, top speed, 0-100 km/h, battery, list price); links.next, when present, is the cursor of the next page. Not part of the demo set. " +
			price(httpd.OpFilter, "a page")}, t.filter)

	if in, err = schemaFor[SpecsInput](); err != nil {
		return err
	}
	prop(in, "id").Description = "The variant_id of the car, from search_catalogue or filter_catalogue."
	v.units(in)
	v.common(in)
	if out, err = outputSchema[SpecsOutput](pay); err != nil {
		return err
	}
	sdk.AddTool(s, &sdk.Tool{Name: ToolSpecs, Title: "Get a car's full spec sheet", Annotations: annotations("Get a car's full spec sheet"), InputSchema: marshalled(in), OutputSchema: marshalled(out),
		Description: "Full spec sheet of one car variant: every recorded spec (dimensions, weights, engine, battery, charging, consumption, emissions, equipment) with its value, unit and label " +
			"in the requested language and units, plus the headline figures and production years." + ids + " Without an API key the 40 cars of the demo set are free. " +
			price(httpd.OpSpecs, "any other car")}, t.specs)

	if in, err = schemaFor[CompareInput](); err != nil {
		return err
	}
	list := prop(in, "ids")
	list.MinItems, list.MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(4)
	list.Description = "2 to 4 variant_id values from search_catalogue or filter_catalogue, in the order to compare them."
	v.units(in)
	v.common(in)
	if out, err = outputSchema[CompareOutput](pay); err != nil {
		return err
	}
	data := prop(body(out), "data")
	data.MinItems, data.MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(4)
	sdk.AddTool(s, &sdk.Tool{Name: ToolCompare, Title: "Compare 2 to 4 cars", Annotations: annotations("Compare 2 to 4 cars"), InputSchema: marshalled(in), OutputSchema: marshalled(out),
		Description: "Full spec sheets of 2 to 4 car variants side by side, in the order given, in the requested language and units." + ids +
			" Without an API key, comparing cars of the 40-car demo set is free. " + price(httpd.OpCompare, "comparing any other cars (2 to 4, one flat price)")}, t.compare)
	return nil
}

// marshalled is a schema as JSON. The SDK resolves a schema given so for
// validation but sends the bytes as they are: tools/list no longer marshals
// the large output schemas on every request (5.8 ms and 1 MB a call).
func marshalled(s *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("BUG: schema does not marshal: %v", err))
	}
	return b
}

// vocabulary is what the catalogue knows that the schemas list.
type vocabulary struct {
	locales, fuels, bodies, drives []string
}

func vocabularyOf(c *engine.Catalogue) vocabulary {
	v := vocabulary{locales: c.Locales}
	for _, e := range c.Enums {
		switch e.Key {
		case "fuel":
			v.fuels = e.Slugs
		case "body":
			v.bodies = e.Slugs
		case "drive":
			v.drives = e.Slugs
		}
	}
	return v
}

// common completes the locale, limit and cursor arguments a schema has.
func (v vocabulary) common(s *jsonschema.Schema) {
	prop(s, "locale").Description = "Language of labels and enumerated values, one of: " + strings.Join(v.locales, ", ") + ". Default en; any other value falls back to en."
	if l, ok := s.Properties["limit"]; ok {
		l.Minimum = jsonschema.Ptr(1.0)
	}
}

func (vocabulary) units(s *jsonschema.Schema) {
	prop(s, "units").Enum = []any{"metric", "imperial"}
}

// instructions is the server's introduction, sent in initialize.
func instructions(svc *httpd.Service) string {
	s := "A read-only catalogue of European cars (brand > model > generation > variant) with full spec sheets in 20 languages. " +
		"Find cars with search_catalogue (by name) or filter_catalogue (by fuel, body, power, price, year), then read get_specs_full or compare_full with the variant_id values they return. " +
		"With an API key (Authorization: Bearer <key>) your plan's catalogue is reachable. Without one, a demo set of 40 cars is free"
	if svc.Payments() != nil {
		s += ", and the full catalogue is paid per call with x402: a tool result that asks for payment carries the offer; repeat the call with the signed payment in params._meta[\"x402/payment\"]"
	}
	return s + ". Keys: " + svc.UpgradeURL() + "."
}
