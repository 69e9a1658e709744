// Package httpd is the operations layer of the catalogue service and its
// REST transport on fasthttp.
//
// A request flows: the edge (edge.go) refuses what no route may see; the
// route table (server.go) finds the operation; the REST adapter (rest.go)
// authenticates and admits the key (admit.go), or sells a keyless call of
// a payable operation with x402 (payable.go); the operation's parameter
// table (params.go) parses the path and query into typed Params; the
// operation (operation.go) answers from the full catalogue (browse.go,
// variants.go, filters.go, search.go, account.go) or, for demo keys, from
// the pre-rendered demo view (demo.go, demo_ops.go), rendering into the
// pooled request (request.go, render.go); REST sends the body with its
// caching headers and content coding (respond.go) or writes the returned
// *Error as an RFC 9457 problem (problem.go).
//
// The MCP adapter (httpd/mcp) calls the same operations through
// Service.Call (call.go) with a tool's JSON arguments, parsed by the same
// tables, and writes the same *Error as a tool error.
//
// Every call loads the Service's view (an atomic.Pointer[view] that
// Install swaps: the catalogue and what the edge derives from it) once and
// answers from that one catalogue, so a reload never mixes snapshots.
//
// A new operation is one declaration in operation.go (route, parameter
// table, full and demo answers) and its two functions; a new transport
// parses its arguments with the operation's table and writes *Error in its
// own form, as call.go does for MCP.
//
// The package imports engine and its own subpackages. Of those, only
// httpd/mcp and the test support httpd/httpdtest import httpd back.
package httpd
