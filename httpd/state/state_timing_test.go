package state_test

import (
	"errors"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/state"
	"github.com/vspec/catalogue/httpd/state/statetest"
)

// BenchmarkAdmitEmbedded is the access-state part of a keyed request on
// the embedded store, through the interface the server calls: the key's
// lookup and the reservation of one call in its three windows, released
// so that the limits never bind.
func BenchmarkAdmitEmbedded(b *testing.B) {
	admit := embeddedAdmit(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := admit(); err != nil {
			b.Fatal(err)
		}
	}
}

// embeddedAdmit opens an embedded store holding one apify key, closed when
// tb ends, and returns one admission of that key through the
// access.Backend interface, as the server calls it: the key's lookup, the
// reservation of one call in its three windows under limits that never
// bind, and the ticket's release.
func embeddedAdmit(tb testing.TB) func() error {
	tb.Helper()
	s, err := state.OpenEmbedded(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	var st access.Backend = s
	text, _ := statetest.NewKey(tb, st, access.PlanApify)
	raw := []byte(text)
	lim := access.Limits{1 << 40, 1 << 40, 1 << 40}
	return func() error {
		k, err := st.Lookup(raw)
		if err != nil {
			return err
		}
		t, _, ok, err := st.Reserve(k, time.Now(), &lim)
		if err != nil {
			return err
		}
		if !ok {
			return errNotAdmitted
		}
		t.Release()
		return nil
	}
}

var errNotAdmitted = errors.New("the reservation was refused")
