package httpd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/openapi"
)

// TestDescriptionCoversRoutes fails when a route is served but not
// documented, or documented but not served.
func TestDescriptionCoversRoutes(t *testing.T) {
	e := newEnv(t)
	served := map[openapi.Operation]bool{}
	for _, op := range e.svc.Routes() {
		served[op] = true
	}
	documented := map[openapi.Operation]bool{}
	for _, op := range openapi.Operations(e.svc.Description()) {
		documented[op] = true
		if !served[op] {
			t.Errorf("%s %s is documented but not served", op.Method, op.Path)
		}
	}
	for op := range served {
		if !documented[op] {
			t.Errorf("%s %s is served but not documented", op.Method, op.Path)
		}
	}
	if len(served) < 40 {
		t.Errorf("only %d routes registered", len(served))
	}
}

func TestOpenAPIServed(t *testing.T) {
	e := newEnv(t)
	r := e.get("/v1/openapi.json", "")
	if r.status != 200 || r.header["Access-Control-Allow-Origin"] != "*" || r.header["Cache-Control"] != "public, max-age=3600" || r.header["Etag"] == "" {
		t.Fatalf("openapi.json: %d %v", r.status, r.header)
	}
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "2.0.0" {
		t.Errorf("openapi %v, version %v", doc["openapi"], doc["info"].(map[string]any)["version"])
	}
	// Examples come from the real catalogue.
	specs := doc["paths"].(map[string]any)["/variants/{id}/specs"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
	ex := specs["content"].(map[string]any)["application/json"].(map[string]any)["example"].(map[string]any)["data"].(map[string]any)
	if !strings.HasPrefix(str(ex, "variant_id"), "v_") || len(ex["specs"].(map[string]any)) < 100 {
		t.Errorf("the specs example is not a real variant: %v", ex["variant_id"])
	}
	if nm := e.get("/v1/openapi.json", "", "If-None-Match", r.header["Etag"]); nm.status != 304 {
		t.Errorf("If-None-Match: %d", nm.status)
	}
	d := e.get("/v1/docs", "")
	if d.status != 200 || !strings.HasPrefix(d.header["Content-Type"], "text/html") || strings.Contains(string(d.body), "<script") || strings.Contains(string(d.body), "<link") || strings.Contains(string(d.body), "src=") {
		t.Fatalf("docs: %d %s", d.status, d.header["Content-Type"])
	}
	for _, op := range openapi.Operations(doc) {
		if op.Method == "HEAD" {
			continue
		}
		if !strings.Contains(string(d.body), op.Path) {
			t.Errorf("the docs page lacks %s %s", op.Method, op.Path)
		}
	}
}
