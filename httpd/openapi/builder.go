package openapi

import (
	"encoding/json"
	"maps"
	"sort"
	"strconv"
	"strings"
)

// Version is the API version the document carries.
const Version = "2.0.0"

// Inputs are what the document needs from the server.
type Inputs struct {
	Locales         []string                   // published locales
	Fuels           []string                   // fuel slugs
	Bodies          []string                   // English body-type labels
	BodySlugs       []string                   // body-type slugs
	Drives          []string                   // drivetrain slugs
	Variants        int                        // variants in the catalogue, for descriptions
	SpecTypes       int                        // spec types
	UpgradeURL      string                     // upgrade path
	LicensingURL    string                     // licensing offer
	SearchThreshold float32                    // pg_trgm word-similarity threshold
	Examples        map[string]json.RawMessage // example response bodies by name (see Example* constants)
	Parameters      map[string][]obj           // each operation's parameter objects, by operationId, from its parameter table
	ProblemTypes    []ProblemType              // the kinds of problem, in status order
	Payments        *Payments                  // per-request payments; nil when off
	AgentURL        string                     // the MCP endpoint of the agent tool surface; "" when off
	Samples         map[string]string          // each operation's path and query under /v1 for its curl sample, by operationId (HEAD twins share it); the route when absent
}

// Names of the examples httpd renders from the catalogue.
const (
	ExHealth         = "health"
	ExBrands         = "brands"
	ExBrand          = "brand"
	ExModels         = "models"
	ExGenerations    = "generations"
	ExVariants       = "variants"
	ExVariantDetail  = "variant_detail"
	ExVariantSpecs   = "variant_specs"
	ExImages         = "images"
	ExPrices         = "prices"
	ExSpecCatalog    = "spec_catalog"
	ExSearch         = "search"
	ExCompare        = "compare"
	ExUsage          = "usage"
	ExDemoSet        = "demo_set"
	ExVerification   = "verification_sent"
	ExIssuedKey      = "issued_key"
	ExPendingKey     = "pending_key"
	ExDemoKeyRequest = "demo_key_request"
)

type obj = map[string]any

// ProblemType is one kind of problem the API answers: its type URI, status
// and meaning.
type ProblemType struct {
	URI    string
	Status int
	Means  string
}

// problemTypes documents every problem type, for ProblemDetail.type.
func (b *builder) problemTypes() string {
	s := "The kind of problem, one URI per kind (clients may switch on it; the detail is for people). `about:blank` where no kind applies.\n\n"
	for _, t := range b.in.ProblemTypes {
		s += "- `" + t.URI + "` (" + strconv.Itoa(t.Status) + "): " + t.Means + "\n"
	}
	return s
}

func (b *builder) problemURIs() []string {
	var uris []string
	for _, t := range b.in.ProblemTypes {
		uris = append(uris, t.URI)
	}
	return uris
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func nullable(t string, extra ...obj) obj {
	o := obj{"type": []string{t, "null"}}
	for _, e := range extra {
		for k, v := range e {
			o[k] = v
		}
	}
	return o
}

// Build returns the OpenAPI document.
func Build(in Inputs) obj {
	b := &builder{in: in, paths: obj{}}
	b.operations()
	b.payable()
	doc := obj{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": obj{
			"title":   "Vehicle specification catalogue API",
			"version": Version,
			"summary": "Read-only, versioned REST API over a multilingual European vehicle catalogue.",
			"description": "Brand > model > generation > variant: " + itoa(in.Variants) + " variants, " + itoa(in.SpecTypes) + " spec types, " + itoa(len(in.Locales)) +
				" languages. Every success body is `{data, meta}` (plus `links` on lists); every error is RFC 9457 `application/problem+json`.\n\n" + accessText + agentText(in.AgentURL) + "\n\n" + decisionsText +
				// Redoc puts the security schemes here; other renderers skip the comment.
				"\n\n## Authentication\n\n<!-- ReDoc-Inject: <security-definitions> -->",
			"license": obj{"name": "Proprietary, attribution required", "url": in.UpgradeURL},
		},
		"servers":  []obj{{"url": "/v1", "description": "this server"}},
		"security": []obj{{"apiKey": []string{}}, {"bearer": []string{}}},
		"tags": []obj{
			{"name": "Catalogue", "description": "Browse brand > model > generation > variant."},
			{"name": "Variants", "description": "A variant's detail, specs, images and list price; filtering."},
			{"name": "Utilities", "description": "Search, compare, the spec dictionary, usage, exports."},
			{"name": "Demo", "description": "The 40-car demo tier and its self-service keys."},
			{"name": "Service", "description": "Health, this description and its reference page."},
		},
		"paths": ordered{b.order, b.paths},
		"components": obj{
			"securitySchemes": obj{
				"apiKey": obj{"type": "apiKey", "in": "header", "name": "X-Api-Key", "description": "The API key. Keys look like `vsc_<plan>_<48 hex>`."},
				"bearer": obj{"type": "http", "scheme": "bearer", "description": "The same key as `Authorization: Bearer <key>`; accepted everywhere X-Api-Key is."},
			},
			"schemas":   b.schemas(),
			"headers":   headers(),
			"responses": problems(),
		},
	}
	b.paymentComponents(doc["components"].(obj))
	b.codeSamples()
	withVersionHeader(doc)
	return doc
}

// withVersionHeader documents X-Catalogue-Version on every response of
// doc, as the server sends it on all of them. Response objects may be
// shared package values (notModified), so each is copied, never changed.
func withVersionHeader(doc obj) {
	add := func(r obj) obj {
		c := maps.Clone(r)
		h := obj{}
		if old, ok := r["headers"].(obj); ok {
			h = maps.Clone(old)
		}
		h["X-Catalogue-Version"] = href("X-Catalogue-Version")
		c["headers"] = h
		return c
	}
	for _, item := range PathItems(doc) {
		for method, op := range item.(obj) {
			if method == "parameters" {
				continue
			}
			responses := maps.Clone(op.(obj)["responses"].(obj))
			for code, r := range responses {
				if r, ok := r.(obj); ok && r["$ref"] == nil {
					responses[code] = add(r)
				}
			}
			op.(obj)["responses"] = responses
		}
	}
	shared := doc["components"].(obj)["responses"].(obj)
	for name, r := range shared {
		shared[name] = add(r.(obj))
	}
}

// Operation is a documented route.
type Operation struct{ Method, Path string }

// Operations lists the documented routes of a document, sorted.
func Operations(doc obj) []Operation {
	var ops []Operation
	for path, item := range PathItems(doc) {
		for method := range item.(obj) {
			if method == "parameters" {
				continue
			}
			ops = append(ops, Operation{strings.ToUpper(method), "/v1" + path})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops
}

// PathItems returns the path items of a document, by path.
func PathItems(doc obj) obj {
	if p, ok := doc["paths"].(ordered); ok {
		return p.m
	}
	return doc["paths"].(obj)
}

// ordered is an object whose members are written in the order of keys:
// the paths, which renderers list in the order of the document, go in the
// order of the contract (brand > model > generation > variant) rather
// than sorted.
type ordered struct {
	keys []string
	m    obj
}

func (o ordered) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, k := range o.keys {
		if i > 0 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(k)
		v, err := json.Marshal(o.m[k])
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, key...), ':'), v...)
	}
	return append(out, '}'), nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
