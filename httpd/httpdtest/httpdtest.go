// Package httpdtest builds what the tests of the HTTP edge and the agent
// surface share: a small generated catalogue and a key store holding a key
// of each plan and state. Test support only.
package httpdtest

import (
	"bytes"
	"net"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/loadertest"
)

var (
	snapOnce sync.Once
	snap     []byte
)

// Snapshot returns the snapshot of a small catalogue (scale 0.01, seed 2,
// with the demo set), generated once per process.
func Snapshot() []byte {
	snapOnce.Do(func() {
		var err error
		if snap, err = loadertest.Snapshot(gen.Options{Scale: 0.01, Seed: 2}); err != nil {
			panic(err)
		}
	})
	return snap
}

// Catalogue decodes a fresh catalogue from Snapshot.
func Catalogue(t testing.TB) *engine.Catalogue {
	t.Helper()
	return decode(t, Snapshot())
}

// CatalogueOf generates a catalogue with o (a test that needs another
// catalogue than Catalogue's) and decodes it.
func CatalogueOf(t testing.TB, o gen.Options) *engine.Catalogue {
	t.Helper()
	b, err := loadertest.Snapshot(o)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, b)
}

func decode(t testing.TB, snapshot []byte) *engine.Catalogue {
	t.Helper()
	c, err := loader.FromBytes(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Keys is a key store in a temporary directory with one key of each kind.
type Keys struct {
	Store *access.Store
	// Active keys of each plan, a pending apify key and a revoked free key.
	Free, Apify, Demo, Pending, Revoked string
}

// NewKeys opens the store (closed when the test ends) and creates the keys.
func NewKeys(t testing.TB) Keys {
	t.Helper()
	st, err := access.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mk := func(p access.Plan, state access.State) string {
		text, _, err := st.Create(p, state, "owner@example.org", "")
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	return Keys{Store: st,
		Free: mk(access.PlanFree, access.StateActive), Apify: mk(access.PlanApify, access.StateActive), Demo: mk(access.PlanDemo, access.StateActive),
		Pending: mk(access.PlanApify, access.StatePending), Revoked: mk(access.PlanFree, access.StateRevoked)}
}

// Serve runs svc's fasthttp server on a loopback port until the test ends
// and returns its host:port.
func Serve(t testing.TB, svc *httpd.Service) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := svc.Server()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String()
}

// LockedBuffer is a bytes.Buffer safe for concurrent use: a log
// destination a test reads while a server or a child process writes to it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
