package eip3009

import "testing"

// Sink keeps benchmark results alive.
var Sink any

// BenchmarkVerify measures the offline check of one x402 payment: the
// EIP-712 digest (five Keccak-256 runs) and the public key recovery.
func BenchmarkVerify(b *testing.B) {
	d := baseUSDC(b)
	a := vecAuthorization(b)
	sig, err := ParseSignature(vecSignature)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		signer, err := Recover(a.Digest(d), sig)
		if err != nil || signer != a.From {
			b.Fatalf("Recover = %s, %v", signer, err)
		}
	}
}

// BenchmarkDigest measures the EIP-712 digest alone.
func BenchmarkDigest(b *testing.B) {
	d := baseUSDC(b)
	a := vecAuthorization(b)
	b.ReportAllocs()
	var h [32]byte
	for i := 0; i < b.N; i++ {
		h = a.Digest(d)
	}
	Sink = h
}

// BenchmarkParseAuthorization measures parsing the payload's string fields.
func BenchmarkParseAuthorization(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a, err := ParseAuthorization(vecFrom, vecTo, vecValue, vecValidAfter, vecValidBefore, vecNonce)
		if err != nil {
			b.Fatal(err)
		}
		Sink = a.Value
	}
}

// BenchmarkAddressString measures the EIP-55 checksum.
func BenchmarkAddressString(b *testing.B) {
	a := mustAddress(b, vecFrom)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Sink = a.String()
	}
}
