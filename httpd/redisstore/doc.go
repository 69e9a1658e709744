// Package redisstore keeps the access state of a fleet of catalogued
// replicas in one shared Redis: API keys, their metering windows, the
// per-network windows, demo key requests and activation tokens (the
// access.Backend half), and x402 nonces, receipts and payments of unknown
// outcome (the x402.Ledger half). It is selected with
// -store redis://HOST:PORT/DB (rediss:// for TLS, user and password in the
// URL for AUTH).
//
// Every operation that must be atomic across replicas is one round trip
// that Redis runs alone: the three windows of a key are metered by one Lua
// script on the server's clock (TIME), which counts nothing when any
// window is full; an activation token is burned with GETDEL; one key per
// email is SET NX; an x402 (payer, nonce) is claimed with SET NX and an
// expiry before the call is served. Key records are read through rueidis'
// client-side cache, which Redis invalidates (CLIENT TRACKING) when a key
// changes, so a revoke holds on every replica within a round trip.
// Concurrent calls share round trips (rueidis auto-pipelining), and so
// share Redis' fsync of the append-only file.
//
// Every call runs under a deadline (Options.Timeout). Its errors wrap
// access.ErrUnavailable: the caller refuses the request with 503. Scripts
// that write are never retried by the client: a timeout means "may have
// run", and the request is refused, so a count can be too high, never too
// low.
//
// The package imports access, x402 and rueidis; nothing in httpd imports
// it (cmd/catalogued and cmd/catalogue choose the store).
package redisstore
