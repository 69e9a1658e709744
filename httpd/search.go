package httpd

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"

	"github.com/vspec/catalogue/engine/jsonenc"
)

const (
	routeSearch    = "search"
	maxQueryLength = 200 // characters of q
)

// searchQuery reads q: required, not empty, at most 200 characters.
func (s *Service) searchQuery(ctx *fasthttp.RequestCtx, rq *request) (string, bool) {
	if !s.parseQueryExcept(ctx, rq, pLocale|pLimit|pCursor, []string{"q"}) {
		return "", false
	}
	args := ctx.QueryArgs()
	if len(args.PeekMulti("q")) > 1 {
		badParam(ctx, rq, []byte("q"), "is given more than once")
		return "", false
	}
	q := string(bytes.TrimSpace(args.Peek("q")))
	if q == "" {
		problem(ctx, fasthttp.StatusBadRequest, "Bad Request", `The query parameter "q" is required: the text to search for, at least one character.`)
		return "", false
	}
	if n := utf8.RuneCountInString(q); n > maxQueryLength {
		problem(ctx, fasthttp.StatusBadRequest, "Bad Request", `The query parameter "q" is `+strconv.Itoa(n)+` characters long; at most 200 are searched.`)
		return "", false
	}
	return q, true
}

// search answers GET /v1/search: typeahead over brand, model and display
// name, scored as PostgreSQL pg_trgm's word_similarity(q, text), best first,
// then by text and stable id; a query with no letter or digit returns an
// empty list, never everything.
func (s *Service) search(ctx *fasthttp.RequestCtx, rq *request) {
	q, ok := s.searchQuery(ctx, rq)
	if !ok {
		return
	}
	c := rq.v.cat
	folded := c.SearchQuery(q, rq.locale)
	bind := s.binding(rq, nil, routeSearch, []byte(folded))
	var after *engine.SearchPosition
	if k, ok := engine.ParseSearchKey(s.openCursor(rq, bind)); ok {
		after = &engine.SearchPosition{Score: k.Score, Text: k.Text}
		row, found := c.RowAtOrBefore(k.ID)
		if !found {
			after = nil // every variant now sorts after the cursor's: start again
		}
		if after != nil {
			after.Row = row
		}
	}
	var matches []engine.SearchMatch
	if after == nil {
		matches = s.firstSearchPage(rq, folded)
	} else {
		matches = c.Search(rq.matches[:0], folded, s.opts.SearchThreshold, after, rq.limit)
		rq.matches = matches
	}
	n := min(len(matches), rq.limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, m := range matches[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = rq.appendSearchResult(b, m.Row)
		b = append(b, `,"score":`...)
		b = strconv.AppendFloat(b, float64(m.Score), 'g', -1, 32)
		b = append(b, '}')
	}
	var next []byte
	if len(matches) > n {
		last := matches[n-1]
		next = engine.SearchKey{Score: last.Score, ID: c.VarID[last.Row], Text: c.SearchText(last.Row)}.AppendPosition(rq.tmp[:0])
		rq.tmp = next
	}
	s.listEnd(ctx, rq, b, bind, next)
}

// appendSearchResult appends a SearchResult without its closing brace.
func (rq *request) appendSearchResult(b []byte, row uint32) []byte {
	c := rq.v.cat
	g := c.VarGen[row]
	m := c.GenModel[g]
	b = append(b, `{"variant_id":`...)
	b = rq.appendVariantID(b, row)
	b = append(b, `,"generation_id":`...)
	b = rq.appendGenerationID(b, g)
	b = append(b, `,"brand_slug":`...)
	b = jsonenc.AppendString(b, c.BrandSlug.String(c.ModelBrand[m]))
	b = append(b, `,"model_slug":`...)
	b = jsonenc.AppendString(b, c.ModelSlug.String(m))
	b = append(b, `,"display_name":`...)
	b = c.AppendVariantNameJSON(b, row)
	b = append(b, `,"year_from":`...)
	b = appendYear(b, c.GenYearStart[g])
	b = append(b, `,"year_to":`...)
	return appendYear(b, c.GenYearEnd[g])
}

// demoSearch is the demo tier's search: a substring match of the folded
// query over the folded "brand model generation display-name" of the 40
// cars (the brand as the locale writes it and in Latin), in demo order.
// score is null: there is no ranking.
func (s *Service) demoSearch(ctx *fasthttp.RequestCtx, rq *request) {
	d := s.demoFor(ctx, rq)
	if d == nil {
		return
	}
	q, ok := s.searchQuery(ctx, rq)
	if !ok {
		return
	}
	c := rq.v.cat
	folded := engine.Fold(q)
	bind := s.binding(rq, d, routeSearch, []byte(folded))
	start := 0
	if pos := s.openCursor(rq, bind); len(pos) == 1 {
		start = int(pos[0])
	}
	rows := rq.rows[:0]
	var at []int
	if strings.IndexFunc(folded, isWordRune) >= 0 { // no letter or digit: nothing
		for i, r := range d.rows {
			if i >= start && strings.Contains(d.searchText[rq.locale][i], folded) {
				rows = append(rows, r)
				at = append(at, i)
				if len(rows) > rq.limit {
					break
				}
			}
		}
	}
	rq.rows = rows
	n := min(len(rows), rq.limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, r := range rows[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = rq.appendSearchResult(b, r)
		b = append(b, `,"score":null}`...)
	}
	var next []byte
	if len(rows) > n {
		next = append(rq.tmp[:0], byte(at[n-1]+1))
		rq.tmp = next
	}
	_ = c
	s.listEnd(ctx, rq, b, bind, next)
}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && (isLetterOrDigit(r))
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
