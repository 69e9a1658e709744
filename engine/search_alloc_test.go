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
			var more bool
			dst, more = c.Search(dst[:0], q, 0.5, nil, 20)
			if more {
				// The second page, after the first page's last row.
				last := dst[min(len(dst), 20)-1]
				after := engine.SearchPosition{Key: last.Key, Row: last.Row}
				dst, _ = c.Search(dst[:0], q, 0.5, &after, 20)
			}
		}
	}
	run() // warm the scratch
	if n := testing.AllocsPerRun(2, run); n != 0 {
		t.Fatalf("Search allocates %v times per %d queries", n, 2*len(qs))
	}
}

// TestSearchQueryAllocs checks that folding a query that needs neither
// folding nor a rewrite allocates nothing, and that a local brand spelling
// is still rewritten.
func TestSearchQueryAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("the full catalogue takes seconds to generate")
	}
	c := loadertest.Full(t)
	if n := testing.AllocsPerRun(10, func() { _ = c.SearchQuery("vw golf 1.5 tsi", 0) }); n != 0 {
		t.Errorf("SearchQuery allocates %v times on a folded query", n)
	}
	if got := c.SearchQuery("Фолкс  голф", 0); got != "volkswagen голф" {
		t.Errorf("SearchQuery rewrites the Bulgarian brand prefix as %q", got)
	}
}
