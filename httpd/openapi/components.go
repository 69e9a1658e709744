package openapi

func id(prefix, what string) obj {
	return obj{"description": what + ": a token `" + prefix + "_` + 8 lowercase hex, or the raw integer stable id for keys of the apify plan.",
		"anyOf": []obj{{"type": "string", "pattern": "^" + prefix + "_[0-9a-f]{8}$"}, {"type": "integer", "minimum": 1}}}
}

func props(required []string, p obj) obj {
	return obj{"type": "object", "properties": p, "required": required, "additionalProperties": false}
}

func (b *builder) schemas() obj {
	in := b.in
	intN := nullable("integer")
	numN := nullable("number")
	summary := obj{
		"variant_id": id("v", "Variant id"), "generation_id": id("g", "Generation id"),
		"display_name": obj{"type": "string"}, "fuel_slug": nullable("string", obj{"description": "One of " + list(in.Fuels) + "."}),
		"body_type_en": nullable("string", obj{"description": "The English body-type label: one of " + list(in.Bodies) + "."}),
		"power_hp":     intN, "torque_nm": intN, "top_speed_kmh": intN, "accel_0_100_s": numN, "battery_kwh": numN,
		"price_new_eur": nullable("integer", obj{"description": "The Dutch list price; null when no snapshot is recorded or the source carries 0 (unknown, not free)."}),
	}
	summaryReq := []string{"variant_id", "generation_id", "display_name", "fuel_slug", "body_type_en", "power_hp", "torque_nm", "top_speed_kmh", "accel_0_100_s", "battery_kwh", "price_new_eur"}
	detail := obj{}
	for k, v := range summary {
		detail[k] = v
	}
	detail["spec_count"] = obj{"type": "integer", "minimum": 0, "description": "Number of spec values; 0 for the few variants with none."}
	detail["specs"] = obj{"type": "object", "description": "The language-neutral spec document: spec key -> {v, u, confidence}; enumerated values as their English slugs, metric units. `{}` when the variant has no spec rows.",
		"additionalProperties": ref("RawSpecValue")}
	specsObj := obj{"variant_id": id("v", "Variant id"), "brand_slug": obj{"type": "string"}, "model_slug": obj{"type": "string"}, "display_name": obj{"type": "string"},
		"locale": obj{"type": "string", "enum": in.Locales}, "year_from": intN, "year_to": nullable("integer", obj{"description": "null while the generation is in production"}),
		"power_hp": intN, "torque_nm": intN, "top_speed_kmh": intN, "accel_0_100_s": numN, "battery_kwh": numN, "price_new_eur": summary["price_new_eur"],
		"specs": obj{"type": "object", "description": "spec key -> SpecValue, in the requested locale and units.", "additionalProperties": ref("SpecValue")}}
	value := obj{"description": "A number, a boolean, a label (localized enumerated value) or a text.",
		"anyOf": []obj{{"type": "number"}, {"type": "boolean"}, {"type": "string"}, {"type": "null"}}}
	return obj{
		"Meta": props([]string{"last_synced_at", "locale", "units"}, obj{
			"last_synced_at": obj{"type": "string", "format": "date-time"},
			"locale":         obj{"type": "string", "enum": in.Locales, "description": "The locale applied: `en` when the requested one is not published."},
			"units":          obj{"type": "string", "enum": []string{"metric", "imperial"}, "description": "`imperial` only on /specs and /compare with `units=imperial`."},
			"note":           obj{"type": "string", "description": "Only on the demo tier's lists and searches: that a demo key reaches the 40 cars of the demo set only, and where the full catalogue is. An empty search of a demo key means no demo car matched, not that the catalogue has none."},
		}),
		"Links": obj{"type": "object", "additionalProperties": false, "properties": obj{"next": obj{"type": "string", "pattern": "^c_[A-Za-z0-9_-]+$", "description": "Cursor of the next page; absent on the last page."}}},
		"Brand": props([]string{"id", "name", "slug", "sameAs"}, obj{"id": obj{"type": "integer", "minimum": 1}, "name": obj{"type": "string", "description": "Localized display name."},
			"slug": obj{"type": "string"}, "sameAs": obj{"type": "array", "items": obj{"type": "string", "format": "uri"}, "description": "The Wikidata item when known, else empty."}}),
		"Model": props([]string{"model_id", "brand_id", "name", "slug"}, obj{"model_id": id("m", "Model id"), "brand_id": obj{"type": "integer"}, "name": obj{"type": "string"}, "slug": obj{"type": "string"}}),
		"Generation": props([]string{"generation_id", "model_id", "name", "slug", "year_start", "year_end"}, obj{"generation_id": id("g", "Generation id"), "model_id": id("m", "Model id"),
			"name": obj{"type": "string"}, "slug": obj{"type": "string"}, "year_start": intN, "year_end": nullable("integer", obj{"description": "null while in production"})}),
		"Variant":       props(summaryReq, summary),
		"VariantDetail": props(append(append([]string{}, summaryReq...), "spec_count", "specs"), detail),
		"VariantSpecs":  props([]string{"variant_id", "brand_slug", "model_slug", "display_name", "locale", "year_from", "year_to", "power_hp", "torque_nm", "top_speed_kmh", "accel_0_100_s", "battery_kwh", "price_new_eur", "specs"}, specsObj),
		"SpecValue": props([]string{"label", "v", "u", "confidence"}, obj{"label": obj{"type": "string", "description": "The spec's display name in the requested locale."},
			"v": value, "u": nullable("string", obj{"description": "Unit as the locale writes it (PS for hp in de, cm³ for cc); the spec key keeps the English unit."}), "confidence": nullable("number", obj{"exclusiveMaximum": 1, "description": "null when certain"})}),
		"RawSpecValue": props([]string{"v", "u", "confidence"}, obj{"v": value, "u": nullable("string"), "confidence": nullable("number", obj{"exclusiveMaximum": 1})}),
		"SpecDefinition": props([]string{"spec_key", "display_name", "unit", "group", "group_label", "kind"}, obj{"spec_key": obj{"type": "string", "pattern": "^[a-z0-9_]+$"},
			"display_name": obj{"type": "string"}, "unit": nullable("string"), "group": nullable("string"), "group_label": obj{"type": "string"},
			"kind": obj{"type": "string", "enum": []string{"number", "integer", "boolean", "label", "text"}}}),
		"ImageRef":      props([]string{"url", "variant"}, obj{"url": obj{"type": "string", "format": "uri"}, "variant": obj{"type": "string", "enum": []string{"card", "hero"}}}),
		"PriceSnapshot": props([]string{"variant_id", "as_of", "price_eur"}, obj{"variant_id": id("v", "Variant id"), "as_of": obj{"type": "string", "format": "date"}, "price_eur": nullable("integer")}),
		"SearchResult": props([]string{"variant_id", "generation_id", "brand_slug", "model_slug", "display_name", "year_from", "year_to", "score"}, obj{
			"variant_id": id("v", "Variant id"), "generation_id": id("g", "Generation id"), "brand_slug": obj{"type": "string"}, "model_slug": obj{"type": "string"},
			"display_name": obj{"type": "string"}, "year_from": intN, "year_to": intN, "score": nullable("number", obj{"minimum": 0, "maximum": 1, "description": "pg_trgm word_similarity; null in the demo tier"})}),
		"DemoSet": props([]string{"variant_count", "set", "fuels", "upgrade", "variants"}, obj{"variant_count": obj{"type": "integer", "const": 40}, "set": obj{"type": "string"},
			"fuels": obj{"type": "array", "items": obj{"type": "string"}}, "upgrade": obj{"type": "string"}, "variants": obj{"type": "array", "items": ref("DemoVariant"), "minItems": 40, "maxItems": 40}}),
		"DemoVariant": props([]string{"variant_id", "generation_id", "model_id", "brand", "model", "generation", "display_name", "fuel", "body_type", "years", "power_hp", "price_new_eur", "battery_kwh"}, obj{
			"variant_id": id("v", "Variant id"), "generation_id": id("g", "Generation id"), "model_id": id("m", "Model id"), "brand": obj{"type": "string"}, "model": obj{"type": "string"},
			"generation": obj{"type": "string"}, "display_name": obj{"type": "string"}, "fuel": nullable("string", obj{"description": "fuel slug"}), "body_type": nullable("string", obj{"description": "English label"}),
			"years": nullable("string", obj{"description": "\"2019–2023\", or \"2024–\" while in production"}), "power_hp": intN, "price_new_eur": intN, "battery_kwh": numN}),
		"Usage": props([]string{"plan", "quota", "used", "resets_at"}, obj{"plan": obj{"type": "string", "enum": []string{"demo", "apify", "free"}}, "quota": obj{"type": "integer"},
			"used": obj{"type": "integer", "description": "Calls served this month, this one included."}, "resets_at": obj{"type": "string", "format": "date-time"}}),
		"Health": props([]string{"status", "active_variants"}, obj{"status": obj{"type": "string"}, "active_variants": obj{"type": "integer"}}),
		"DemoKeyRequest": props([]string{"email", "name", "company", "website", "role", "use_case", "accept_tos"}, obj{
			"email": obj{"type": "string", "format": "email", "maxLength": 254, "description": "A plain address. Reserved and disposable domains and domains without mail are refused (422)."},
			"name":  obj{"type": "string", "minLength": 2, "maxLength": 120}, "company": obj{"type": "string", "minLength": 2, "maxLength": 120},
			"website": obj{"type": "string", "minLength": 1, "maxLength": 200, "description": "The site or app where the data will be used: example.org or https://example.org/app."},
			"role":    obj{"type": "string", "minLength": 2, "maxLength": 80}, "use_case": obj{"type": "string", "minLength": 20, "maxLength": 2000}, "accept_tos": obj{"type": "boolean", "const": true}}),
		"VerificationSent": props([]string{"status", "note"}, obj{"status": obj{"type": "string", "const": "verification_sent"}, "note": obj{"type": "string"}}),
		"PendingKey": props([]string{"status", "email", "requested_at", "expires_at", "confirm", "note"}, obj{"status": obj{"type": "string", "const": "pending"},
			"email": obj{"type": "string", "description": "The address the key will be issued to."}, "requested_at": obj{"type": "string", "format": "date-time"},
			"expires_at": obj{"type": "string", "format": "date-time", "description": "The link works until then, unless confirmed before."},
			"confirm":    props([]string{"method", "href"}, obj{"method": obj{"type": "string", "const": "POST"}, "href": obj{"type": "string", "format": "uri", "description": "The link itself: POST to it, with no body, to issue the key."}}),
			"note":       obj{"type": "string"}}),
		"IssuedKey": props([]string{"api_key", "plan", "covers", "full_catalogue", "start_here", "note"}, obj{"api_key": obj{"type": "string", "pattern": "^vsc_demo_[0-9a-f]{48}$"},
			"plan": obj{"type": "string", "const": "demo"}, "covers": obj{"type": "string"}, "full_catalogue": obj{"type": "string", "format": "uri"}, "start_here": obj{"type": "string", "format": "uri"}, "note": obj{"type": "string"}}),
		"ProblemDetail": obj{"type": "object", "required": []string{"type", "title", "status"}, "properties": obj{"type": obj{"type": "string", "format": "uri", "description": b.problemTypes(), "examples": b.problemURIs()},
			"title": obj{"type": "string", "description": "The HTTP reason phrase."}, "status": obj{"type": "integer"}, "detail": obj{"type": "string", "description": "What was wrong, naming the parameter or field; for 403s the upgrade path."},
			"request_id": obj{"type": "string", "description": "The request's id, also in the X-Request-Id response header: quote it when you ask about an error."}}},
	}
}

