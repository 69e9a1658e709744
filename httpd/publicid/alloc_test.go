//go:build !race

package publicid

import "testing"

// TestCursorAllocations: sealing and opening a cursor allocate nothing
// when the caller's buffer has room (they are on the hot path of every
// list page).
func TestCursorAllocations(t *testing.T) {
	c, err := New([]byte("an allocation test secret of 32+ bytes"))
	if err != nil {
		t.Fatal(err)
	}
	bind := c.BindingHash([]byte("brands"), []byte("en"))
	pos := []byte("12345678")
	buf := make([]byte, 0, 128)
	out := make([]byte, 0, 64)
	buf = c.AppendCursor(buf[:0], bind, pos)
	if n := testing.AllocsPerRun(200, func() {
		buf = c.AppendCursor(buf[:0], bind, pos)
		out, _ = c.OpenCursor(out[:0], buf, bind)
	}); n != 0 {
		t.Fatalf("%.1f allocations per cursor round trip, want 0", n)
	}
}
