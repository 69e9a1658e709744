// Package openapi owns the machine-readable description of the API: the
// OpenAPI 3.1 document served at /v1/openapi.json, built as data from what
// the server decides (parameters, bounds, allowed values, the decisions the
// contract leaves open) with examples rendered from the real catalogue, and
// the self-contained HTML page served at /v1/docs.
//
// It imports only the standard library; httpd gives it the examples.
package openapi
