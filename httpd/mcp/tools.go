package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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

// addTools registers the four tools: their input schemas are their
// operations' parameter tables (httpd.Service.ToolInputSchema), their
// output schemas inferred from the types of types.go.
func addTools(s *sdk.Server, svc *httpd.Service) error {
	t := &tools{svc: svc}
	pay := svc.Payments() != nil
	price := func(op httpd.Operation, what string) string {
		if !pay {
			return "Without an API key, only the 40 cars of a demo set are reachable; an API key (Authorization: Bearer <key>) reaches the full catalogue: " + svc.UpgradeURL() + "."
		}
		return "Without an API key, " + what + " costs " + x402.USD(op.Price()) + " USD per call, paid with x402 (the tool result says how when payment is needed; nothing is charged for a failed call); an API key (Authorization: Bearer <key>) needs no payment: " + svc.UpgradeURL() + "."
	}
	ids := " Ids are opaque: use them exactly as search_catalogue or filter_catalogue return them."
	compareOut := func(pay bool) (*jsonschema.Schema, error) {
		out, err := outputSchema[CompareOutput](pay)
		if err == nil {
			data := prop(body(out), "data")
			data.MinItems, data.MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(4)
		}
		return out, err
	}
	for _, tool := range []struct {
		name, title string
		op          httpd.Operation
		out         func(payments bool) (*jsonschema.Schema, error)
		description string
	}{
		{ToolSearch, "Search the vehicle catalogue", httpd.OpSearch, outputSchema[SearchOutput],
			"Find car variants by name in the European vehicle catalogue (brand > model > generation > variant): brand, model and variant words, typos tolerated. " +
				"Returns one page of matches, best first, each with variant_id (pass it to get_specs_full or compare_full), brand and model slugs, display name and production years; " +
				"links.next, when present, is the cursor of the next page. Without an API key, matches come from the 40-car demo set only (substring match, no score). " +
				price(httpd.OpSearch, "searching the full catalogue")},
		{ToolFilter, "Filter the vehicle catalogue", httpd.OpFilter, outputSchema[FilterOutput],
			"List the car variants meeting every filter given: fuel, body type, drivetrain, power range (hp), highest list price (EUR), production year, battery-electric only. " +
				"Returns one page in a stable order, each variant with variant_id (pass it to get_specs_full or compare_full), display name and headline figures " +
				"(power, torque, top speed, 0-100 km/h, battery, list price); links.next, when present, is the cursor of the next page. Not part of the demo set. " +
				price(httpd.OpFilter, "a page")},
		{ToolSpecs, "Get a car's full spec sheet", httpd.OpSpecs, outputSchema[SpecsOutput],
			"Full spec sheet of one car variant: every recorded spec (dimensions, weights, engine, battery, charging, consumption, emissions, equipment) with its value, unit and label " +
				"in the requested language and units, plus the headline figures and production years." + ids + " Without an API key the 40 cars of the demo set are free. " +
				price(httpd.OpSpecs, "any other car")},
		{ToolCompare, "Compare 2 to 4 cars", httpd.OpCompare, compareOut,
			"Full spec sheets of 2 to 4 car variants side by side, in the order given, in the requested language and units." + ids +
				" Without an API key, comparing cars of the 40-car demo set is free. " + price(httpd.OpCompare, "comparing any other cars (2 to 4, one flat price)")},
	} {
		in, err := json.Marshal(svc.ToolInputSchema(tool.op))
		if err != nil {
			return err
		}
		out, err := tool.out(pay)
		if err != nil {
			return err
		}
		sdk.AddTool(s, &sdk.Tool{Name: tool.name, Title: tool.title, Annotations: annotations(tool.title), InputSchema: json.RawMessage(in), OutputSchema: marshalled(out),
			Description: tool.description}, t.handler(tool.name, tool.op))
	}
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