func headers() obj {
	s := obj{"type": "string"}
	return obj{
		"ETag":             obj{"description": "Strong validator: a 64-bit xxHash that changes exactly when the representation's bytes do, with -gz, -br or -zst for compressed ones.", "schema": s},
		"Cache-Control":    obj{"description": "`private, max-age=3600` on keyed catalogue responses; `no-store` on health, usage and keys; `public, max-age=3600` on the description and the reference page; `public, max-age=31536000, immutable` on the page's script.", "schema": s},
		"Vary":             obj{"description": "Accept-Encoding, X-Api-Key, Authorization", "schema": s},
		"Content-Language": obj{"description": "The locale applied.", "schema": s},
		"RateLimit":        obj{"description": `The window closest to exhaustion: "minute";r=REMAINING;t=SECONDS (draft-ietf-httpapi-ratelimit-headers).`, "schema": s},
		"RateLimit-Policy": obj{"description": `The key's limits: "minute";q=N;w=60, "day";q=N;w=86400, "month";q=N;w=2592000.`, "schema": s},
		"Deprecation":      obj{"description": "Only on answers to keys of the deprecated `free` plan (RFC 9745): when the plan was deprecated, e.g. `@1764547200`.", "schema": s},
		"Sunset":           obj{"description": "Only on answers to keys of the deprecated `free` plan (RFC 8594): when such keys stop working. `Link: <upgrade>; rel=\"deprecation\"` names the way on.", "schema": s},
		"X-Request-Id":     obj{"description": "The request's id: a trusted proxy's, or one the server made. Also in every problem body as `request_id`.", "schema": s},
		"Retry-After":      obj{"description": "Seconds to wait.", "schema": obj{"type": "integer"}},
		"X-Catalogue-Version": obj{"description": "The catalogue that answered: the SHA-256 of its snapshot file, 64 lower-case hex digits (what `sha256sum` prints). " +
			"On every response once a catalogue is loaded; it changes when a new catalogue is installed (a reload, or a rollout across the fleet), " +
			"so requests to several replicas during a rollout can tell which catalogue each answer came from.", "schema": obj{"type": "string", "pattern": "^[0-9a-f]{64}$"}},
		"WWW-Authenticate": obj{"description": `Bearer realm="catalogue"`, "schema": s},
	}
}

