// Package httpd is the HTTP edge of the catalogue service on fasthttp: the
// /v1 routes, RFC 9457 problem responses and the rendering of responses from
// the engine's columns. Every request loads the Service's view (an
// atomic.Pointer[view] that Install swaps: the catalogue and what the edge
// derives from it) once and answers from that one catalogue, so a reload
// never mixes snapshots.
//
// The package imports engine and its own subpackages. Of those, only
// httpd/mcp (the agent tool surface, which answers through Service.Invoke
// with these same handlers) and the test support httpd/httpdtest import
// httpd back.
package httpd
