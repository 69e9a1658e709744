package eip3009

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// Sentinel errors. Every error returned by the package wraps exactly one of
// them (ParseAuthorization's errors for From and To wrap ErrAddress too),
// so that a caller can map them with errors.Is.
var (
	// ErrAddress reports a malformed address.
	ErrAddress = errors.New("invalid address")

	// ErrAuthorization reports a malformed or out-of-range authorization
	// field. The message names the field.
	ErrAuthorization = errors.New("invalid authorization")

	// ErrSignature reports any signature problem: malformed hex, wrong
	// length, v not 27 or 28, r or s out of range, high s, or no public key
	// recoverable.
	ErrSignature = errors.New("invalid signature")
)

// EIP-712 type strings of the domain and of the message.
const (
	domainType   = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
	transferType = "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
)

// domainTypeHash is keccak256(domainType); the test recomputes it.
var domainTypeHash = [32]byte{
	0x8b, 0x73, 0xc3, 0xc6, 0x9b, 0xb8, 0xfe, 0x3d, 0x51, 0x2e, 0xcc, 0x4c, 0xf7, 0x59, 0xcc, 0x79,
	0x23, 0x9f, 0x7b, 0x17, 0x9b, 0x0f, 0xfa, 0xca, 0xa9, 0xa7, 0x5d, 0x52, 0x2b, 0x39, 0x40, 0x0f,
}

// transferTypeHash is keccak256(transferType); the test recomputes it.
var transferTypeHash = [32]byte{
	0x7c, 0x7c, 0x6c, 0xdb, 0x67, 0xa1, 0x87, 0x43, 0xf4, 0x9e, 0xc6, 0xfa, 0x9b, 0x35, 0xf5, 0x0d,
	0x52, 0xed, 0x05, 0xcb, 0xed, 0x4c, 0xc5, 0x92, 0xe1, 0x3b, 0x44, 0x50, 0x1c, 0x1a, 0x22, 0x67,
}

// Address is a 20-byte EVM account address. It is comparable with ==.
type Address [20]byte

// ParseAddress parses "0x" followed by exactly 40 hex digits of any case.
// The EIP-55 checksum of mixed-case input is not checked, since x402
// clients and servers compare addresses case-insensitively.
func ParseAddress(s string) (Address, error) {
	var a Address
	if err := parseHex(a[:], s); err != nil {
		return a, fmt.Errorf("%w: %w", ErrAddress, err)
	}
	return a, nil
}

// String returns the EIP-55 checksummed form of a: "0x" and 40 hex digits
// whose letters are upper-cased where the Keccak-256 of the lower-case hex
// has a nibble >= 8.
func (a Address) String() string {
	const digits = "0123456789abcdef"
	k := getKeccak()
	lower := k.buf[:40]
	for i, b := range a {
		lower[2*i] = digits[b>>4]
		lower[2*i+1] = digits[b&0x0f]
	}
	h := k.sum(lower)
	var buf [42]byte
	buf[0], buf[1] = '0', 'x'
	for i, c := range lower {
		nibble := h[i/2] >> 4
		if i%2 == 1 {
			nibble = h[i/2] & 0x0f
		}
		if c >= 'a' && nibble >= 8 {
			c -= 'a' - 'A'
		}
		buf[2+i] = c
	}
	putKeccak(k)
	return string(buf[:])
}

// Domain is the EIP-712 domain of the token contract: for USDC its name
// ("USD Coin" on Base mainnet, "USDC" on Base Sepolia), version ("2"),
// chain id and address.
type Domain struct {
	Name              string
	Version           string
	ChainID           uint64
	VerifyingContract Address
}

// Separator returns the EIP-712 domain separator of d. It is constant for a
// domain; a caller that verifies many payments may compute it once and use
// Authorization.DigestWithSeparator.
func (d Domain) Separator() [32]byte {
	k := getKeccak()
	buf := k.buf[:5*32]
	copy(buf[0:32], domainTypeHash[:])
	k.scratch = append(k.scratch[:0], d.Name...)
	nameHash := k.sum(k.scratch)
	copy(buf[32:64], nameHash[:])
	k.scratch = append(k.scratch[:0], d.Version...)
	versionHash := k.sum(k.scratch)
	copy(buf[64:96], versionHash[:])
	clear(buf[96:120])
	binary.BigEndian.PutUint64(buf[120:128], d.ChainID)
	putAddressWord(buf[128:160], d.VerifyingContract)
	h := k.sum(buf)
	putKeccak(k)
	return h
}

// Authorization is the EIP-3009 TransferWithAuthorization message: From
// lets To take Value atomic units of the token once, between ValidAfter and
// ValidBefore (unix seconds, both exclusive on chain), under the unique
// Nonce.
//
// Value, ValidAfter and ValidBefore are uint256: non-nil, non-negative and
// below 2^256. ParseAuthorization guarantees it; a caller that fills the
// struct itself must check Validate before calling Digest.
type Authorization struct {
	From        Address
	To          Address
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       [32]byte
}