func problemResp(desc string, h obj) obj {
	r := obj{"description": desc, "content": obj{"application/problem+json": obj{"schema": ref("ProblemDetail")}}}
	if h != nil {
		r["headers"] = h
	}
	return r
}

func problems() obj {
	return obj{
		"BadRequest":      problemResp("A parameter or field is missing or malformed; the detail names it.", nil),
		"Unauthorized":    problemResp("No key, or an unknown key.", obj{"WWW-Authenticate": href("WWW-Authenticate")}),
		"Forbidden":       problemResp("The key is revoked or not yet active; a demo key outside the demo tier or set; /export always. The detail gives the upgrade path or licensing link.", nil),
		"NotFound":        problemResp("Unknown resource, undecodable token or token of the wrong kind (the same 404); /demo with a non-demo key.", nil),
		"Conflict":        problemResp("A key was already issued to the address, or the activation link was already used or expired.", nil),
		"Unprocessable":   problemResp("The email address cannot be mailed: it is at an IP address or a single-label domain, its domain is not a valid (internationalised) domain name, its mailbox is not ASCII, or the domain is reserved, disposable, or without mail.", nil),
		"TooManyRequests": problemResp("A limit of the caller: the key's minute, day or month window (the detail names it), or 5 key requests per network per day.", obj{"Retry-After": href("Retry-After"), "RateLimit": href("RateLimit"), "RateLimit-Policy": href("RateLimit-Policy")}),
		"Unavailable":     problemResp("A failure on our side, not a limit: metering unavailable or the access store unreachable in time (fail closed: the call is refused, never served unchecked or uncounted), the demo set being rebuilt, a key request that could not be recorded or checked. Retry after Retry-After.", obj{"Retry-After": href("Retry-After")}),
	}
}

