//go:build !race

package eip3009

import "testing"

// TestDigestAllocs keeps the digest allocation-free: the Keccak states and
// their scratch buffers come from keccakPool.
func TestDigestAllocs(t *testing.T) {
	d := baseUSDC(t)
	a := vecAuthorization(t)
	sep := d.Separator()
	n := testing.AllocsPerRun(100, func() {
		if a.Digest(d) != a.DigestWithSeparator(sep) {
			t.Fatal("digests differ")
		}
	})
	if n != 0 {
		t.Fatalf("Digest allocates %v times per run, want 0", n)
	}
}
