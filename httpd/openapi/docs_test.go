package openapi

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/openapi/reference"
)

func testDoc(t *testing.T) obj {
	t.Helper()
	in := Inputs{Locales: []string{"en", "de"}, Fuels: []string{"petrol", "electric"}, Bodies: []string{"Hatchback"}, BodySlugs: []string{"hatchback"},
		Drives: []string{"fwd"}, Variants: 1034, SpecTypes: 232, UpgradeURL: "https://vspec.example/pricing", LicensingURL: "https://vspec.example/licensing",
		SearchThreshold: 0.3, AgentURL: "http://127.0.0.1:8081/mcp",
		ProblemTypes: []ProblemType{{URI: "https://vspec.example/problems/invalid-parameter", Status: 400, Means: "A parameter is wrong."}},
		Payments: &Payments{Network: "eip155:8453", Asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", AssetName: "USD Coin", PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
			MaxTimeoutSeconds: 60, PerMinute: 60, Settles: "the facilitator", Prices: map[string]int64{"getVariantSpecs": 50000, "search": 5000, "filterVariants": 5000, "compare": 100000}},
		Samples:  map[string]string{"getBrand": "/brands/volkswagen"},
		Examples: map[string]json.RawMessage{ExDemoKeyRequest: json.RawMessage(`{"email":"ada@example.org","use_case":"Ada's shop"}`)},
	}
	return Build(in)
}

// TestDescriptionText: the text the reference renders is Markdown without
// escape sequences left in by mistake (a literal \n shows as such), and
// without unbroken runs that cannot wrap on a phone outside code spans.
func TestDescriptionText(t *testing.T) {
	code := regexp.MustCompile("`[^`]*`")
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case obj:
			for k, x := range v {
				if k != "example" && k != "examples" && k != "pattern" && k != "x-codeSamples" {
					walk(path+"/"+k, x)
				}
			}
		case ordered:
			walk(path, v.m)
		case []obj:
			for _, x := range v {
				walk(path, x)
			}
		case []any:
			for _, x := range v {
				walk(path, x)
			}
		case string:
			if strings.Contains(v, `\n`) || strings.Contains(v, `\t`) {
				t.Errorf("%s: a literal escape sequence: %.120q", path, v)
			}
			for _, w := range strings.Fields(code.ReplaceAllString(v, "")) {
				if len(w) > 48 && !strings.HasPrefix(w, "http") && !strings.HasPrefix(w, "0x") {
					t.Errorf("%s: %q does not wrap", path, w)
				}
			}
		}
	}
	walk("", testDoc(t))
}

// TestCodeSamples: every operation has a curl command, keyed ones send the
// key, keyless ones do not, HEAD asks for headers only, a POST with a
// request body sends its example, quoted for the shell.
func TestCodeSamples(t *testing.T) {
	doc := testDoc(t)
	n := 0
	for path, item := range PathItems(doc) {
		for method, o := range item.(obj) {
			op := o.(obj)
			s, _ := op["x-codeSamples"].([]obj)
			if len(s) != 1 || s[0]["lang"] != "Shell" {
				t.Errorf("%s %s: samples %v", method, path, s)
				continue
			}
			n++
			cmd := s[0]["source"].(string)
			keyless := false
			if sec, ok := op["security"].([]obj); ok && len(sec) == 0 {
				keyless = true
			}
			if strings.Contains(cmd, "$KEY") == keyless || !strings.HasPrefix(cmd, "curl -sS") || strings.Contains(cmd, " -I ") != (method == "head") {
				t.Errorf("%s %s (keyless %v): %s", method, path, keyless, cmd)
			}
			if _, body := op["requestBody"]; method == "post" && body && !strings.Contains(cmd, `-d '{"email":"ada@example.org","use_case":"Ada'\''s shop"}'`) {
				t.Errorf("%s %s: %s", method, path, cmd)
			}
		}
	}
	if n < 40 {
		t.Errorf("%d operations", n)
	}
	item := PathItems(doc)["/brands/{slug}"].(obj)
	if got := item["get"].(obj)["x-codeSamples"].([]obj)[0]["source"]; got != "curl -sS \"$BASE/v1/brands/volkswagen\" \\\n  -H \"X-Api-Key: $KEY\"" {
		t.Errorf("getBrand: %q", got)
	}
}

// TestPathOrder: paths are written in the contract's order, which
// renderers follow, and every path is written once.
func TestPathOrder(t *testing.T) {
	b, err := json.Marshal(testDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	last := -1
	for _, p := range []string{`"/health"`, `"/brands"`, `"/brands/{slug}/models"`, `"/models/{id}/generations"`, `"/generations/{id}/variants"`, `"/variants/{id}"`, `"/search"`, `"/keys/demo"`, `"/docs"`, `"` + reference.Path + `"`} {
		i := strings.Index(s, p+":")
		if i <= last {
			t.Errorf("%s is not after the paths before it", p)
		}
		last = i
	}
	var back struct{ Paths map[string]any }
	if err := json.Unmarshal(b, &back); err != nil || len(back.Paths) != len(PathItems(testDoc(t))) {
		t.Errorf("%v: %d paths written", err, len(back.Paths))
	}
}

func TestDocsPage(t *testing.T) {
	p := string(DocsPage("Vehicle & catalogue", "2.0.0"))
	for _, want := range []string{"<title>Vehicle &amp; catalogue 2.0.0</title>", `<redoc spec-url="openapi.json"`, `<script src="./docs/redoc-` + reference.Version + `.js"></script>`, `theme="{&#34;colors&#34;`} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %s:\n%s", want, p)
		}
	}
	var theme any
	if err := json.Unmarshal([]byte(docsTheme), &theme); err != nil {
		t.Errorf("theme: %v", err)
	}
}