func list(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += "`" + x + "`"
	}
	return s
}

const accessText = `## Access

- **Demo**: a demo key (in X-Api-Key, or as Authorization: Bearer) reaches the frozen 40-car demo set: every spec, image and language for those cars.
- **Paid**: a key of the apify plan reaches the full catalogue; ids are raw integers.
- **Pay per request**: no key, an x402 v2 payment in PAYMENT-SIGNATURE (USDC, scheme exact) buys one answer of /variants/{id}/specs (0.05 USD), /search (0.005), /variants (0.005) or /compare (0.1, for 2 to 4 cars); 60 calls a minute per network.

A demo key: POST /v1/keys/demo with your details; open the activation link mailed to you within 3 days and confirm it (the page's Activate button, or POST to the link); opening it alone issues nothing, so a mail scanner cannot use it up. The key is shown once and mailed. A demo key's lists and searches say in meta.note that it reaches the 40 cars only.

Paying per request: call without a key; the 402's PAYMENT-REQUIRED header carries the offer; an x402 client (for example @x402/fetch) signs it and repeats the call with PAYMENT-SIGNATURE; the 200 carries PAYMENT-RESPONSE with the receipt. Only a 2xx is charged (a 404 costs nothing). A request with a key is always answered as a key holder and never sees 402.

The curl command beside each operation reads the server's address from ` + "`$BASE`" + ` (for example ` + "`http://localhost:8080`" + `) and the key from ` + "`$KEY`" + `.`

// agentText describes the agent tool surface when it is served.
func agentText(url string) string {
	if url == "" {
		return ""
	}
	return "\n\n## Agents (MCP)\n\nAn MCP server (Model Context Protocol, Streamable HTTP, stateless) at " + url +
		" exposes the four payable operations as tools: `search_catalogue` (GET /search), `filter_catalogue` (GET /variants), `get_specs_full` (GET /variants/{id}/specs) and `compare_full` (GET /compare). " +
		"Each answers with the same body as its REST operation for the same caller, as structuredContent. Send the key as `Authorization: Bearer <key>` (an unknown key is 401 with `WWW-Authenticate: Bearer` naming the protected-resource metadata); " +
		"without a key the demo set answers, and the full catalogue is paid per call with x402 in `params._meta[\"x402/payment\"]`."
}

const decisionsText = `## Decisions

Parameters are strict: an unknown or repeated parameter is a 400 naming it. Lists are keyset-paged with opaque cursors bound to the list. Catalogue responses carry strong ETags (304 on If-None-Match), Cache-Control and Vary, and are compressed with br, zstd or gzip when accepted. Limits per key and window are reported in RateLimit and RateLimit-Policy; only a GET answered 2xx is counted (a 304 or a HEAD is not); a 429 names the window; a 503 is our failure, never a signal to throttle.`
