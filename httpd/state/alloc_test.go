//go:build !race

package state_test

import (
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/state"
)

// TestEmbeddedAdmitAllocatesNothing: the embedded store's key check,
// reservation and release, called through the access.Backend interface
// as the server calls them, allocate nothing (a Ticket moved to the heap
// once cost every released call 80 bytes).
func TestEmbeddedAdmitAllocatesNothing(t *testing.T) {
	s, err := state.OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b access.Backend = s
	text, _, err := b.Create(access.PlanApify, access.StateActive, "", "")
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(text)
	lim := access.Limits{1 << 40, 1 << 40, 1 << 40}
	n := testing.AllocsPerRun(1000, func() {
		k, _ := b.Lookup(raw)
		tk, _, _, _ := b.Reserve(k, time.Now(), &lim)
		tk.Release()
	})
	if n != 0 {
		t.Errorf("%v allocations per admitted and released call, want 0", n)
	}
}
