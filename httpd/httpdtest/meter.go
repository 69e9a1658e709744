package httpdtest

import (
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
)

// FastMeter starts st's usage meter flushing every 20 ms and reported down
// after 1 s without a flush, so that a test sees a broken store within about
// a second, while a healthy flush delayed by a busy machine (a bbolt fsync
// behind other processes' disk writes can take hundreds of milliseconds) is
// not taken for an outage. It stops when the test ends.
func FastMeter(t testing.TB, st *access.Store) *access.Meter {
	t.Helper()
	m, err := st.StartMeter(20*time.Millisecond, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}