// ParseAuthorization parses the string fields of an x402 `exact` EVM payload
// (payload.authorization): addresses as for ParseAddress; value, validAfter
// and validBefore as unsigned decimal integers below 2^256 (digits only, no
// sign; leading zeros are accepted, as the reference SDKs accept them); and
// nonce as "0x" followed by 64 hex digits.
//
// The returned errors wrap ErrAuthorization and name the field.
func ParseAuthorization(from, to, value, validAfter, validBefore, nonce string) (Authorization, error) {
	var a Authorization
	var err error
	if a.From, err = ParseAddress(from); err != nil {
		return Authorization{}, fmt.Errorf("%w: from: %w", ErrAuthorization, err)
	}
	if a.To, err = ParseAddress(to); err != nil {
		return Authorization{}, fmt.Errorf("%w: to: %w", ErrAuthorization, err)
	}
	if a.Value, err = parseUint256(value); err != nil {
		return Authorization{}, fmt.Errorf("%w: value: %w", ErrAuthorization, err)
	}
	if a.ValidAfter, err = parseUint256(validAfter); err != nil {
		return Authorization{}, fmt.Errorf("%w: validAfter: %w", ErrAuthorization, err)
	}
	if a.ValidBefore, err = parseUint256(validBefore); err != nil {
		return Authorization{}, fmt.Errorf("%w: validBefore: %w", ErrAuthorization, err)
	}
	if err = parseHex(a.Nonce[:], nonce); err != nil {
		return Authorization{}, fmt.Errorf("%w: nonce: %w", ErrAuthorization, err)
	}
	return a, nil
}

// Validate reports whether Value, ValidAfter and ValidBefore are uint256
// values, with an error wrapping ErrAuthorization that names the field.
func (a Authorization) Validate() error {
	if err := checkUint256(a.Value); err != nil {
		return fmt.Errorf("%w: value: %w", ErrAuthorization, err)
	}
	if err := checkUint256(a.ValidAfter); err != nil {
		return fmt.Errorf("%w: validAfter: %w", ErrAuthorization, err)
	}
	if err := checkUint256(a.ValidBefore); err != nil {
		return fmt.Errorf("%w: validBefore: %w", ErrAuthorization, err)
	}
	return nil
}

// Digest returns the EIP-712 digest of a under the domain d:
// keccak256(0x19 0x01 ‖ d.Separator() ‖ structHash(a)). This is the hash the
// payer signed.
//
// The caller must ensure that a is valid (see Validate); Digest panics
// otherwise. ParseAuthorization returns only valid authorizations.
func (a Authorization) Digest(d Domain) [32]byte {
	return a.DigestWithSeparator(d.Separator())
}

// DigestWithSeparator is Digest with a domain separator the caller computed
// once with Domain.Separator. It saves three of the five Keccak-256 runs.
//
// The caller must ensure that a is valid (see Validate); it panics
// otherwise.
func (a Authorization) DigestWithSeparator(separator [32]byte) [32]byte {
	if err := a.Validate(); err != nil {
		panic(fmt.Sprintf("BUG: eip3009: Digest of an invalid authorization: %s", err))
	}
	k := getKeccak()
	buf := k.buf[:7*32]
	copy(buf[0:32], transferTypeHash[:])
	putAddressWord(buf[32:64], a.From)
	putAddressWord(buf[64:96], a.To)
	a.Value.FillBytes(buf[96:128])
	a.ValidAfter.FillBytes(buf[128:160])
	a.ValidBefore.FillBytes(buf[160:192])
	copy(buf[192:224], a.Nonce[:])
	structHash := k.sum(buf)

	buf = k.buf[:2+2*32]
	buf[0], buf[1] = 0x19, 0x01
	copy(buf[2:34], separator[:])
	copy(buf[34:66], structHash[:])
	h := k.sum(buf)
	putKeccak(k)
	return h
}

