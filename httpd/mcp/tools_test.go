package mcp_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/mcp"
)

func TestToolsList(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint != nil && *a.DestructiveHint {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
		if len(tool.Description) < 200 || !strings.Contains(tool.Description, "API key") {
			t.Errorf("%s: description too thin for a model: %q", tool.Name, tool.Description)
		}
		in := schemaMap(t, tool.InputSchema)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: input schema %v", tool.Name, in)
		}
		out := schemaMap(t, tool.OutputSchema)
		if out["type"] != "object" || len(out["anyOf"].([]any)) != 2 {
			t.Errorf("%s: output schema is not the body or a payment offer: %v", tool.Name, out)
		}
		for _, s := range []map[string]any{in, out} {
			if b, _ := json.Marshal(s); strings.Contains(string(b), `"type":[`) {
				t.Errorf("%s: a list of types (not portable) is left in %s", tool.Name, b)
			}
		}
	}
	if want := []string{mcp.ToolCompare, mcp.ToolFilter, mcp.ToolSpecs, mcp.ToolSearch}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	byName := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	props := func(name string) map[string]any {
		return schemaMap(t, byName[name].InputSchema)["properties"].(map[string]any)
	}
	required := func(name string) []any {
		r, _ := schemaMap(t, byName[name].InputSchema)["required"].([]any)
		return r
	}
	if r := required(mcp.ToolSearch); len(r) != 1 || r[0] != "query" {
		t.Errorf("search requires %v", r)
	}
	if r := required(mcp.ToolFilter); len(r) != 0 {
		t.Errorf("filter requires %v", r)
	}
	for _, f := range []string{"fuel", "body", "drive", "power_min", "power_max", "price_max", "year", "ev", "locale", "limit", "cursor"} {
		if _, ok := props(mcp.ToolFilter)[f]; !ok {
			t.Errorf("filter_catalogue lacks %s", f)
		}
	}
	if p := props(mcp.ToolFilter)["power_min"].(map[string]any); p["type"] != "integer" {
		t.Errorf("power_min %v", p)
	}
	if d := props(mcp.ToolFilter)["fuel"].(map[string]any)["description"].(string); !strings.Contains(d, "electric") {
		t.Errorf("fuel description does not list the fuels: %q", d)
	}
	ids := props(mcp.ToolCompare)["ids"].(map[string]any)
	if ids["type"] != "array" || ids["minItems"] != 2.0 || ids["maxItems"] != 4.0 {
		t.Errorf("compare ids %v", ids)
	}
	if u := props(mcp.ToolSpecs)["units"].(map[string]any); len(u["enum"].([]any)) != 2 {
		t.Errorf("units %v", u)
	}
	if r := required(mcp.ToolSpecs); len(r) != 1 || r[0] != "id" {
		t.Errorf("specs requires %v", r)
	}
}

func schemaMap(t testing.TB, s any) map[string]any {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAnonymous: without a key the demo set answers, with a note; what it
// does not reach is offered for payment.
func TestAnonymous(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("")
	car, other, out := e.cat.Demo[3], e.cat.Demo[7], e.outside()
	demo := func(op httpd.Operation, args map[string]any) []byte {
		raw := map[string]json.RawMessage{}
		for k, v := range args {
			raw[k], _ = json.Marshal(v)
		}
		body, err := e.svc.Call(op, raw, httpd.Caller{})
		if err != nil {
			t.Fatalf("demo answer %v", err)
		}
		return body
	}

	res := call(t, cs, mcp.ToolSearch, map[string]any{"query": e.modelName(car), "limit": 5}, nil)
	sameJSON(t, "search", ok(t, res), demo(httpd.OpSearch, map[string]any{"query": e.modelName(car), "limit": 5}))
	if !strings.Contains(text(res), "demo set") || !strings.Contains(text(res), "x402/payment") || !strings.Contains(text(res), upgradeURL) {
		t.Errorf("no note on the full catalogue: %s", text(res))
	}
	var found SearchBody
	json.Unmarshal(ok(t, res), &found)
	if len(found.Data) == 0 || found.Data[0].Score != nil {
		t.Errorf("demo search: %+v", found)
	}

	res = call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(car), "locale": "de", "units": "imperial"}, nil)
	sameJSON(t, "specs", ok(t, res), demo(httpd.OpSpecs, map[string]any{"id": e.token(car), "locale": "de", "units": "imperial"}))

	res = call(t, cs, mcp.ToolCompare, map[string]any{"ids": []string{e.token(car), e.token(other)}}, nil)
	sameJSON(t, "compare", ok(t, res), demo(httpd.OpCompare, map[string]any{"ids": []string{e.token(car), e.token(other)}}))

	offer := paymentRequired(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(out)}, nil), mcp.ToolSpecs, "50000")
	if offer.Error != "" {
		t.Errorf("a first offer gives a refusal reason: %q", offer.Error)
	}
	paymentRequired(t, call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "electric"}, nil), mcp.ToolFilter, "5000")
	paymentRequired(t, call(t, cs, mcp.ToolCompare, map[string]any{"ids": []string{e.token(car), e.token(out)}}, nil), mcp.ToolCompare, "100000")
	// A REST 400 is a tool error naming the problem, with the note.
	failed(t, call(t, cs, mcp.ToolSearch, map[string]any{"query": "   "}, nil), `"query" is required`, "demo set")
}

