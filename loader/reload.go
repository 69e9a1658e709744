package loader

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
)

// EnsureFile makes sure a snapshot exists at path: when the file is
// missing it generates the default catalogue there and reports true.
func EnsureFile(path string) (generated bool, err error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !os.IsNotExist(err) {
		return false, fmt.Errorf("cannot stat snapshot %s: %w", path, err)
	}
	s, err := gen.Generate(vocab.Default(), gen.Options{})
	if err != nil {
		return false, fmt.Errorf("cannot generate the default catalogue: %w", err)
	}
	if err := WriteFile(path, s); err != nil {
		return false, err
	}
	return true, nil
}

// Reloader loads the snapshot at Path on demand (SIGHUP) and hands it to
// Install, which makes it the one being served. A snapshot that fails to
// load or validate is refused: the catalogue being served stays, and the
// failure is counted and returned.
type Reloader struct {
	Path    string
	Install func(*engine.Catalogue)

	mu        sync.Mutex // one reload at a time
	reloads   atomic.Uint64
	failures  atomic.Uint64
	lastError atomic.Pointer[string]
}

// Reload loads Path and swaps it in. It returns the new catalogue's
// identity and how long loading took.
func (r *Reloader) Reload() (identity string, took time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	c, err := Load(r.Path)
	if err != nil {
		r.failures.Add(1)
		msg := err.Error()
		r.lastError.Store(&msg)
		return "", time.Since(start), err
	}
	r.Install(c)
	r.reloads.Add(1)
	return c.Meta.Identity, time.Since(start), nil
}

// Stats returns the number of successful and refused reloads and the last
// refusal's message.
func (r *Reloader) Stats() (reloads, failures uint64, lastError string) {
	if p := r.lastError.Load(); p != nil {
		lastError = *p
	}
	return r.reloads.Load(), r.failures.Load(), lastError
}
