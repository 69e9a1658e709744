package state_test

import (
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/state"
)

// BenchmarkAdmitEmbedded is the access-state part of a keyed request on
// the embedded store, through the interface the server calls: the key's
// lookup and the reservation of one call in its three windows, released
// so that the limits never bind.
func BenchmarkAdmitEmbedded(b *testing.B) {
	s, err := state.OpenEmbedded(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var st state.Store = s
	text, _, err := st.Create(access.PlanApify, access.StateActive, "", "")
	if err != nil {
		b.Fatal(err)
	}
	raw := []byte(text)
	lim := access.Limits{1 << 40, 1 << 40, 1 << 40}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		k, err := st.Lookup(raw)
		if err != nil {
			b.Fatal(err)
		}
		t, _, ok, err := st.Reserve(k, time.Now(), &lim)
		if !ok || err != nil {
			b.Fatal(ok, err)
		}
		t.Release()
	}
}
