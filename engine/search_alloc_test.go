//go:build !race

package engine_test

import (
	"testing"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader/loadertest"
)

// TestSearchAllocs checks that a ranked search on the full catalogue, with
// a warm scratch pool and a dst with room, allocates nothing, for every
// benchmark query, first pages and pages after a cursor.
func TestSearchAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("the full catalogue takes seconds to generate")
	}
	c := loadertest.Full(t)
	qs := searchQueries(t, c)
	dst := make([]engine.SearchMatch, 0, 64)
	run := func() {
		for _, q := range qs {
			dst = c.Search(dst[:0], q, 0.5, nil, 20)
			if len(dst) > 20 {
				// The second page, after the first page's last row.
				after := engine.SearchPosition{Key: dst[19].Key, Row: dst[19].Row}
				dst = c.Search(dst[:0], q, 0.5, &after, 20)
			}
		}
	}
	run() // warm the scratch
	if n := testing.AllocsPerRun(2, run); n != 0 {
		t.Fatalf("Search allocates %v times per %d queries", n, 2*len(qs))
	}
}
