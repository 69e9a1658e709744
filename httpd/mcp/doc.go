// Package mcp is the agent tool surface of the catalogue: an MCP server
// (Model Context Protocol, Streamable HTTP, stateless) exposing the four
// payable REST operations as tools: search_catalogue (GET /v1/search),
// filter_catalogue (GET /v1/variants), get_specs_full (GET
// /v1/variants/{id}/specs) and compare_full (GET /v1/compare).
//
// It owns the tools' descriptions and output schemas (their input schemas
// are the operations' parameter tables, httpd.Service.ToolInputSchema), the
// call of the operation (httpd.Service.Call) and the translation of its
// answer or *httpd.Error into a tool result, who the caller is (a key sent as a bearer
// token or X-Api-Key, or nobody), x402 payments carried in a call's _meta,
// the per-network limit of callers without a key, the Host and Origin
// checks against DNS rebinding, and the RFC 9728 protected-resource
// metadata. It does not own the data, the rendering, the key store or the
// metering: a tool returns exactly the body its REST route returns for the
// same caller, as structuredContent.
//
// # Messages
//
// A POST carries one JSON-RPC message. The keeper reads it with the SDK's
// own decoder before anyone acts on it, so that what is counted is what
// the SDK runs, and hands the SDK the message re-encoded from that
// reading (envelope.go). Refused as JSON-RPC errors with HTTP 400:
// batches (MCP removed them in 2025-06-18, and a call is admitted per
// request), a member named twice, ids that are neither strings nor
// integers of at most 53 bits (the SDK would not echo them as sent), and
// tools/call params that are not an object or arguments that are neither
// an object nor null (null and absent arguments are read as {}). The SDK's
// own plain-text refusals (an unknown method, a missing id) are rewritten
// as JSON-RPC errors carrying the request's id, or as problems for a
// request that is not a POST. A panic while the SDK handles a method is
// recovered, logged at ERROR, counted in catalogue_mcp_panics_total and
// answered as a JSON-RPC internal error: the SDK runs each request in a
// goroutine of its own that nothing else recovers.
//
// # Access
//
// A key is checked on every HTTP request like on REST: unknown or
// malformed is HTTP 401 with WWW-Authenticate naming the protected-resource
// metadata, revoked or not yet active 403. A tools/call with a key is also
// admitted on the key's counters: over a limit is HTTP 429, metering
// unavailable 503, both with Retry-After; the call is counted only when the
// operation answered with a success. An apify key reaches the full
// catalogue (raw integer ids, as on REST), a demo key the 40 demo cars.
//
// Without a key, requests of any kind are limited per network
// (AnonymousRequestsPerMinute, HTTP 429 network-rate-limited), and
// tools/call also by AnonymousPerMinute; a call is answered
// from the demo set, with a note on how to reach the full catalogue. What
// the demo tier does not reach gets, when payments are on, the x402
// payment-required tool result; the call repeated with a PaymentPayload in
// params._meta["x402/payment"] is answered from the full catalogue at the
// REST price, settled only when the answer is a success, and carries the
// settlement in the result's _meta["x402/payment-response"]. A key holder
// never gets a payment request and a payment it sends is ignored.
//
// Every other failure of a call (a bad argument, an unknown id) is a tool
// result with isError set and a text saying what was wrong.
//
// # Metadata
//
// The protected-resource metadata (RFC 9728) names the endpoint's public
// URL as the resource. Keys are not issued over OAuth, so there is no
// authorization server to name: authorization_servers defaults to the
// service's upgrade URL, where a person gets a key to configure in the
// client as a bearer token, and an OAuth client's discovery stops there.
package mcp
