package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/vspec/catalogue/httpd/mcp"
)

// TestOutputSchemasMatchOpenAPI: the output types describe the REST bodies
// field for field as the OpenAPI description does, so that a field added to
// the REST answer fails here before the SDK refuses it at run time.
func TestOutputSchemasMatchOpenAPI(t *testing.T) {
	e := newEnv(t)
	b, _ := json.Marshal(e.svc.Description())
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tools, err := e.connect("").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		out[tool.Name] = schemaMap(t, tool.OutputSchema)["anyOf"].([]any)[0].(map[string]any)
	}
	at := func(s map[string]any, path ...string) map[string]any {
		for _, p := range path {
			s = s[p].(map[string]any)
		}
		return s
	}
	f := func(component string, s map[string]any) {
		t.Helper()
		want := doc.Components.Schemas[component]
		var names []string
		for n := range s["properties"].(map[string]any) {
			names = append(names, n)
		}
		var wantNames []string
		for n := range want.Properties {
			wantNames = append(wantNames, n)
		}
		var required []string
		list, _ := s["required"].([]any)
		for _, r := range list {
			required = append(required, r.(string))
		}
		sort.Strings(names)
		sort.Strings(wantNames)
		sort.Strings(required)
		sort.Strings(want.Required)
		if len(wantNames) == 0 || !slices.Equal(names, wantNames) || !slices.Equal(required, want.Required) {
			t.Errorf("%s: properties %v required %v; OpenAPI has %v required %v", component, names, required, wantNames, want.Required)
		}
	}
	f("SearchResult", at(out[mcp.ToolSearch], "properties", "data", "items"))
	f("Variant", at(out[mcp.ToolFilter], "properties", "data", "items"))
	f("VariantSpecs", at(out[mcp.ToolSpecs], "properties", "data"))
	f("VariantSpecs", at(out[mcp.ToolCompare], "properties", "data", "items"))
	f("SpecValue", at(out[mcp.ToolSpecs], "properties", "data", "properties", "specs", "additionalProperties"))
	f("Meta", at(out[mcp.ToolSpecs], "properties", "meta"))
	f("Links", at(out[mcp.ToolFilter], "properties", "links"))
}
