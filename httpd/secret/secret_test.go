package secret

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(path, []byte("  from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"literal value", "literal value"},
		{"", ""},
		{"file://" + path, "from a file"},
	} {
		got, err := Read(c.in)
		if err != nil || got != c.want {
			t.Errorf("Read(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Read("file://" + path + ".missing"); err == nil {
		t.Error("a missing file was read")
	}
	if !IsFile("file:///x") || IsFile("literal") {
		t.Error("IsFile")
	}
}
