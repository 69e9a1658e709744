package eip3009

import (
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// The payload @x402/fetch 2.27.0 sent in the reference run (x402.md §1),
// signed by Anvil/Hardhat account #0 for the Base-mainnet USDC domain.
const (
	vecKey         = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	vecFrom        = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	vecTo          = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	vecValue       = "1000"
	vecValidAfter  = "0"
	vecValidBefore = "1795297015"
	vecNonce       = "0x1173c47b83cb5eeb4b881aa154914fb593088cf1bc9a855b6fb1864cd1c97bcf"
	vecSignature   = "0x597d8fe0df47e5dc797309cae1c3daf4b6ca57693140801400a575659da622a1329c04ebb47c92c9e3ea105e3302448fdeb93d0e3bb8d28a6297604209909ac51c"
	vecSeparator   = "02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f"
	vecDigest      = "3fae6a11bd6a29aff638dafc7cfb1b9eafedf04897fe9c613af91d7c3179f1b6"
)

// curveOrder is n, the order of the secp256k1 group.
var curveOrder, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

func mustAddress(t testing.TB, s string) Address {
	t.Helper()
	a, err := ParseAddress(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func baseUSDC(t testing.TB) Domain {
	return Domain{Name: "USD Coin", Version: "2", ChainID: 8453,
		VerifyingContract: mustAddress(t, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")}
}

func vecAuthorization(t testing.TB) Authorization {
	t.Helper()
	a, err := ParseAuthorization(vecFrom, vecTo, vecValue, vecValidAfter, vecValidBefore, vecNonce)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// signEth signs digest with key and returns the Ethereum r ‖ s ‖ v form.
func signEth(key *secp256k1.PrivateKey, digest [32]byte) [65]byte {
	compact := ecdsa.SignCompact(key, digest[:], false) // [27+recid] ‖ r ‖ s
	var sig [65]byte
	copy(sig[:64], compact[1:])
	sig[64] = compact[0]
	return sig
}

func keyAddress(key *secp256k1.PrivateKey) Address {
	return pubKeyAddress(key.PubKey())
}

func TestTypeHashes(t *testing.T) {
	f := func(typ string, got [32]byte, want string) {
		t.Helper()
		if h := hex.EncodeToString(got[:]); h != want {
			t.Errorf("type hash of %s = %s, want %s (x402.md §2)", typ, h, want)
		}
		k := getKeccak()
		computed := k.sum([]byte(typ))
		putKeccak(k)
		if computed != got {
			t.Errorf("keccak256(%q) = %x, precomputed %x", typ, computed, got)
		}
	}
	f(domainType, domainTypeHash, "8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f")
	f(transferType, transferTypeHash, "7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267")
}

func TestReferenceVector(t *testing.T) {
	d := baseUSDC(t)
	sep := d.Separator()
	if got := hex.EncodeToString(sep[:]); got != vecSeparator {
		t.Fatalf("Base USDC separator = %s, want %s", got, vecSeparator)
	}
	a := vecAuthorization(t)
	digest := a.Digest(d)
	if got := hex.EncodeToString(digest[:]); got != vecDigest {
		t.Fatalf("digest = %s, want %s", got, vecDigest)
	}
	if a.DigestWithSeparator(sep) != digest {
		t.Fatalf("DigestWithSeparator differs from Digest")
	}
	sig, err := ParseSignature(vecSignature)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := Recover(digest, sig)
	if err != nil {
		t.Fatal(err)
	}
	if signer != a.From {
		t.Fatalf("recovered %s, want From %s", signer, a.From)
	}
	if got := signer.String(); got != vecFrom {
		t.Fatalf("recovered %s, want %s", got, vecFrom)
	}

	// The published key derives From, and RFC 6979 signing reproduces the
	// viem signature byte for byte.
	kb, _ := hex.DecodeString(vecKey)
	key := secp256k1.PrivKeyFromBytes(kb)
	if got := keyAddress(key); got != a.From {
		t.Fatalf("key address = %s, want %s", got, a.From)
	}
	if got := signEth(key, digest); got != sig {
		t.Fatalf("decred signature = %x, viem signature %x", got, sig)
	}
}

func TestBaseSepoliaSeparator(t *testing.T) {
	d := Domain{Name: "USDC", Version: "2", ChainID: 84532,
		VerifyingContract: mustAddress(t, "0x036CbD53842c5426634e7929541eC2318f3dCF7e")}
	sep := d.Separator()
	const want = "71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818"
	if got := hex.EncodeToString(sep[:]); got != want {
		t.Fatalf("Base Sepolia USDC separator = %s, want %s", got, want)
	}
	if sep == baseUSDC(t).Separator() {
		t.Fatalf("mainnet and Sepolia separators are equal")
	}
}

func TestAddressEIP55(t *testing.T) {
	// The first four are the EIP-55 specification's examples.
	f := func(checksummed string) {
		t.Helper()
		for _, in := range []string{checksummed, strings.ToLower(checksummed), "0x" + strings.ToUpper(checksummed[2:])} {
			a, err := ParseAddress(in)
			if err != nil {
				t.Fatalf("ParseAddress(%q): %v", in, err)
			}
			if got := a.String(); got != checksummed {
				t.Fatalf("ParseAddress(%q).String() = %s, want %s", in, got, checksummed)
			}
		}
	}
	f("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
	f("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359")
	f("0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB")
	f("0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb")
	f("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
	f("0x036CbD53842c5426634e7929541eC2318f3dCF7e")
	f("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	f("0x0000000000000000000000000000000000000000")
}

func TestParseAddressErrors(t *testing.T) {
	f := func(s, wantMsg string) {
		t.Helper()
		_, err := ParseAddress(s)
		if !errors.Is(err, ErrAddress) {
			t.Fatalf("ParseAddress(%q) error = %v, want ErrAddress", s, err)
		}
		if !strings.Contains(err.Error(), wantMsg) {
			t.Fatalf("ParseAddress(%q) error = %q, want it to mention %q", s, err, wantMsg)
		}
	}
	f("", "got 0 characters")
	f("f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "got 40 characters")
	f("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226", "got 41 characters")
	f("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb922666", "got 43 characters")
	f("0Xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "prefix")
	f("00f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "prefix")
	f("0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "offset 2")
	f("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226 ", "offset 41")
	f("0x f39Fd6e51aad88F6F4ce6aB8827279cffFb9226", "offset 2")
}

func TestParseAuthorizationErrors(t *testing.T) {
	ok := [6]string{vecFrom, vecTo, vecValue, vecValidAfter, vecValidBefore, vecNonce}
	names := [6]string{"from", "to", "value", "validAfter", "validBefore", "nonce"}
	f := func(field int, bad, wantMsg string) {
		t.Helper()
		in := ok
		in[field] = bad
		_, err := ParseAuthorization(in[0], in[1], in[2], in[3], in[4], in[5])
		if !errors.Is(err, ErrAuthorization) {
			t.Fatalf("%s=%q: error = %v, want ErrAuthorization", names[field], bad, err)
		}
		if field <= 1 && !errors.Is(err, ErrAddress) {
			t.Fatalf("%s=%q: error = %v, want ErrAddress too", names[field], bad, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, ": "+names[field]+": ") || !strings.Contains(msg, wantMsg) {
			t.Fatalf("%s=%q: error = %q, want it to name the field and mention %q", names[field], bad, msg, wantMsg)
		}
	}
	f(0, "0xZ39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "non-hex")
	f(0, "", "got 0 characters")
	f(1, "0x209693Bc6afc0C5328bA36FaF03C514EF312287", "got 41 characters")
	f(1, "209693Bc6afc0C5328bA36FaF03C514EF312287C00", "prefix")

	const max = "115792089237316195423570985008687907853269984665640564039457584007913129639935" // 2^256-1
	for field := 2; field <= 4; field++ {
		f(field, "", "empty")
		f(field, "-1", "non-digit at offset 0")
		f(field, "+1", "non-digit at offset 0")
		f(field, " 1", "non-digit at offset 0")
		f(field, "1 ", "non-digit at offset 1")
		f(field, "1e3", "non-digit at offset 1")
		f(field, "0x10", "non-digit at offset 1")
		f(field, "1_000", "non-digit at offset 1")
		f(field, "1.0", "non-digit at offset 1")
		f(field, "١", "non-digit at offset 0") // Arabic-Indic one
		f(field, "115792089237316195423570985008687907853269984665640564039457584007913129639936", "uint256")
		f(field, max+"0", "uint256")
		f(field, "1"+strings.Repeat("0", 1000), "uint256")
	}

	f(5, "", "got 0 characters")
	f(5, "0x1173c47b83cb5eeb4b881aa154914fb593088cf1bc9a855b6fb1864cd1c97b", "got 64 characters") // short
	f(5, vecNonce+"00", "got 68 characters")
	f(5, "1173c47b83cb5eeb4b881aa154914fb593088cf1bc9a855b6fb1864cd1c97bcf", "got 64 characters")
	f(5, "0x1173c47b83cb5eeb4b881aa154914fb593088cf1bc9a855b6fb1864cd1c97bcg", "offset 65")
	f(5, "0X1173c47b83cb5eeb4b881aa154914fb593088cf1bc9a855b6fb1864cd1c97bcf", "prefix")
}

func TestParseAuthorizationValues(t *testing.T) {
	const max = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	f := func(in, want string) {
		t.Helper()
		a, err := ParseAuthorization(vecFrom, vecTo, in, in, in, vecNonce)
		if err != nil {
			t.Fatalf("value %q: %v", in, err)
		}
		for _, n := range []*big.Int{a.Value, a.ValidAfter, a.ValidBefore} {
			if got := n.String(); got != want {
				t.Fatalf("value %q parsed as %s, want %s", in, got, want)
			}
		}
		_ = a.Digest(baseUSDC(t)) // must not panic
	}
	f("0", "0")
	f("000", "0")
	f("1000", "1000")
	f("001000", "1000")
	f(max, max)
	f(strings.Repeat("0", 500)+max, max)

	a := vecAuthorization(t)
	if a.Value.Int64() != 1000 || a.ValidAfter.Sign() != 0 || a.ValidBefore.Int64() != 1795297015 {
		t.Fatalf("parsed ints = %s %s %s", a.Value, a.ValidAfter, a.ValidBefore)
	}
	if got := "0x" + hex.EncodeToString(a.Nonce[:]); got != vecNonce {
		t.Fatalf("nonce = %s, want %s", got, vecNonce)
	}
	if a.To.String() != vecTo {
		t.Fatalf("to = %s, want %s", a.To, vecTo)
	}
}

func TestValidateAndDigestPanic(t *testing.T) {
	f := func(mutate func(a *Authorization), field, wantMsg string) {
		t.Helper()
		a := vecAuthorization(t)
		mutate(&a)
		err := a.Validate()
		if !errors.Is(err, ErrAuthorization) || !strings.Contains(err.Error(), field+": "+wantMsg) {
			t.Fatalf("Validate() = %v, want ErrAuthorization naming %s: %s", err, field, wantMsg)
		}
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "BUG") {
				t.Fatalf("Digest of an invalid authorization: recover() = %v, want a BUG panic", r)
			}
		}()
		a.Digest(baseUSDC(t))
	}
	f(func(a *Authorization) { a.Value = nil }, "value", "is nil")
	f(func(a *Authorization) { a.ValidAfter = big.NewInt(-1) }, "validAfter", "is negative")
	f(func(a *Authorization) { a.ValidBefore = new(big.Int).Lsh(big.NewInt(1), 256) }, "validBefore", "does not fit in uint256")
	f(func(a *Authorization) { var z Authorization; *a = z }, "value", "is nil")

	a := vecAuthorization(t)
	if err := a.Validate(); err != nil {
		t.Fatalf("Validate() of the reference authorization = %v", err)
	}
}

func TestParseSignatureErrors(t *testing.T) {
	f := func(s, wantMsg string) {
		t.Helper()
		_, err := ParseSignature(s)
		if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), wantMsg) {
			t.Fatalf("ParseSignature(%q) error = %v, want ErrSignature mentioning %q", s, err, wantMsg)
		}
	}
	f("", "got 0 characters")
	f(vecSignature[:len(vecSignature)-2], "got 130 characters")
	f(vecSignature+"00", "got 134 characters")
	f(vecSignature[2:]+"00", "prefix")
	f(vecSignature[:10]+"x"+vecSignature[11:], "offset 10")
}

// TestSignRecoverRoundTrip signs random authorizations under random domains
// with keys from a seeded generator and recovers the signers.
func TestSignRecoverRoundTrip(t *testing.T) {
	src := rand.NewChaCha8([32]byte{'e', 'i', 'p', '3', '0', '0', '9'})
	rng := rand.New(src)
	var seenV [2]bool
	for i := 0; i < 64; i++ {
		key, err := secp256k1.GeneratePrivateKeyFromRand(src)
		if err != nil {
			t.Fatal(err)
		}
		signer := keyAddress(key)
		var a Authorization
		a.From = signer
		src.Read(a.To[:])
		src.Read(a.Nonce[:])
		var word [32]byte
		src.Read(word[:])
		a.Value = new(big.Int).SetBytes(word[:rng.IntN(33)])
		a.ValidAfter = big.NewInt(rng.Int64N(1 << 40))
		a.ValidBefore = new(big.Int).SetBytes(word[:])
		d := Domain{Name: "USD Coin", Version: "2", ChainID: rng.Uint64()}
		src.Read(d.VerifyingContract[:])

		digest := a.Digest(d)
		sig := signEth(key, digest)
		seenV[sig[64]-27] = true
		got, err := Recover(digest, sig)
		if err != nil {
			t.Fatalf("round %d: Recover: %v", i, err)
		}
		if got != signer {
			t.Fatalf("round %d: recovered %s, want %s", i, got, signer)
		}

		// The same signature over any other digest names someone else.
		other := digest
		other[rng.IntN(32)] ^= 1 << rng.IntN(8)
		if got, err := Recover(other, sig); err == nil && got == signer {
			t.Fatalf("round %d: a changed digest still recovers the signer", i)
		}
		// So does the same authorization under another domain.
		d.ChainID ^= 1
		if got, err := Recover(a.Digest(d), sig); err == nil && got == signer {
			t.Fatalf("round %d: another chain id still recovers the signer", i)
		}
	}
	if !seenV[0] || !seenV[1] {
		t.Fatalf("round trips did not exercise both v=27 and v=28: %v", seenV)
	}
}

func TestRecoverWrongDigest(t *testing.T) {
	a := vecAuthorization(t)
	sig, _ := ParseSignature(vecSignature)
	a.Value = big.NewInt(1001)
	got, err := Recover(a.Digest(baseUSDC(t)), sig)
	if err != nil {
		t.Fatalf("Recover: %v", err)
	}
	if got == a.From {
		t.Fatalf("a different value still recovers %s", got)
	}
}

// highS returns the malleated twin of sig: s' = n - s and v flipped.
func highS(sig [65]byte) [65]byte {
	s := new(big.Int).SetBytes(sig[32:64])
	s.Sub(curveOrder, s)
	s.FillBytes(sig[32:64])
	sig[64] ^= 27 ^ 28
	return sig
}

func TestRecoverRejectsHighS(t *testing.T) {
	digest := vecAuthorization(t).Digest(baseUSDC(t))
	sig, _ := ParseSignature(vecSignature)
	twin := highS(sig)

	// The twin is a valid ECDSA signature by the same key...
	var compact [65]byte
	compact[0] = twin[64]
	copy(compact[1:], twin[:64])
	pub, _, err := ecdsa.RecoverCompact(compact[:], digest[:])
	if err != nil {
		t.Fatalf("RecoverCompact of the high-s twin: %v", err)
	}
	if pubKeyAddress(pub).String() != vecFrom {
		t.Fatalf("the high-s twin does not recover the signer; the test is broken")
	}
	// ...which Recover refuses.
	_, err = Recover(digest, twin)
	if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "high-s") {
		t.Fatalf("Recover(high-s) error = %v, want ErrSignature mentioning high-s", err)
	}

	// Boundaries: s = n/2 is accepted by the range checks, s = n/2+1 is not.
	half := new(big.Int).Rsh(curveOrder, 1)
	f := func(s *big.Int, wantHigh bool) {
		t.Helper()
		x := sig
		s.FillBytes(x[32:64])
		_, err := Recover(digest, x)
		isHigh := err != nil && strings.Contains(err.Error(), "high-s")
		if isHigh != wantHigh {
			t.Fatalf("s = %x: error = %v, want high-s rejection %v", s, err, wantHigh)
		}
	}
	f(half, false)
	f(new(big.Int).Add(half, big.NewInt(1)), true)
}

func TestRecoverRejectsV(t *testing.T) {
	digest := vecAuthorization(t).Digest(baseUSDC(t))
	sig, _ := ParseSignature(vecSignature)
	f := func(v byte, wantMsg string) {
		t.Helper()
		x := sig
		x[64] = v
		_, err := Recover(digest, x)
		if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), wantMsg) {
			t.Fatalf("v=%d: error = %v, want ErrSignature mentioning %q", v, err, wantMsg)
		}
	}
	f(0, "raw recovery ids 0 and 1 are rejected")
	f(1, "raw recovery ids 0 and 1 are rejected")
	f(29, "want 27 or 28")
	f(30, "want 27 or 28")
	f(26, "want 27 or 28")
	f(37, "want 27 or 28") // EIP-155 style, chain id 1
	f(255, "want 27 or 28")
}

func TestRecoverRejectsRange(t *testing.T) {
	digest := vecAuthorization(t).Digest(baseUSDC(t))
	sig, _ := ParseSignature(vecSignature)
	var n, ff, five [32]byte
	curveOrder.FillBytes(n[:])
	for i := range ff {
		ff[i] = 0xff
	}
	five[31] = 5
	f := func(r, s *[32]byte, wantMsg string) {
		t.Helper()
		x := sig
		if r != nil {
			copy(x[0:32], r[:])
		}
		if s != nil {
			copy(x[32:64], s[:])
		}
		_, err := Recover(digest, x)
		if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), wantMsg) {
			t.Fatalf("error = %v, want ErrSignature mentioning %q", err, wantMsg)
		}
	}
	var zero [32]byte
	f(&zero, nil, "r is zero")
	f(nil, &zero, "s is zero")
	f(&n, nil, "r is not below the curve order")
	f(&ff, nil, "r is not below the curve order")
	f(nil, &n, "s is not below the curve order")
	f(nil, &ff, "s is not below the curve order")
	// r = 5 is in range, but no curve point has x = 5 (5³ + 7 = 132 is not
	// a square mod p), so no public key can be recovered.
	f(&five, nil, "cannot recover public key")
}
