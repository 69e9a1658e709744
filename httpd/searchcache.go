package httpd

import (
	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine"
)

// searchPage is a cached first page of a search: the matches (limit+1 of
// them at most, the extra one saying that a next page exists) of one folded
// query on one installed catalogue. Typeahead traffic repeats itself (every
// user typing "golf" sends "g", "go", "gol", "golf"), and scoring a short
// prefix touches thousands of candidates, so the first page is worth
// keeping; later pages carry a cursor and are computed.
//
// The entry holds everything its key was derived from and a hit is checked
// against it, so a hash collision is a miss, never another query's answer.
type searchPage struct {
	folded  string
	epoch   uint32
	limit   int
	matches []engine.SearchMatch
	more    bool // a next page follows
}

const searchMatchBytes = 8 // a row and a score: the cost of one match in an entry

func searchKey(folded string, epoch uint32, limit int) uint64 {
	return xxhash.Sum64String(folded) ^ uint64(epoch)<<40 ^ uint64(limit)<<32
}

// firstSearchPage returns the first page of matches of folded on the
// request's catalogue, and whether a next page follows, from the cache when
// it holds it. The slice returned must not be modified.
func (o *operations) firstSearchPage(rq *request, folded string, limit int) ([]engine.SearchMatch, bool) {
	key := searchKey(folded, rq.v.epoch, limit)
	if o.searches != nil {
		if p, ok := o.searches.Get(key); ok && p.folded == folded && p.epoch == rq.v.epoch && p.limit == limit {
			o.searchHit()
			return p.matches, p.more
		}
		o.searchMiss()
	}
	matches, more := rq.v.cat.Search(rq.matches[:0], folded, o.threshold, nil, limit)
	rq.matches = matches
	if o.searches != nil {
		// The cache keeps its own copy: rq.matches is reused by the next request.
		p := &searchPage{folded: folded, epoch: rq.v.epoch, limit: limit, matches: append([]engine.SearchMatch(nil), matches...), more: more}
		o.searches.Set(key, p, int64(len(folded)+64+len(matches)*searchMatchBytes))
	}
	return matches, more
}
