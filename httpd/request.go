package httpd

import (
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/access"
)

// request is the per-call scratch: the view the call answers from, the
// caller, the parsed parameters, the buffers the answer is rendered into
// and the answer itself. It comes from a pool and goes back when the
// transport has sent the answer; nothing may keep a reference to it or its
// buffers afterwards.
type request struct {
	v   *view // the full catalogue; nil in the demo tier, which answers from its own view
	key *access.Key
	// usedMonth is the key's count this month with this call, from its
	// reservation.
	usedMonth int64
	raw       bool // the caller sees and sends raw integer ids (apify plan)
	p         Params

	locale     int    // index into the locales
	lang       []byte // the locale's code: meta.locale and Content-Language
	imperial   bool   // units=imperial applied
	synced     int64  // meta.last_synced_at override (Unix s), 0 = syncedText
	syncedText []byte // the catalogue's meta.last_synced_at, RFC 3339

	rows    []uint32             // result rows of filters and searches
	matches []engine.SearchMatch // search results

	buf []byte // the body being rendered
	enc []byte // compressed body
	pos []byte // cursor positions
	tmp []byte
	hdr []byte // header values

	// The answer: body, its xxHash, and whether it is immutable (cached or
	// pre-rendered, sent without a copy) or never to be cached.
	body    []byte
	sum     uint64
	fixed   bool
	noStore bool
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

// done makes rq.buf the answer.
func (rq *request) done() error {
	rq.body, rq.sum, rq.fixed = rq.buf, xxhash.Sum64(rq.buf), false
	return nil
}

// doneFixed makes an immutable body, whose xxHash is sum, the answer.
func (rq *request) doneFixed(body []byte, sum uint64) error {
	rq.body, rq.sum, rq.fixed = body, sum, true
	return nil
}

// object closes b, `{"data":` and one object, with meta: the answer.
func (rq *request) object(b []byte) error {
	b = append(b, ',')
	b = rq.appendMeta(b)
	rq.buf = append(b, '}')
	return rq.done()
}

// appendMeta appends the meta object of a success body.
func (rq *request) appendMeta(dst []byte) []byte {
	dst = append(dst, `"meta":{"last_synced_at":"`...)
	if rq.synced != 0 {
		dst = appendRFC3339(dst, rq.synced)
	} else {
		dst = append(dst, rq.syncedText...)
	}
	dst = append(dst, `","locale":"`...)
	dst = append(dst, rq.lang...) // locale codes need no escaping
	if rq.imperial {
		return append(dst, `","units":"imperial"}`...)
	}
	return append(dst, `","units":"metric"}`...)
}

// Routes whose rendered bodies are cached, for bodyKey.
const (
	cachedVariant uint64 = 1
	cachedSpecs   uint64 = 2
)

// bodyKey identifies a rendered single-variant body exactly: the view, the
// route, the id view, the units, the locale and the row, packed into 64
// bits, so two different bodies can never share a key.
func (rq *request) bodyKey(route uint64, row uint32) uint64 {
	k := uint64(rq.v.epoch)<<40 | route<<36 | uint64(rq.locale)<<26 | uint64(row)
	if rq.raw {
		k |= 1 << 25
	}
	if rq.imperial {
		k |= 1 << 24
	}
	return k
}

// rendered is an immutable rendered body and its content hash.
type rendered struct {
	body []byte
	sum  uint64
}

// cached makes the cached body of key the answer and reports true, or
// reports false so that the operation renders it and calls store.
func (o *operations) cached(rq *request, key uint64) bool {
	if o.bodies == nil {
		return false
	}
	r, ok := o.bodies.Get(key)
	if ok {
		o.bodyHit()
		rq.doneFixed(r.body, r.sum)
	} else {
		o.bodyMiss()
	}
	return ok
}

// store makes rq.buf the answer and keeps an immutable copy under key.
func (o *operations) store(rq *request, key uint64) {
	if o.bodies == nil {
		rq.done()
		return
	}
	r := &rendered{body: append([]byte(nil), rq.buf...)}
	r.sum = xxhash.Sum64(r.body)
	o.bodies.Set(key, r, int64(len(r.body))+64)
	rq.doneFixed(r.body, r.sum)
}
