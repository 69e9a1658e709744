package publicid

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/vspec/catalogue/httpd/secret"
)

// Kind is the kind of entity a token names.
type Kind uint8

// Token kinds. The values are the tags enciphered with the id; changing
// them changes every token.
const (
	Variant    Kind = 0x56 // 'V'
	Generation Kind = 0x47 // 'G'
	Model      Kind = 0x4d // 'M'
)

// Prefix returns the token prefix of the kind: "v_", "g_" or "m_".
func (k Kind) Prefix() string {
	switch k {
	case Variant:
		return "v_"
	case Generation:
		return "g_"
	case Model:
		return "m_"
	}
	panic("BUG: unknown token kind")
}

// MaxID is the largest stable id a token can carry (24 bits).
const MaxID = 1<<24 - 1

// TokenLen is the length of every entity token.
const TokenLen = 10

const rounds = 8

// memoSlots is how many decoded tokens a Codec remembers (a power of two).
const memoSlots = 4096

// Codec encodes and decodes tokens and cursors with one secret. Its keys
// are immutable; it is safe for concurrent use.
type Codec struct {
	round [rounds]sipKey // Feistel round keys
	// memo remembers tokens decoded lately, each as token<<32 | block in
	// the slot of the token's low bits (0: empty), so the 8 SipHash
	// rounds of a token asked for again (a popular variant) are not
	// recomputed: a hit costs a load and a compare, a miss the rounds
	// (issue 20). Only tokens that decode to an entity are stored, so a
	// client spraying made-up tokens cannot evict the others'.
	memo   [memoSlots]atomic.Uint64
	cursor sipKey    // binding hash key
	long   [2]sipKey // digest keys of long binding parts
	// Cursors are sealed with ChaCha20-Poly1305 under seal, with a
	// synthetic nonce: two SipHash PRFs (nonce[0], nonce[1]) of the
	// binding and the position, see AppendCursor.
	seal  cipher.AEAD
	nonce [2]sipKey
}

// SecretSize is the size of a secret in bytes.
const SecretSize = 32

// New returns a codec keyed by secret, which must be at least SecretSize
// bytes of high entropy.
func New(secret []byte) (*Codec, error) {
	if len(secret) < SecretSize {
		return nil, fmt.Errorf("token secret is %d bytes, at least %d are required", len(secret), SecretSize)
	}
	c := &Codec{}
	derive := func(label string) sipKey {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte("vspec/publicid/v1/" + label))
		return sipKeyFrom(m.Sum(nil))
	}
	for i := range c.round {
		c.round[i] = derive(fmt.Sprintf("round/%d", i))
	}
	c.cursor = derive("cursor")
	c.long = [2]sipKey{derive("binding-long/0"), derive("binding-long/1")}
	c.nonce = [2]sipKey{derive("cursor-nonce/0"), derive("cursor-nonce/1")}
	// The AEAD key: HMAC-SHA-256 of the secret over its own label, so it
	// is independent of every SipHash key above.
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("vspec/publicid/v2/cursor-seal"))
	aead, err := chacha20poly1305.New(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	c.seal = aead
	return c, nil
}

func (c *Codec) f(i int, half uint32) uint32 {
	return uint32(c.round[i].sum64Uint64(uint64(half)|uint64(i)<<16)) & 0xffff
}

// permute enciphers a 32-bit block.
func (c *Codec) permute(x uint32) uint32 {
	l, r := x>>16, x&0xffff
	for i := 0; i < rounds; i++ {
		l, r = r, l^c.f(i, r)
	}
	return l<<16 | r
}

// unpermute deciphers a 32-bit block.
func (c *Codec) unpermute(x uint32) uint32 {
	l, r := x>>16, x&0xffff
	for i := rounds - 1; i >= 0; i-- {
		l, r = r^c.f(i, l), l
	}
	return l<<16 | r
}

// Encode returns the 32-bit token value of the entity. id must be at most
// MaxID.
func (c *Codec) Encode(kind Kind, id uint32) uint32 {
	if id > MaxID {
		panic("BUG: stable id does not fit in 24 bits")
	}
	return c.permute(uint32(kind)<<24 | id)
}

// Decode returns the stable id a token value carries, and false when the
// value is not a token of this kind.
func (c *Codec) Decode(kind Kind, token uint32) (uint32, bool) {
	slot := &c.memo[token&(memoSlots-1)]
	e := slot.Load()
	x, hit := uint32(e), e != 0 && uint32(e>>32) == token
	if !hit {
		x = c.unpermute(token)
	}
	if Kind(x>>24) != kind || x&MaxID == 0 {
		return 0, false
	}
	if !hit { // stored on a miss only: a hit writes no shared cache line
		slot.Store(uint64(token)<<32 | uint64(x))
	}
	return x & MaxID, true
}

const hexDigits = "0123456789abcdef"

// AppendTokenValue appends the text form of a token value: prefix and 8
// lowercase hex digits.
func AppendTokenValue(dst []byte, kind Kind, token uint32) []byte {
	dst = append(dst, kind.Prefix()...)
	for s := 28; s >= 0; s -= 4 {
		dst = append(dst, hexDigits[token>>uint(s)&0xf])
	}
	return dst
}

