//go:build !race

package trigram

import "testing"

// TestSearchAllocs checks that a search with a warm Scratch and a dst with
// room allocates nothing, whatever the query.
func TestSearchAllocs(t *testing.T) {
	ix := loadIndex(t)
	queries := readQueries(t)
	s := AcquireScratch()
	defer ReleaseScratch(s)
	dst := make([]Match, 0, 64)
	after := &Position{Score: 0.6, Text: "volkswagen golf", Row: 10}
	run := func() {
		for _, q := range queries {
			dst = ix.Search(dst[:0], Query{Text: q.text, Threshold: 0.3, Limit: 10}, s)
			dst = ix.Search(dst[:0], Query{Text: q.text, Threshold: 0.5, Limit: 10, After: after}, s)
		}
	}
	run() // warm the scratch
	if n := testing.AllocsPerRun(3, run); n != 0 {
		t.Fatalf("Search allocates %v times per %d queries", n, 2*len(queries))
	}
}
