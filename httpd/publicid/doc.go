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
// A cursor is "c_" and base64url of a list position sealed with
// ChaCha20-Poly1305 (golang.org/x/crypto): a version byte, a 12-byte
// synthetic nonce (a SipHash PRF of the binding and the position, so no
// randomness is needed and equal positions give equal cursors), the
// encrypted position and the 16-byte tag. The binding (route, path
// parameter, query, locale and tier, hashed by BindingHash) is the
// additional data: a cursor cannot be forged or read, no byte of it
// reveals an id or a name, and one replayed on another list fails to open
// (the API then restarts at the first page, as the contract says). The
// AEAD key and the nonce keys are derived from the secret with distinct
// labels, independent of the token permutation's keys.
//
// The package imports the standard library and
// golang.org/x/crypto/chacha20poly1305 only.
package publicid