// AppendToken appends the token of an entity.
func (c *Codec) AppendToken(dst []byte, kind Kind, id uint32) []byte {
	return AppendTokenValue(dst, kind, c.Encode(kind, id))
}

// Token returns the token of an entity as a string.
func (c *Codec) Token(kind Kind, id uint32) string {
	return string(c.AppendToken(make([]byte, 0, TokenLen), kind, id))
}

// Parse decodes a token strictly: the kind's prefix, exactly 8 lowercase
// hex digits, and a block that deciphers to this kind. Anything else is
// false.
func (c *Codec) Parse(kind Kind, s []byte) (uint32, bool) {
	if len(s) != TokenLen || s[0] != kind.Prefix()[0] || s[1] != '_' {
		return 0, false
	}
	var v uint32
	for _, ch := range s[2:] {
		switch {
		case ch >= '0' && ch <= '9':
			v = v<<4 | uint32(ch-'0')
		case ch >= 'a' && ch <= 'f':
			v = v<<4 | uint32(ch-'a'+10)
		default:
			return 0, false
		}
	}
	return c.Decode(kind, v)
}

// ParseString is Parse for a string.
func (c *Codec) ParseString(kind Kind, s string) (uint32, bool) {
	if len(s) != TokenLen {
		return 0, false
	}
	var b [TokenLen]byte
	copy(b[:], s)
	return c.Parse(kind, b[:])
}

// Cursors.

// cursorVersion is the first byte of a sealed cursor, and the first byte of
// its additional data. Version 1 was a position in the clear with a MAC;
// its cursors no longer open.
const cursorVersion = 2

// MaxPosition is the largest cursor position in bytes.
const MaxPosition = 256

const (
	nonceSize = chacha20poly1305.NonceSize // 12
	tagSize   = chacha20poly1305.Overhead  // 16
	adSize    = 1 + 8                      // version and binding
	maxRaw    = 1 + nonceSize + MaxPosition + tagSize
)

// b64 is strict: the padding bits of the last character must be zero, so
// a sealed cursor has exactly one text form (OpenCursor also refuses the
// line breaks the decoder would skip).
var b64 = base64.RawURLEncoding.Strict()

// cursorScratch holds what sealing and opening hand to the AEAD. The AEAD
// is called through an interface, to which any stack buffer would escape,
// so these arrays live in pooled scratch instead: nothing is allocated per
// call, and each goroutine works on its own scratch.
type cursorScratch struct {
	raw   [maxRaw]byte
	out   [MaxPosition]byte
	ad    [adSize]byte
	nonce [nonceSize]byte
}

var scratchPool = sync.Pool{New: func() any { return new(cursorScratch) }}

// CursorLen returns the length of the cursor of a position of n bytes:
// "c_" and base64url (no padding) of 29+n bytes (46 for a 4-byte position).
func CursorLen(n int) int { return 2 + b64.EncodedLen(1+nonceSize+n+tagSize) }

// AppendCursor appends "c_" and the sealed position: base64url (no
// padding) of the version byte, a 12-byte nonce, and the position encrypted
// and authenticated with ChaCha20-Poly1305 (its 16-byte tag last). The
// additional data is the version byte and the binding (see BindingHash), so
// a cursor opens only for the list it was made for. No byte of a cursor
// reveals the position: not an id, not a name.
//
// The nonce is synthetic (SIV-style), so sealing needs no randomness: 96
// bits of two SipHash-2-4 PRFs, under keys of their own, of the binding and
// the position. This is safe here because the plaintext is the list
// position itself and the binding is the additional data: equal nonces
// come from equal (binding, position) pairs, which seal to the very same
// cursor, so a deterministic nonce reveals only that two cursors of one
// list stand at the same position. Two different pairs share a nonce with
// probability 2^-96 (the birthday bound is 2^48 cursors), so a nonce is
// never reused with another plaintext in practice. The nonce itself is a
// PRF output and says nothing about the position.
func (c *Codec) AppendCursor(dst []byte, binding uint64, position []byte) []byte {
	if len(position) > MaxPosition {
		panic("BUG: cursor position too long")
	}
	sc := scratchPool.Get().(*cursorScratch)
	defer scratchPool.Put(sc)
	c.cursorAD(&sc.ad, binding)
	c.cursorNonce(&sc.nonce, binding, position)
	raw := append(sc.raw[:0], cursorVersion)
	raw = append(raw, sc.nonce[:]...)
	n := copy(sc.out[:], position)
	raw = c.seal.Seal(raw, sc.nonce[:], sc.out[:n], sc.ad[:])
	dst = append(dst, "c_"...)
	k := len(dst)
	dst = append(dst, make([]byte, b64.EncodedLen(len(raw)))...)
	b64.Encode(dst[k:], raw)
	return dst
}

