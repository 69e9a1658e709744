// Package rollout owns the rollout of catalogue snapshots across a fleet
// of replicas: the origin that holds snapshot files under their content
// hash, the pointer naming the fleet's current hash (in Redis), Publish,
// which the operator's `catalogue publish` runs, and the Follower each
// replica runs.
//
// A snapshot's content hash is the SHA-256 of the whole file in lower-case
// hex, what sha256sum prints; it is the file's name in the origin
// (<hash>.snap), the value of the pointer and the X-Catalogue-Version of
// every response (engine.Meta.ContentHash).
//
//	publish:  FILE loads as a catalogue → Origin.Store(hash, FILE) → Pointer.Point(hash): SET and PUBLISH in one step
//	replica:  notification, poll (every few seconds) or SIGHUP → Pointer.Current → differs from the hash served?
//	          → fetch <hash>.snap to a temporary file, hashing while writing → verify → load → install (swap)
//	          a fetch, verification or load failure keeps the old catalogue, is logged and retried with backoff
//
// Every wait on an HTTP origin is bounded (HTTPOptions: the connection, the
// TLS handshake, the response's headers, each stretch of a body), a
// redirect is followed within the origin's host only unless another host is
// allowed, and a newer pointer (a rollback) cancels a fetch in progress.
// No origin is read past the largest file a snapshot can be; such a file
// (ErrTooLarge) is not fetched again until the follower is woken (a
// notification or SIGHUP), since its hash names the same bytes.
//
// Pub/sub drops the messages sent while a subscriber is disconnected, so a
// notification only shortens the wait: the pointer is also polled, and
// read again after every resubscription. A rollback is pointing the fleet
// at an earlier hash again (catalogue publish -hash HEX); a replica keeps
// the file it served before the current one, so it rolls back without a
// download.
//
// The package imports loader and engine, never httpd: a replica installs
// through the function it is given.
package rollout
