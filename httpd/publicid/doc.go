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
// tokens survive snapshot reloads as long as the secret stays. The last
// 4,096 tokens decoded to an entity are remembered (token and block, in the
// slot of the token's low bits), so a token asked for again costs a load,
// not the eight rounds (about 20 ns against 190 ns).
//
// A cursor is "c_" and unpadded base64url of a list position sealed with
// ChaCha20-Poly1305 (golang.org/x/crypto/chacha20poly1305): a version byte
// (2), a 12-byte nonce, the encrypted position and the 16-byte tag, so
// 29 bytes more than the position (a 4-byte position gives a 46-character
// cursor). The additional data is the version byte and the list's binding:
// BindingHash of the parts httpd names (the tier, demo or full catalogue;
// the route; its path parameter or query text, such as the canonical filter
// or the folded search text; the locale), every byte of every part counted.
// So no byte of a cursor reveals an id or a name, a cursor cannot be forged
// or altered (the text is strict: one spelling per cursor), and one
// replayed on another list, in another tier or locale, or made by another
// secret fails to open, as do cursors of format 1 (the position in the
// clear with a SipHash MAC). A cursor that fails to open is no error: the
// API restarts the list at its first page, as the contract says.
//
// The nonce is synthetic, SIV-style: 96 bits of SipHash-2-4 PRFs of the
// binding and the position. No randomness is needed on the hot path and
// equal positions of one list give equal cursors. This is safe because the
// plaintext is only a list position: a nonce repeats only for the same
// binding and position, which seal to the same cursor, so determinism
// reveals no more than that two cursors of one list stand at the same
// place; two different inputs share a nonce with probability 2^-96.
//
// All keys come from the one secret by HMAC-SHA-256 over distinct labels:
// the Feistel round keys, the binding key, the nonce keys and the AEAD key
// are independent of one another. Sealing and opening allocate nothing
// (the AEAD's buffers come from a pool); rotating the secret invalidates
// every token and cursor.
//
// The package imports the standard library,
// golang.org/x/crypto/chacha20poly1305 and httpd/secret only.
package publicid
