package httpdtest

import (
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
)

// FastMeter starts st's usage meter flushing every 20 ms and reported down
// after 100 ms without a flush, so that a test sees a broken store within a
// fraction of a second. It stops when the test ends.
func FastMeter(t testing.TB, st *access.Store) *access.Meter {
	t.Helper()
	m, err := st.StartMeter(20*time.Millisecond, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}
