//go:build !race

package state_test

import "testing"

// TestEmbeddedAdmitAllocatesNothing: the embedded store's key check,
// reservation and release, called through the access.Backend interface
// as the server calls them, allocate nothing (a Ticket moved to the heap
// once cost every released call 80 bytes).
func TestEmbeddedAdmitAllocatesNothing(t *testing.T) {
	admit := embeddedAdmit(t)
	n := testing.AllocsPerRun(1000, func() { admit() })
	if n != 0 {
		t.Errorf("%v allocations per admitted and released call, want 0", n)
	}
}
