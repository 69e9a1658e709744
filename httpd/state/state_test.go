package state_test

import (
	"testing"

	"github.com/vspec/catalogue/httpd/state"
	"github.com/vspec/catalogue/httpd/state/statetest"
)

// TestEmbedded runs the conformance suite against the bbolt files.
func TestEmbedded(t *testing.T) {
	statetest.Run(t, func(t *testing.T) state.Store {
		s, err := state.OpenEmbedded(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