// ParseSignature parses "0x" followed by exactly 130 hex digits (65 bytes,
// r ‖ s ‖ v). It does not check the values; Recover does.
// The returned errors wrap ErrSignature.
func ParseSignature(s string) ([65]byte, error) {
	var sig [65]byte
	if err := parseHex(sig[:], s); err != nil {
		return sig, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	return sig, nil
}

// Recover returns the address whose key produced sig (r ‖ s ‖ v) over
// digest. It accepts v 27 or 28 only (not the raw recovery ids 0 and 1, nor
// EIP-155 values), r and s in [1, n-1], and s ≤ n/2; the errors wrap
// ErrSignature.
//
// A nil error does not mean the payment is valid: the caller must compare
// the result with the claimed signer (Authorization.From).
func Recover(digest [32]byte, sig [65]byte) (Address, error) {
	v := sig[64]
	switch v {
	case 27, 28:
	case 0, 1:
		return Address{}, fmt.Errorf("%w: v is %d, want 27 or 28 (raw recovery ids 0 and 1 are rejected, as USDC rejects them)", ErrSignature, v)
	default:
		return Address{}, fmt.Errorf("%w: v is %d, want 27 or 28", ErrSignature, v)
	}
	var r, s secp256k1.ModNScalar
	if r.SetByteSlice(sig[0:32]) {
		return Address{}, fmt.Errorf("%w: r is not below the curve order n", ErrSignature)
	}
	if r.IsZero() {
		return Address{}, fmt.Errorf("%w: r is zero", ErrSignature)
	}
	if s.SetByteSlice(sig[32:64]) {
		return Address{}, fmt.Errorf("%w: s is not below the curve order n", ErrSignature)
	}
	if s.IsZero() {
		return Address{}, fmt.Errorf("%w: s is zero", ErrSignature)
	}
	if s.IsOverHalfOrder() {
		return Address{}, fmt.Errorf("%w: s is above n/2 (high-s signatures are malleable and rejected, as USDC rejects them)", ErrSignature)
	}

	// decred's compact form is [27+recid] ‖ r ‖ s; Ethereum's v is 27+recid.
	var compact [65]byte
	compact[0] = v
	copy(compact[1:], sig[:64])
	pub, _, err := ecdsa.RecoverCompact(compact[:], digest[:])
	if err != nil {
		return Address{}, fmt.Errorf("%w: cannot recover public key: %w", ErrSignature, err)
	}
	return pubKeyAddress(pub), nil
}

// pubKeyAddress returns the last 20 bytes of the Keccak-256 of the 64-byte
// uncompressed public key X ‖ Y.
func pubKeyAddress(pub *secp256k1.PublicKey) Address {
	var p secp256k1.JacobianPoint
	pub.AsJacobian(&p) // Z is 1 and X, Y are normalized.
	k := getKeccak()
	buf := k.buf[:64]
	p.X.PutBytesUnchecked(buf[0:32])
	p.Y.PutBytesUnchecked(buf[32:64])
	h := k.sum(buf)
	putKeccak(k)
	var a Address
	copy(a[:], h[12:])
	return a
}

func putAddressWord(dst []byte, a Address) {
	clear(dst[:12])
	copy(dst[12:32], a[:])
}

var (
	errNotUint256 = errors.New("not an unsigned decimal integer")
	errOverflow   = errors.New("does not fit in uint256 (must be below 2^256)")
)

// maxUint256Digits is the number of decimal digits of 2^256-1.
const maxUint256Digits = 78

// parseUint256 parses an unsigned decimal integer below 2^256.
func parseUint256(s string) (*big.Int, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: empty", errNotUint256)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			return nil, fmt.Errorf("%w: non-digit at offset %d", errNotUint256, i)
		}
	}
	t := s
	for len(t) > 1 && t[0] == '0' {
		t = t[1:]
	}
	if len(t) > maxUint256Digits {
		return nil, errOverflow
	}
	n, ok := new(big.Int).SetString(t, 10)
	if !ok {
		panic("BUG: eip3009: big.Int rejected a digit string")
	}
	if n.BitLen() > 256 {
		return nil, errOverflow
	}
	return n, nil
}

func checkUint256(n *big.Int) error {
	switch {
	case n == nil:
		return errors.New("is nil")
	case n.Sign() < 0:
		return errors.New("is negative")
	case n.BitLen() > 256:
		return errOverflow
	}
	return nil
}

// parseHex decodes "0x" followed by exactly 2*len(dst) hex digits of any
// case into dst.
func parseHex(dst []byte, s string) error {
	if len(s) != 2+2*len(dst) {
		return fmt.Errorf("want \"0x\" and %d hex digits, got %d characters", 2*len(dst), len(s))
	}
	if s[0] != '0' || s[1] != 'x' {
		return errors.New("missing \"0x\" prefix")
	}
	for i := range dst {
		hi, ok1 := unhex(s[2+2*i])
		lo, ok2 := unhex(s[3+2*i])
		if !ok1 || !ok2 {
			off := 2 + 2*i
			if ok1 {
				off++
			}
			return fmt.Errorf("non-hex character at offset %d", off)
		}
		dst[i] = hi<<4 | lo
	}
	return nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// keccak is a pooled Keccak-256 state with scratch space, so that hashing
// does not allocate.
type keccak struct {
	h       hash.Hash
	buf     [7 * 32]byte
	out     [32]byte
	scratch []byte
}

var keccakPool sync.Pool

func getKeccak() *keccak {
	if v := keccakPool.Get(); v != nil {
		return v.(*keccak)
	}
	return &keccak{h: sha3.NewLegacyKeccak256()}
}

func putKeccak(k *keccak) {
	if cap(k.scratch) > 1024 {
		k.scratch = nil // do not pin a huge domain name
	}
	keccakPool.Put(k)
}

// sum returns keccak256(b).
func (k *keccak) sum(b []byte) [32]byte {
	k.h.Reset()
	k.h.Write(b)
	k.h.Sum(k.out[:0])
	return k.out
}
