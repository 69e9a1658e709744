// Package publicid owns the identifiers the API shows instead of internal
// ids: opaque tokens for variants (v_), generations (g_) and models (m_),
// and sealed pagination cursors (c_).
//
// A token is "v_" (or "g_", "m_") and 8 lowercase hex digits: a keyed
// pseudo-random permutation of one 32-bit block holding the entity kind's
// tag (8 bits) and its stable id (24 bits). Because the kind is inside the
// enciphered block, a token of one kind can never decode as another kind,
// and neighbouring ids give unrelated tokens. The permutation is an 8-round
// balanced Feistel network whose round function is SipHash-2-4 keyed from
// the secret; it is a bijection for any key, so no table is needed and
// tokens survive snapshot reloads as long as the secret stays.
//
// A cursor is "c_" and base64url of a list position sealed with a SipHash
// MAC that binds it to the route and its parameters: a cursor cannot be
// forged, and one replayed on another route or with other parameters is
// rejected (the API then restarts at the first page, as the contract says).
//
// The package imports only the standard library.
package publicid
