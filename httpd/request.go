package httpd

import (
	"strconv"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/access"
)

// request is the per-request scratch: the view the request answers from,
// the caller, the parsed common parameters and the buffers the response is
// rendered into. It comes from a pool and goes back when the handler
// returns; nothing may keep a reference to it or its buffers afterwards.
type request struct {
	v   *view
	key *access.Key
	raw bool // the caller sees and sends raw integer ids (apify plan)

	locale   int    // index into the catalogue's locales
	imperial bool   // units=imperial applied
	limit    int    // page size, 1..maxLimit
	cursor   []byte // cursor as sent, a view into the request
	synced   int64  // meta.last_synced_at override (Unix s), 0 = the catalogue's

	rows    []uint32             // result rows of filters and searches
	matches []engine.SearchMatch // search results

	buf []byte // the body being rendered
	enc []byte // compressed body
	pos []byte // cursor positions
	tmp []byte
	hdr []byte // header values
}

var requestPool = sync.Pool{New: func() any {
	return &request{buf: make([]byte, 0, 16<<10), enc: make([]byte, 0, 4<<10), pos: make([]byte, 0, 64), tmp: make([]byte, 0, 64), hdr: make([]byte, 0, 64)}
}}

func getRequest() *request { return requestPool.Get().(*request) }

func putRequest(rq *request) {
	if cap(rq.buf) > 1<<20 { // do not keep a rare huge buffer alive
		rq.buf = make([]byte, 0, 16<<10)
	}
	*rq = request{buf: rq.buf[:0], enc: rq.enc[:0], pos: rq.pos[:0], tmp: rq.tmp[:0], hdr: rq.hdr[:0], rows: rq.rows[:0], matches: rq.matches[:0]}
	requestPool.Put(rq)
}

// Query parameters.

// param is a bit set of the query parameters a route accepts.
type param uint16

const (
	pLocale param = 1 << iota
	pLimit
	pCursor
	pUnits
)

var paramNames = []struct {
	p    param
	name string
}{{pLocale, "locale"}, {pLimit, "limit"}, {pCursor, "cursor"}, {pUnits, "units"}}

const (
	defaultLimit = 50
	maxLimit     = 50
)

// parseQuery reads the common parameters a route accepts and refuses, with
// a 400 naming it, any parameter it does not accept, a repeated one, a
// limit that is not an integer or is below 1, and an unknown units value.
// It returns false when it wrote a problem.
func (s *Service) parseQuery(ctx *fasthttp.RequestCtx, rq *request, accept param) bool {
	return s.parseQueryExcept(ctx, rq, accept, nil)
}

// parseQueryExcept is parseQuery for a route with its own parameters, which
// it leaves to the route.
func (s *Service) parseQueryExcept(ctx *fasthttp.RequestCtx, rq *request, accept param, own []string) bool {
	rq.locale = rq.v.cat.English()
	rq.limit = defaultLimit
	var seen param
	for k, v := range ctx.QueryArgs().All() {
		var p param
		for _, pn := range paramNames {
			if string(k) == pn.name {
				p = pn.p
			}
		}
		isOwn := false
		for _, o := range own {
			if string(k) == o {
				isOwn = true
			}
		}
		if isOwn {
			continue
		}
		if p == 0 || accept&p == 0 {
			badParam(ctx, rq, k, "is not a parameter of this endpoint"+acceptedList(accept))
			return false
		}
		if seen&p != 0 {
			badParam(ctx, rq, k, "is given more than once")
			return false
		}
		seen |= p
		switch p {
		case pLocale:
			// Any value that is not a published locale silently falls back
			// to English, as the contract says; meta.locale tells.
			rq.locale = rq.v.cat.LocaleOrEnglish(string(v))
		case pLimit:
			n, err := strconv.Atoi(string(v))
			if err != nil {
				badParam(ctx, rq, k, "must be an integer from 1 to 50 (values above 50 are clamped to 50)")
				return false
			}
			if n < 1 {
				badParam(ctx, rq, k, "must be at least 1 (values above 50 are clamped to 50)")
				return false
			}
			rq.limit = min(n, maxLimit)
		case pCursor:
			rq.cursor = v
		case pUnits:
			switch string(v) {
			case "metric":
			case "imperial":
				rq.imperial = true
			default:
				badParam(ctx, rq, k, "must be metric or imperial")
				return false
			}
		}
	}
	return true
}

func acceptedList(accept param) string {
	s := ""
	for _, pn := range paramNames {
		if accept&pn.p != 0 {
			if s != "" {
				s += ", "
			}
			s += pn.name
		}
	}
	if s == "" {
		return "; it takes no query parameters"
	}
	return "; it accepts " + s
}

func badParam(ctx *fasthttp.RequestCtx, rq *request, name []byte, what string) {
	problem(ctx, fasthttp.StatusBadRequest, "Bad Request", "The query parameter "+strconv.Quote(truncate(string(name), 64))+" "+what+".")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
