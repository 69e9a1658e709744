package openapi

import (
	"encoding/json"

	"github.com/vspec/catalogue/httpd/openapi/reference"
)

type builder struct {
	in    Inputs
	paths obj
	order []string // the paths in the order they were added: the contract's
}

func rref(name string) obj { return obj{"$ref": "#/components/responses/" + name} }
func href(name string) obj { return obj{"$ref": "#/components/headers/" + name} }

// envelope is a success body: data, meta, and links on lists.
func envelope(data obj, list bool) obj {
	props := obj{"data": data, "meta": ref("Meta")}
	req := []string{"data", "meta"}
	if list {
		props["links"] = ref("Links")
		req = append(req, "links")
	}
	return obj{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func (b *builder) example(name string) any {
	if raw, ok := b.in.Examples[name]; ok {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			return v
		}
	}
	return nil
}

// ok is a 200 (or other success) response of a keyed catalogue route.
func (b *builder) ok(desc string, schema obj, ex string, cached bool) obj {
	content := obj{"schema": schema}
	if v := b.example(ex); v != nil {
		content["example"] = v
	}
	h := obj{"RateLimit": href("RateLimit"), "RateLimit-Policy": href("RateLimit-Policy"), "Deprecation": href("Deprecation"), "Sunset": href("Sunset"), "X-Request-Id": href("X-Request-Id")}
	if cached {
		h["ETag"] = href("ETag")
		h["Cache-Control"] = href("Cache-Control")
		h["Vary"] = href("Vary")
		h["Content-Language"] = href("Content-Language")
	}
	return obj{"description": desc, "headers": h, "content": obj{"application/json": content}}
}

var notModified = obj{"description": "Not modified: the If-None-Match validator matches the current representation.", "headers": obj{"ETag": href("ETag"), "Cache-Control": href("Cache-Control"), "Vary": href("Vary")}}

// keyed merges the responses every key-requiring route can give.
func keyed(rs obj) obj {
	common := obj{"304": notModified, "401": rref("Unauthorized"), "403": rref("Forbidden"), "429": rref("TooManyRequests"), "503": rref("Unavailable")}
	for k, v := range common {
		if _, ok := rs[k]; !ok {
			rs[k] = v
		}
	}
	return rs
}

// get adds a GET operation and its HEAD twin; params default to the
// operation's parameter table (Inputs.Parameters).
func (b *builder) get(path, id, tag, summary, desc string, params []obj, responses obj) {
	if params == nil {
		params = b.in.Parameters[id]
	}
	op := obj{"operationId": id, "tags": []string{tag}, "summary": summary, "description": desc, "responses": responses}
	if len(params) > 0 {
		op["parameters"] = params
	}
	item, _ := b.paths[path].(obj)
	if item == nil {
		item = obj{}
		b.paths[path] = item
		b.order = append(b.order, path)
	}
	item["get"] = op
	// HEAD answers like GET without a body.
	head := obj{"operationId": id + "Head", "tags": []string{tag}, "summary": summary + " (headers only)", "description": "HEAD answers exactly like GET, without the body.", "responses": responses}
	if len(params) > 0 {
		head["parameters"] = params
	}
	item["head"] = head
}

func (b *builder) operations() {
	b.get("/health", "getHealth", "Service", "Health", "No key. 200 means a catalogue is loaded and served. `Cache-Control: no-store`.", nil,
		obj{"200": obj{"description": "The catalogue is served.", "content": obj{"application/json": obj{"schema": envelope(ref("Health"), false), "example": b.example(ExHealth)}}}})
	b.paths["/health"].(obj)["get"].(obj)["security"] = []obj{}
	b.paths["/health"].(obj)["head"].(obj)["security"] = []obj{}

	b.get("/brands", "listBrands", "Catalogue", "List brands", "Brands by popularity rank, then name (bytewise), then id. A demo key lists the 5 demo brands.", nil,
		keyed(obj{"200": b.ok("A page of brands.", envelope(obj{"type": "array", "items": ref("Brand")}, true), ExBrands, true), "400": rref("BadRequest")}))
	b.get("/brands/{slug}", "getBrand", "Catalogue", "Get a brand", "", nil,
		keyed(obj{"200": b.ok("The brand.", envelope(ref("Brand"), false), ExBrand, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/brands/{slug}/models", "listModels", "Catalogue", "List a brand's models", "By name (bytewise), then id.", nil,
		keyed(obj{"200": b.ok("A page of models.", envelope(obj{"type": "array", "items": ref("Model")}, true), ExModels, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/models/{id}/generations", "listGenerations", "Catalogue", "List a model's generations", "By first production year, then id. `id` is a model token (`m_`), or a raw integer id for the apify plan.",
		nil,
		keyed(obj{"200": b.ok("A page of generations.", envelope(obj{"type": "array", "items": ref("Generation")}, true), ExGenerations, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/generations/{id}/variants", "listGenerationVariants", "Catalogue", "List a generation's variants", "By stable id (the catalogue numbers a generation's variants by fuel, then power, then name).",
		nil,
		keyed(obj{"200": b.ok("A page of variants.", envelope(obj{"type": "array", "items": ref("Variant")}, true), ExVariants, true), "400": rref("BadRequest"), "404": rref("NotFound")}))

	b.get("/variants", "filterVariants", "Variants", "Filter variants", "Variants meeting every filter given, in stable-id order. Not part of the demo tier (403).", nil,
		keyed(obj{"200": b.ok("A page of variants.", envelope(obj{"type": "array", "items": ref("Variant")}, true), ExVariants, true), "400": rref("BadRequest")}))
	b.get("/variants/{id}", "getVariant", "Variants", "Get a variant", "VariantDetail: the summary fields, `spec_count` and the language-neutral spec document. A demo key gets the summary fields only.",
		nil,
		keyed(obj{"200": b.ok("The variant.", envelope(obj{"oneOf": []obj{ref("VariantDetail"), ref("Variant")}}, false), ExVariantDetail, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/variants/{id}/specs", "getVariantSpecs", "Variants", "Get a variant's specs", "Values, labels and enumerated values in the requested language; units converted with `units=imperial`.",
		nil,
		keyed(obj{"200": b.ok("The variant's specs.", envelope(ref("VariantSpecs"), false), ExVariantSpecs, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/variants/{id}/images", "getVariantImages", "Variants", "Get a variant's images", "CDN URLs of `card` and `hero` images.", nil,
		keyed(obj{"200": b.ok("The images.", envelope(obj{"type": "array", "items": ref("ImageRef")}, false), ExImages, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/variants/{id}/prices", "getVariantPrices", "Variants", "Get a variant's list price", "The single Dutch new-car list-price snapshot. 404 when none is recorded. Not part of the demo tier.",
		nil,
		keyed(obj{"200": b.ok("The price snapshot.", envelope(ref("PriceSnapshot"), false), ExPrices, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/specs/catalog", "listSpecDefinitions", "Utilities", "List the spec dictionary", "The spec types in dictionary order. Not part of the demo tier.", nil,
		keyed(obj{"200": b.ok("A page of spec definitions.", envelope(obj{"type": "array", "items": ref("SpecDefinition")}, true), ExSpecCatalog, true), "400": rref("BadRequest")}))
	b.get("/search", "search", "Utilities", "Typeahead search",
		"Typeahead over brand, model and display name, on texts folded to lower case without diacritics. A row matches when every query word (leaving out words that match nothing in the catalogue) matches a word of its brand, model or name in any order (exactly; as a prefix for the last word as typed; or with a typo), letters and digits written together or apart alike (`c200`, `c 200`), brand aliases (`vw`, `merc`, `chevy`, and every locale's local spelling, in any locale) standing for the brand and Cyrillic, Greek or Arabic words also read transliterated; or when PostgreSQL pg_trgm's `word_similarity(q, text)` is at least "+
			trimFloat(b.in.SearchThreshold)+" (nothing word_similarity finds is lost). Order, a total order: first the rows that every query word matches, by more exact then more prefix matches, more matches in brand and model than in trim words, more consecutive and in-order words, fewer model words left unmatched, then current and recent generations and popular brands and models first, then stable id; then the other rows by word_similarity, folded text and stable id. `score` is word_similarity, reported, not the sort key. Cursors resume this order; a cursor from the order before it is a 400. A page of rows that every word matches may hold fewer than `limit` rows and still link to a next page: the word_similarity rows start there. A query without letters or digits returns an empty list. For a demo key: a substring match over the 40 cars, `score` null.",
		nil,
		keyed(obj{"200": b.ok("A page of results, best first.", envelope(obj{"type": "array", "items": ref("SearchResult")}, true), ExSearch, true), "400": rref("BadRequest")}))
	b.get("/compare", "compare", "Utilities", "Compare 2 to 4 variants",
		"VariantSpecs of each car, in the order asked. One id that does not decode fails the whole call with 400 naming it; a well-formed id of no variant is a 404. `meta.last_synced_at` is the latest of the compared variants'. For a demo key, a car outside the set is a 403.",
		nil,
		keyed(obj{"200": b.ok("The cars side by side.", envelope(obj{"type": "array", "items": ref("VariantSpecs"), "minItems": 2, "maxItems": 4}, false), ExCompare, true), "400": rref("BadRequest"), "404": rref("NotFound")}))
	b.get("/usage", "getUsage", "Utilities", "Get the calling key's usage", "The plan, its monthly quota and the calls counted this month (GETs answered 2xx only: a 304 or a HEAD is not counted; this call included). Not part of the demo tier. `Cache-Control: no-store`.",
		nil, keyed(obj{"200": b.ok("The usage.", envelope(ref("Usage"), false), ExUsage, false), "400": rref("BadRequest")}))
	b.get("/export", "getExport", "Utilities", "Bulk export (never)", "Bulk data is never served by the API: always 403, with the licensing offer ("+b.in.LicensingURL+") in the detail.",
		nil, keyed(obj{"400": rref("BadRequest")}))
	b.get("/demo", "getDemoSet", "Demo", "List the demo set", "Demo keys only: the 40 cars in one call. Another key gets 404. 503 with `Retry-After: 300` while the set is rebuilt.",
		nil, keyed(obj{"200": b.ok("The demo set.", envelope(ref("DemoSet"), false), ExDemoSet, true), "400": rref("BadRequest"), "404": rref("NotFound")}))

	keyReq := obj{"description": "The request for a demo key; every field required.", "required": true,
		"content": obj{"application/json": obj{"schema": ref("DemoKeyRequest"), "example": b.example(ExDemoKeyRequest)}}}
	for _, p := range []struct{ path, id, summary string }{{"/keys/demo", "requestDemoKey", "Request a demo key"}, {"/keys", "requestDemoKeyAlias", "Request a demo key (alias of /keys/demo)"}} {
		b.order = append(b.order, p.path)
		b.paths[p.path] = obj{"post": obj{"operationId": p.id, "tags": []string{"Demo"}, "summary": p.summary, "security": []obj{},
			"description": "No key. Validates the request, checks that the email domain can receive mail, records the request and mails an activation link (3 days). No key exists until the link is confirmed: opening it (GET) shows the request and a button, and the key is issued by the confirming POST, once.",
			"requestBody": keyReq,
			"responses": obj{
				"202": obj{"description": "Recorded; the activation link was mailed.", "content": obj{"application/json": obj{"schema": envelope(ref("VerificationSent"), false), "example": b.example(ExVerification)}}},
				"400": rref("BadRequest"), "409": rref("Conflict"),
				"415": problemResp("The body is not application/json (compared case-insensitively; parameters such as charset=utf-8 are allowed), or the Content-Type is missing. Accept-Post names the type.",
					obj{"Accept-Post": obj{"description": "application/json", "schema": obj{"type": "string"}}}),
				"422": rref("Unprocessable"), "429": rref("TooManyRequests"),
				"503": problemResp("A failure on our side: the request could not be recorded; the mail domain could not be checked because the server's DNS resolver did not answer, or answers that no domain exists at all, as on a machine without DNS (the detail names the resolver; 422 is only for a real answer that the domain has no mail exchanger); or the activation email could not be sent (such a request does not count against the network's allowance). Retry after Retry-After.",
					obj{"Retry-After": href("Retry-After")}),
			}}}
	}
	used := obj{"description": "The link was already used (the detail names the address its key was issued to) or has expired, or the address holds a key from another link. A browser gets a page saying so.",
		"content": obj{"application/problem+json": obj{"schema": ref("ProblemDetail")}, "text/html": obj{"schema": obj{"type": "string"}}}}
	b.get("/keys/demo/verify", "verifyDemoKey", "Demo", "Open an activation link",
		"No key. Shows the request the link activates and how to confirm it, and changes nothing: mail scanners fetch the links of a message (HEAD and GET) before people open them, so opening a link never uses it up. "+
			"A browser (Accept naming text/html) gets a page with the request and an Activate button, which POSTs to the link; an API client gets `confirm`, the one step that issues the key: `POST` to `confirm.href`. `Cache-Control: no-store`.",
		nil,
		obj{"200": obj{"description": "The pending request, and how to confirm it. No key yet.", "content": obj{
			"application/json": obj{"schema": envelope(ref("PendingKey"), false), "example": b.example(ExPendingKey)},
			"text/html":        obj{"schema": obj{"type": "string"}}}},
			"400": rref("BadRequest"), "409": used, "503": rref("Unavailable")})
	item := b.paths["/keys/demo/verify"].(obj)
	item["get"].(obj)["security"] = []obj{}
	item["head"].(obj)["security"] = []obj{}
	item["post"] = obj{"operationId": "confirmDemoKey", "tags": []string{"Demo"}, "summary": "Confirm an activation link", "security": []obj{},
		"description": "No key, no body. Burns the token and mints the demo key in one transaction: of any number of confirmations of one link, concurrent or repeated, exactly one gets the key; the others get 409. The key is shown once (and mailed). " +
			"The page of the link sends this from its button (a browser gets a page showing the key); an API client sends it in one step, `curl -X POST '<link>'`. `Cache-Control: no-store`.",
		"parameters": b.in.Parameters["verifyDemoKey"],
		"responses": obj{"200": obj{"description": "The key, shown once. A browser (Accept naming text/html) gets a page showing it instead.", "content": obj{
			"application/json": obj{"schema": envelope(ref("IssuedKey"), false), "example": b.example(ExIssuedKey)},
			"text/html":        obj{"schema": obj{"type": "string"}}}},
			"400": rref("BadRequest"), "409": used,
			"413": problemResp("The request has a body; the token is the link's `t` parameter.", nil), "503": rref("Unavailable")}}

	for _, d := range []struct{ path, id, ct, summary, desc, caching string }{
		{"/openapi.json", "getOpenAPI", "application/json", "This OpenAPI 3.1 document", "This OpenAPI 3.1 document. `Access-Control-Allow-Origin: *`.",
			"`Cache-Control: public, max-age=3600` and a strong ETag; compressed with br, zstd or gzip when accepted"},
		{"/docs", "getDocs", "text/html", "This reference page",
			"This reference: a small HTML page that renders this document with Redoc " + reference.Version + ", whose script this server serves (GET " + reference.Path +
				"); nothing is loaded from elsewhere, and `Content-Security-Policy` allows nothing else.",
			"`Cache-Control: public, max-age=3600` and a strong ETag"},
		{reference.Path, "getDocsScript", "text/javascript", "The reference page's script",
			"Redoc " + reference.Version + "'s standalone bundle (MIT licence, in the leading comment), embedded in the server. The path names the version, so it never changes.",
			"`Cache-Control: public, max-age=31536000, immutable` and a strong ETag; compressed with br, zstd or gzip when accepted"},
	} {
		headers := obj{"ETag": href("ETag"), "Cache-Control": href("Cache-Control")}
		if d.path == "/docs" {
			headers["Content-Security-Policy"] = obj{"description": "`" + DocsCSP + "`", "schema": obj{"type": "string"}}
		}
		schema := obj{"type": "string"}
		if d.ct == "application/json" {
			schema = obj{"type": "object"}
		}
		b.get(d.path, d.id, "Service", d.summary, "No key. "+d.caching+".", nil,
			obj{"200": obj{"description": d.desc, "headers": headers, "content": obj{d.ct: obj{"schema": schema}}}, "304": notModified})
		b.paths[d.path].(obj)["get"].(obj)["security"] = []obj{}
		b.paths[d.path].(obj)["head"].(obj)["security"] = []obj{}
	}
}

func trimFloat(f float32) string {
	b, _ := json.Marshal(f)
	return string(b)
}
