package progress

import (
	"bytes"
	"os"
	"testing"
)

// TestSilentOffTerminal: a bar or a phase on a pipe, a buffer or /dev/null
// (a character device, not a terminal) draws nothing.
func TestSilentOffTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if IsTerminal(null) {
		t.Error("/dev/null is taken for a terminal")
	}
	var buf bytes.Buffer
	b := New(&buf, "writing")
	b.Update(1, 2)
	b.Done()
	Phase(&buf, "loading")()
	Phase(null, "loading")()
	if buf.Len() != 0 {
		t.Errorf("drew %q off a terminal", buf.String())
	}
}
