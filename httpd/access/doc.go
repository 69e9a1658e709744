// Package access owns who may call the API: plans (demo, apify, free), API
// keys and their states (not yet active, active, revoked), and the durable
// store they live in.
//
// Keys are kept in an embedded database file (bbolt) under the state
// directory and loaded into memory at open, so a request's key check is a
// hash and a map lookup that never waits on the disk. Only the SHA-256 of a
// key is stored; the key itself is shown once, when it is created. Writes
// (create, revoke, activate) go to the file first and then replace the
// in-memory index atomically.
//
// Backend is the interface of this half of the access state (keys,
// metering and network windows, the demo key flow) that the server calls;
// Store is its embedded implementation, for one process. Package
// redisstore implements it for a fleet of replicas sharing one Redis, and
// package state joins it with the payment half (x402.Ledger).
//
// The package imports the standard library, bbolt and httpd/boltfile; it
// must not import httpd or the engine.
package access
