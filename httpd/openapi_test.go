package httpd_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/openapi"
	"github.com/vspec/catalogue/httpd/openapi/reference"
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
	// A literal backslash-n (a raw string's \n) would show as such on the page.
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			if strings.Contains(v, `\n`) {
				t.Errorf("a literal \\n in the description: %.200q", v)
			}
		}
	}
	walk(doc)
}

// TestDocsPage: /v1/docs is a small page that loads Redoc from this server
// under a policy that allows nothing from elsewhere; the script is served
// immutable, compressed when accepted, with a validator per coding.
func TestDocsPage(t *testing.T) {
	e := newEnv(t)
	d := e.get("/v1/docs", "")
	page := string(d.body)
	script := "/v1" + reference.Path
	if d.status != 200 || d.header["Content-Type"] != "text/html; charset=utf-8" || d.header["Cache-Control"] != "public, max-age=3600" || d.header["Etag"] == "" {
		t.Fatalf("docs: %d %v", d.status, d.header)
	}
	if csp := d.header["Content-Security-Policy"]; csp != openapi.DocsCSP || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self';") {
		t.Errorf("docs page policy %q", csp)
	}
	if !strings.Contains(page, `<redoc spec-url="openapi.json"`) || !strings.Contains(page, `<script src="./docs/redoc-`+reference.Version+`.js"></script>`) {
		t.Errorf("the page does not load the embedded Redoc on /v1/openapi.json:\n%s", page)
	}
	if strings.Contains(page, "http:") || strings.Contains(page, "https:") || strings.Count(page, "<script") != 1 {
		t.Errorf("the page names another origin or has an inline script:\n%s", page)
	}
	if nm := e.get("/v1/docs", "", "If-None-Match", d.header["Etag"]); nm.status != 304 {
		t.Errorf("docs If-None-Match: %d", nm.status)
	}

	js := e.get(script, "")
	want := reference.Script()
	if js.status != 200 || js.header["Content-Type"] != "text/javascript; charset=utf-8" || js.header["Cache-Control"] != "public, max-age=31536000, immutable" ||
		js.header["X-Content-Type-Options"] != "nosniff" || js.header["Content-Encoding"] != "" || !bytes.Equal(js.body, want) {
		t.Fatalf("script: %d %v, %d bytes", js.status, js.header, len(js.body))
	}
	if !strings.HasPrefix(string(js.body), "/*! Redoc "+reference.Version) || !strings.Contains(string(js.body[:4096]), "MIT License") {
		t.Error("the script does not open with Redoc's licence")
	}
	if nm := e.get(script, "", "If-None-Match", js.header["Etag"]); nm.status != 304 || len(nm.body) != 0 {
		t.Errorf("script If-None-Match: %d", nm.status)
	}
	for _, enc := range []string{"br", "gzip", "zstd"} {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://" + e.addr + script)
		req.Header.Set("Accept-Encoding", enc)
		if err := fasthttp.Do(req, res); err != nil {
			t.Fatal(err)
		}
		body, _ := decodedBody(t, res) // an undecodable body fails the test there
		tag := string(res.Header.Peek("ETag"))
		if string(res.Header.Peek("Content-Encoding")) != enc || !bytes.Equal(body, want) || len(res.Body()) > len(want)/2 ||
			tag == js.header["Etag"] || !strings.Contains(string(res.Header.Peek("Vary")), "Accept-Encoding") {
			t.Errorf("%s: %s, %d bytes, ETag %s", enc, res.Header.Peek("Content-Encoding"), len(res.Body()), tag)
		}
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(res)
	}
	if h := e.do("HEAD", script, ""); h.status != 200 || len(h.body) != 0 || h.header["Etag"] != js.header["Etag"] {
		t.Errorf("HEAD script: %d %v", h.status, h.header)
	}
}
