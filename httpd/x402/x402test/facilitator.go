package x402test

import (
	"net/http"
	"net/http/httptest"
	"testing"

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
