package loader

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vspec/catalogue/engine"
)

func TestReloaderKeepsServingOnBadSnapshot(t *testing.T) {
	s, file := small(t)
	path := filepath.Join(t.TempDir(), "c.snap")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var h atomic.Pointer[engine.Catalogue] // what a server keeps
	h.Store(first)
	r := &Reloader{Path: path, Install: func(c *engine.Catalogue) { h.Store(c) }}

	// A truncated file is refused; the old catalogue stays.
	if err := os.WriteFile(path, file[:len(file)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Reload(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("reload of a truncated file: %v", err)
	}
	if h.Load() != first {
		t.Fatal("a refused reload replaced the catalogue")
	}
	if ok, failures, last := r.Stats(); ok != 0 || failures != 1 || last == "" {
		t.Errorf("stats %d %d %q", ok, failures, last)
	}

	// A good file is swapped in.
	if err := WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	id, _, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if h.Load() == first || id != first.Meta.Identity {
		t.Errorf("reload did not swap in the new catalogue (identity %s)", id)
	}
}

func TestEnsureFileKeepsExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.snap")
	os.WriteFile(path, []byte("anything"), 0o644)
	if generated, err := EnsureFile(path); err != nil || generated {
		t.Errorf("EnsureFile on an existing file: %v, %v", generated, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "anything" {
		t.Error("EnsureFile overwrote an existing file")
	}
}
