package eip3009

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// FuzzRecover feeds arbitrary digests and signatures to Recover (and to
// ParseSignature, when the bytes are not 65 long). It must never panic, and
// whatever it accepts must be in the canonical form.
func FuzzRecover(f *testing.F) {
	digest, _ := hex.DecodeString(vecDigest)
	sig, _ := ParseSignature(vecSignature)
	f.Add(digest, sig[:])
	hs := highS(sig)
	f.Add(digest, hs[:])
	v0 := sig
	v0[64] = 0
	f.Add(digest, v0[:])
	f.Add([]byte{}, []byte(vecSignature))
	f.Add(make([]byte, 32), make([]byte, 65))
	f.Fuzz(func(t *testing.T, digestIn, sigIn []byte) {
		var d [32]byte
		copy(d[:], digestIn)
		var s [65]byte
		if len(sigIn) == len(s) {
			copy(s[:], sigIn)
		} else {
			var err error
			s, err = ParseSignature(string(sigIn))
			if err != nil {
				if !errors.Is(err, ErrSignature) {
					t.Fatalf("ParseSignature error %v does not wrap ErrSignature", err)
				}
				copy(s[:], sigIn)
			}
		}
		addr, err := Recover(d, s)
		if err != nil {
			if !errors.Is(err, ErrSignature) {
				t.Fatalf("Recover error %v does not wrap ErrSignature", err)
			}
			return
		}
		if v := s[64]; v != 27 && v != 28 {
			t.Fatalf("Recover accepted v=%d", v)
		}
		var sc secp256k1.ModNScalar
		if sc.SetByteSlice(s[32:64]) || sc.IsZero() || sc.IsOverHalfOrder() {
			t.Fatalf("Recover accepted s=%x", s[32:64])
		}
		if !strings.HasPrefix(addr.String(), "0x") {
			t.Fatalf("bad address %s", addr)
		}
	})
}

// FuzzParseAuthorization must never panic; what it accepts must be valid,
// digestible and round-trip to its canonical text.
func FuzzParseAuthorization(f *testing.F) {
	f.Add(vecFrom, vecTo, vecValue, vecValidAfter, vecValidBefore, vecNonce)
	f.Add(vecFrom, vecTo, "-1", "+0", "0x10", vecNonce[:10])
	f.Add("0x", "", "00000", "115792089237316195423570985008687907853269984665640564039457584007913129639936", "1e9", "0X"+vecNonce[2:])
	d := Domain{Name: "USD Coin", Version: "2", ChainID: 8453}
	f.Fuzz(func(t *testing.T, from, to, value, validAfter, validBefore, nonce string) {
		a, err := ParseAuthorization(from, to, value, validAfter, validBefore, nonce)
		if err != nil {
			if !errors.Is(err, ErrAuthorization) {
				t.Fatalf("error %v does not wrap ErrAuthorization", err)
			}
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("ParseAuthorization returned an invalid authorization: %v", err)
		}
		_ = a.Digest(d)
		canon := func(s string) string {
			s = strings.TrimLeft(s, "0")
			if s == "" {
				return "0"
			}
			return s
		}
		if a.Value.String() != canon(value) || a.ValidAfter.String() != canon(validAfter) || a.ValidBefore.String() != canon(validBefore) {
			t.Fatalf("ints %s %s %s do not round-trip %q %q %q", a.Value, a.ValidAfter, a.ValidBefore, value, validAfter, validBefore)
		}
		if !strings.EqualFold(a.From.String(), from) || !strings.EqualFold(a.To.String(), to) {
			t.Fatalf("addresses %s %s do not round-trip %q %q", a.From, a.To, from, to)
		}
		if "0x"+hex.EncodeToString(a.Nonce[:]) != strings.ToLower(nonce) {
			t.Fatalf("nonce %x does not round-trip %q", a.Nonce, nonce)
		}
	})
}
