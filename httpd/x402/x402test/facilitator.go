package x402test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/x402"
)

// HangingFacilitator runs a facilitator on loopback HTTP that verifies
// every payment and never answers /settle in time (the settlement's outcome
// is unknown to the server); when the test ends it answers status and
// stops.
func HangingFacilitator(t testing.TB, status int) *x402.HTTPFacilitator {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/verify" {
			w.Write([]byte(`{"isValid":true}`))
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for the handlers
	return &x402.HTTPFacilitator{URL: srv.URL}
}

// HangingGate is a gate taking payments to payTo through a
// HangingFacilitator that answers status when the test ends, with a store
// of its own in a temporary directory (closed when the test ends), both on
// a clock stopped at now.
func HangingGate(t testing.TB, payTo string, status int, now time.Time) (*x402.Gate, *x402.Store) {
	t.Helper()
	clock := func() time.Time { return now }
	store, err := x402.OpenStore(filepath.Join(t.TempDir(), "payments.db"), clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	gate, err := x402.New(x402.Config{PayTo: payTo, Facilitator: HangingFacilitator(t, status), Nonces: store, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return gate, store
}
