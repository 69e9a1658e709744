//go:build !race

package publicid

import (
	"bytes"
	"testing"
)

// TestCursorAllocations: sealing and opening a cursor, opening one of
// another list, and hashing a binding (with a long filter text among the
// parts) allocate nothing when the caller's buffer has room: they are on
// the hot path of every list page.
func TestCursorAllocations(t *testing.T) {
	c, err := New([]byte("an allocation test secret of 32+ bytes"))
	if err != nil {
		t.Fatal(err)
	}
	route, locale := []byte("brands"), []byte("en")
	filter := []byte("fuel_slug=diesel AND power_kw>=100 AND power_kw<=250 AND body_type=estate AND gearbox=manual")
	var bind, other uint64
	if n := testing.AllocsPerRun(200, func() {
		bind = c.BindingHash([]byte("full"), route, nil, locale)
		other = c.BindingHash([]byte("full"), route, filter, locale)
	}); n != 0 {
		t.Fatalf("%.1f allocations per binding hash, want 0", n)
	}
	pos := []byte("\x03\x01\x2a\x00\x00\x00Volkswagen")
	buf := make([]byte, 0, 128)
	out := make([]byte, 0, 64)
	buf = c.AppendCursor(buf[:0], bind, pos)
	ok1, ok2 := false, true
	if n := testing.AllocsPerRun(200, func() {
		buf = c.AppendCursor(buf[:0], bind, pos)
		out, ok1 = c.OpenCursor(out[:0], buf, bind)
		_, ok2 = c.OpenCursor(out[:0], buf, other)
	}); n != 0 {
		t.Fatalf("%.1f allocations per cursor round trip, want 0", n)
	}
	if !ok1 || ok2 || !bytes.Equal(out, pos) {
		t.Fatalf("round trip: %q %v, other list %v", out, ok1, ok2)
	}
	// The position in a stack array, as a caller may hold it.
	var arr [4]byte
	if n := testing.AllocsPerRun(200, func() {
		arr[0]++
		buf = c.AppendCursor(buf[:0], bind, arr[:])
	}); n != 0 {
		t.Fatalf("%.1f allocations sealing a stack position, want 0", n)
	}
}