// cursorAD writes a cursor's additional data: the version and the binding.
func (c *Codec) cursorAD(ad *[adSize]byte, binding uint64) {
	ad[0] = cursorVersion
	binary.LittleEndian.PutUint64(ad[1:], binding)
}

// cursorNonce derives the synthetic nonce of a position in a list.
func (c *Codec) cursorNonce(dst *[nonceSize]byte, binding uint64, position []byte) {
	var msg [8 + MaxPosition]byte
	m := binary.LittleEndian.AppendUint64(msg[:0], binding)
	m = append(m, position...)
	binary.LittleEndian.PutUint64(dst[0:8], c.nonce[0].sum64(m))
	binary.LittleEndian.PutUint32(dst[8:12], uint32(c.nonce[1].sum64(m)))
}

// OpenCursor opens a cursor against the binding and returns the position
// it holds, appended to dst. false means the cursor is unreadable, forged,
// tampered with, of an older format, or belongs to another list; the
// caller starts at the first page.
func (c *Codec) OpenCursor(dst []byte, s []byte, binding uint64) ([]byte, bool) {
	if len(s) < CursorLen(0) || s[0] != 'c' || s[1] != '_' || len(s) > CursorLen(MaxPosition) {
		return dst, false
	}
	sc := scratchPool.Get().(*cursorScratch)
	defer scratchPool.Put(sc)
	n, err := b64.Decode(sc.raw[:], s[2:])
	// The length check refuses the CR and LF the decoder skips: one text
	// per cursor.
	if err != nil || n < 1+nonceSize+tagSize || len(s) != 2+b64.EncodedLen(n) || sc.raw[0] != cursorVersion {
		return dst, false
	}
	c.cursorAD(&sc.ad, binding)
	pos, err := c.seal.Open(sc.out[:0], sc.raw[1:1+nonceSize], sc.raw[1+nonceSize:n], sc.ad[:])
	if err != nil {
		return dst, false
	}
	return append(dst, pos...), true
}

// inlinePart is the longest binding part hashed as it is; a longer one
// (a long filter or search text) is replaced by its 128-bit keyed digest.
const inlinePart = 256

// BindingHash hashes the parts identifying a list (route, tier, path
// parameter, query text, locale: whatever the caller names) into a cursor
// binding, a keyed 64-bit hash. Parts are length-prefixed, so ("ab","c")
// and ("a","bc") differ. Every byte of every part counts, however long:
// a part longer than inlinePart bytes enters as a marker and its 128-bit
// digest under two more SipHash keys, and when many parts fill the buffer
// what it holds so far is chained into an 8-byte hash. It does not
// allocate.
func (c *Codec) BindingHash(parts ...[]byte) uint64 {
	const (
		longPart  = 0xffff // marker: a digest follows
		chained   = 0xfffe // marker: the hash of the parts before follows
		maxPart   = 2 + inlinePart
		bufferLen = 2 * maxPart
	)
	var buf [bufferLen]byte
	b := buf[:0]
	for _, p := range parts {
		if len(b)+maxPart > len(buf) {
			h := c.cursor.sum64(b)
			b = binary.LittleEndian.AppendUint16(buf[:0], chained)
			b = binary.LittleEndian.AppendUint64(b, h)
		}
		if len(p) <= inlinePart {
			b = binary.LittleEndian.AppendUint16(b, uint16(len(p)))
			b = append(b, p...)
			continue
		}
		b = binary.LittleEndian.AppendUint16(b, longPart)
		b = binary.LittleEndian.AppendUint64(b, c.long[0].sum64(p))
		b = binary.LittleEndian.AppendUint64(b, c.long[1].sum64(p))
	}
	return c.cursor.sum64(b)
}

// Secrets.

// LoadSecret reads a secret from a value of the -ids.secret flag:
// "file://PATH" reads the file, anything else is taken literally; either
// must hold at least SecretSize bytes (a hex or base64 text of 32 random
// bytes qualifies).
func LoadSecret(value string) ([]byte, error) {
	value, err := secret.Read(value)
	if err != nil {
		return nil, fmt.Errorf("cannot read token secret: %w", err)
	}
	if len(value) < SecretSize {
		return nil, fmt.Errorf("token secret is %d bytes, at least %d are required", len(value), SecretSize)
	}
	return []byte(value), nil
}

// LoadOrCreateSecret returns the secret stored in the state directory,
// creating it from the system's random source on first use. The file is
// kept: tokens stay valid across restarts and reloads.
func LoadOrCreateSecret(stateDir string) ([]byte, error) {
	path := filepath.Join(stateDir, "token.secret")
	b, err := os.ReadFile(path)
	if err == nil {
		return LoadSecret(strings.TrimSpace(string(b)))
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cannot read token secret: %w", err)
	}
	var raw [SecretSize]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("cannot create token secret: %w", err)
	}
	secret := fmt.Sprintf("%x", raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) { // created concurrently: use that one
			return LoadOrCreateSecret(stateDir)
		}
		return nil, fmt.Errorf("cannot create token secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot write token secret: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return []byte(secret), f.Close()
}
