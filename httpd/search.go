package httpd

import (
	"math"
	"strconv"

	"github.com/vspec/catalogue/engine"
)

// search answers GET /v1/search: typeahead over brand, model and display
// name, in the rank order of index/trigram's Rank (words matched,
// exactness, brand and model before trim, proximity, popularity and
// recency, stable id), with pg_trgm's word_similarity as the recall floor
// and the score reported; a query with no letter or digit returns an empty
// list, never everything.
func (o *operations) search(rq *request, p *Params) error {
	c := rq.v.cat
	folded := c.SearchQuery(string(p.Q), rq.locale)
	bind := binding(o.codec, tierFull, routeSearch, []byte(folded), rq.lang)
	var after *engine.SearchPosition
	pos := openCursor(o.codec, rq, p.Cursor, bind)
	if k, ok := engine.ParseSearchKey(pos); ok {
		// A cursor whose variant is gone restarts: every variant now sorts
		// after it.
		if row, found := c.RowAtOrBefore(k.ID); found {
			after = &engine.SearchPosition{Key: k.Key, Row: row}
		}
	} else if engine.IsOldSearchPosition(pos) {
		// Read in the new order, its position would land anywhere.
		return errStaleSearchCursor
	}
	var matches []engine.SearchMatch
	var more bool
	if after == nil {
		matches, more = o.firstSearchPage(rq, folded, p.Limit)
	} else {
		matches, more = c.Search(rq.matches[:0], folded, o.threshold, after, p.Limit)
		rq.matches = matches
	}
	n := min(len(matches), p.Limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, m := range matches[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		if rq.raw {
			b = append(rq.appendSearchResult(b, m.Row), `,"score":`...)
		} else {
			b = append(b, rq.v.searchRows.row(m.Row)...)
		}
		b = rq.appendScore(b, m.Score)
		b = append(b, '}')
	}
	var next []byte
	if more && n > 0 {
		last := matches[n-1]
		next = engine.SearchKey{Key: last.Key, ID: c.VarID[last.Row]}.AppendPosition(rq.tmp[:0])
		rq.tmp = next
	}
	return listEnd(o.codec, rq, b, bind, next)
}

// errStaleSearchCursor answers a search cursor of the order before ranking.
var errStaleSearchCursor = badRequest("cursor: this search cursor comes from the search order before ranking (issue 17) and cannot be resumed in the current order; repeat the search without cursor")

// appendSearchResult appends a SearchResult without its closing brace.
func (rq *request) appendSearchResult(b []byte, row uint32) []byte {
	c := rq.v.cat
	g := c.VarGen[row]
	b = append(b, `{"variant_id":`...)
	b = rq.appendVariantID(b, row)
	b = append(b, `,"generation_id":`...)
	b = rq.appendGenerationID(b, g)
	b = rq.appendSlugsAndName(b, row, c.GenModel[g])
	return appendYearRange(b, c, g)
}

// scoreText is a score and its text as strconv.AppendFloat writes it
// (float32, shortest), in n bytes; n is 0 when unset.
type scoreText struct {
	bits uint32
	n    uint8
	text [15]byte // the longest float32 shortest form, "-1.17549435e-38"
}

// appendScore appends a search score as strconv.AppendFloat(b, s, 'g', -1,
// 32) does, from the request's memo when it formatted the same value
// lately: a page's scores are few distinct fractions.
func (rq *request) appendScore(b []byte, s float32) []byte {
	if rq.scores == nil { // a request not from the pool
		rq.scores = new([64]scoreText)
	}
	bits := math.Float32bits(s)
	e := &rq.scores[bits*0x9e3779b1>>26]
	if e.n > 0 && e.bits == bits {
		return append(b, e.text[:e.n]...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, float64(s), 'g', -1, 32)
	if n := len(b) - start; n <= len(e.text) {
		e.bits, e.n = bits, uint8(copy(e.text[:], b[start:]))
	}
	return b
}
