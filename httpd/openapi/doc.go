// Package openapi owns the machine-readable description of the API: the
// OpenAPI 3.1 document served at /v1/openapi.json, built as data from what
// the server decides (parameters, bounds, allowed values, the decisions the
// contract leaves open) with examples rendered from the real catalogue and
// a curl command for every operation, and the page served at /v1/docs,
// which renders it with the Redoc bundle embedded in package reference.
//
// It imports only the standard library and reference; httpd gives it the
// examples.
package openapi