// TestAnonymousWithoutPayments: with payments off, what the demo set does
// not reach is the REST 403, with the way to a key.
func TestAnonymousWithoutPayments(t *testing.T) {
	e := newEnv(t, func(c *config) { c.noPayments = true })
	cs := e.connect("")
	res := call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(e.outside())}, nil)
	failed(t, res, "Forbidden (403)", "outside the demo set", upgradeURL)
	if res.StructuredContent != nil || strings.Contains(text(res), "x402") {
		t.Errorf("payments are off but the result offers one: %s", text(res))
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if strings.Contains(tool.Description, "x402") || schemaMap(t, tool.OutputSchema)["anyOf"] != nil {
			t.Errorf("%s speaks of payments that are off", tool.Name)
		}
	}
	ok(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(e.cat.Demo[0])}, nil))
}

// TestApifyKey: an apify key reaches the full catalogue with raw ids, and
// every tool answers exactly what its REST twin does.
func TestApifyKey(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(e.apify)
	car, out := e.cat.Demo[3], e.outside()
	rest := func(path string) []byte {
		status, body := e.restGet(path, e.apify)
		if status != 200 {
			t.Fatalf("REST %s: %d %s", path, status, body)
		}
		return body
	}
	name := e.modelName(out)
	sameJSON(t, "search", ok(t, call(t, cs, mcp.ToolSearch, map[string]any{"query": name, "limit": 3, "locale": "fr"}, nil)),
		rest("/v1/search?q="+url.QueryEscape(name)+"&limit=3&locale=fr"))
	// The ranked search (issue 17), alias and transliteration included, is
	// the same operation: the same rows in the same order.
	for _, q := range []string{"vw golf", "Тойота Королла"} {
		got := ok(t, call(t, cs, mcp.ToolSearch, map[string]any{"query": q, "limit": 5}, nil))
		sameJSON(t, "search "+q, got, rest("/v1/search?q="+url.QueryEscape(q)+"&limit=5"))
		var page struct {
			Data []struct {
				BrandSlug string `json:"brand_slug"`
			} `json:"data"`
		}
		json.Unmarshal(got, &page)
		if len(page.Data) == 0 || page.Data[0].BrandSlug != map[string]string{"vw golf": "volkswagen", "Тойота Королла": "toyota"}[q] {
			t.Errorf("search_catalogue %q: %+v", q, page.Data)
		}
	}

	res := call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "electric", "power_min": 100, "limit": 2}, nil)
	sameJSON(t, "filter", ok(t, res), rest("/v1/variants?fuel=electric&power_min=100&limit=2"))
	var page FilterBody
	json.Unmarshal(ok(t, res), &page)
	if page.Links.Next == "" || len(page.Data) != 2 {
		t.Fatalf("filter page %+v", page)
	}
	next := call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "electric", "power_min": 100, "limit": 2, "cursor": page.Links.Next}, nil)
	sameJSON(t, "filter page 2", ok(t, next), rest("/v1/variants?fuel=electric&power_min=100&limit=2&cursor="+page.Links.Next))
	sameJSON(t, "filter, every filter", ok(t, call(t, cs, mcp.ToolFilter, map[string]any{"body": "suv", "drive": "all", "power_max": 900, "price_max": 200000, "year": 2020, "ev": true}, nil)),
		rest("/v1/variants?body=suv&drive=all&power_max=900&price_max=200000&year=2020&ev=true"))

	// Raw ids, as a string or a JSON number.
	sameJSON(t, "specs", ok(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.raw(out), "units": "imperial"}, nil)),
		rest("/v1/variants/"+e.raw(out)+"/specs?units=imperial"))
	n, _ := json.Number(e.raw(car)).Int64()
	sameJSON(t, "specs by number", ok(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": n}, nil)), rest("/v1/variants/"+e.raw(car)+"/specs"))
	sameJSON(t, "compare", ok(t, call(t, cs, mcp.ToolCompare, map[string]any{"ids": []any{e.raw(car), n, e.raw(out)}, "locale": "sv"}, nil)),
		rest("/v1/compare?ids="+e.raw(car)+","+e.raw(car)+","+e.raw(out)+"&locale=sv"))

	// Errors say what was wrong; a payment sent with a key is ignored.
	failed(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": "99999999"}, nil), "Not Found (404)")
	failed(t, call(t, cs, mcp.ToolCompare, map[string]any{"ids": []string{e.raw(car), "nonsense"}}, nil), "Bad Request (400)", `"nonsense"`)
	res = call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.raw(out)}, sdk.Meta{"x402/payment": map[string]any{"x402Version": 2}})
	ok(t, res)
	if _, paid := res.Meta["x402/payment-response"]; paid {
		t.Errorf("a key holder's call carries payment metadata: %v", res.Meta)
	}
}

// TestDemoKey: a demo key reaches the 40 cars; outside them it gets the
// REST 403, never a payment request.
func TestDemoKey(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(e.demo)
	car := e.cat.Demo[5]
	status, body := e.restGet("/v1/variants/"+e.token(car)+"/specs", e.demo)
	if status != 200 {
		t.Fatal(status)
	}
	res := call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(car)}, nil)
	sameJSON(t, "specs", ok(t, res), body)
	if strings.Contains(text(res), "demo set, since the call carried no API key") {
		t.Error("a key holder gets the keyless note")
	}
	_, body = e.restGet("/v1/search?q="+url.QueryEscape(e.modelName(car)), e.demo)
	sameJSON(t, "search", ok(t, call(t, cs, mcp.ToolSearch, map[string]any{"query": e.modelName(car)}, nil)), body)

	for _, res := range []*sdk.CallToolResult{
		call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(e.outside())}, nil),
		call(t, cs, mcp.ToolCompare, map[string]any{"ids": []string{e.token(car), e.token(e.outside())}}, nil),
	} {
		failed(t, res, "Forbidden (403)", "outside the demo set", upgradeURL)
		if res.StructuredContent != nil || strings.Contains(text(res), "x402") {
			t.Errorf("a demo key is asked to pay: %s", text(res))
		}
	}
	failed(t, call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "diesel"}, nil), "Forbidden (403)", "not part of the demo tier")
}

// TestBadArguments: arguments the schema or the REST route refuses are
// tool errors that name the problem.
func TestBadArguments(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(e.apify)
	a, b := e.raw(1), e.raw(2)
	f := func(tool string, args map[string]any, want ...string) {
		t.Helper()
		failed(t, call(t, cs, tool, args, nil), want...)
	}
	f(mcp.ToolSearch, map[string]any{}, "query")
	f(mcp.ToolSearch, map[string]any{"query": ""}, "query")
	f(mcp.ToolSearch, map[string]any{"query": "golf", "limit": 0}, "limit")
	f(mcp.ToolSearch, map[string]any{"query": "golf", "page": 2}, "page")
	f(mcp.ToolCompare, map[string]any{"ids": []string{a}}, "ids", "minItems")
	f(mcp.ToolCompare, map[string]any{"ids": []string{a, b, a, b, a}}, "ids", "maxItems")
	f(mcp.ToolCompare, map[string]any{"ids": []string{a + "," + b, a}}, "ids[0]", "comma")
	f(mcp.ToolSpecs, map[string]any{"id": a, "units": "furlongs"}, "units")
	f(mcp.ToolSpecs, map[string]any{}, "id")
	f(mcp.ToolSpecs, map[string]any{"id": 1.5}, "id")
	f(mcp.ToolFilter, map[string]any{"power_min": "lots"}, "power_min")
	f(mcp.ToolFilter, map[string]any{"colour": "red"}, "colour")
}

// The REST bodies as the output types read them.
type (
	SearchBody = mcp.SearchOutput
	FilterBody = mcp.FilterOutput
)
