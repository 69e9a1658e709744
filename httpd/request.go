package httpd

import (
	"bytes"
	"encoding/binary"
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
	scores  *[64]scoreText       // search scores formatted lately, by a hash of their bits; kept across calls

	buf  []byte // the body being rendered
	enc  []byte // compressed body
	pos  []byte // cursor positions
	tmp  []byte
	sums []byte // what a body assembled from hashed parts is hashed over (compare, variantPage)
	id   []byte // a list page's identity (pageKey)
	hdr  []byte // header values

	// The answer: body, its xxHash, and whether it is immutable (cached or
	// pre-rendered, sent without a copy) or never to be cached.
	body    []byte
	sum     uint64
	fixed   bool
	noStore bool
}

var requestPool = sync.Pool{New: func() any {
	return &request{buf: make([]byte, 0, 16<<10), enc: make([]byte, 0, 4<<10), pos: make([]byte, 0, 64), tmp: make([]byte, 0, 64), id: make([]byte, 0, 64), hdr: make([]byte, 0, 64),
		sums: make([]byte, 0, 1<<10), scores: new([64]scoreText)}
}}

func getRequest() *request { return requestPool.Get().(*request) }

func putRequest(rq *request) {
	if cap(rq.buf) > 1<<20 { // do not keep a rare huge buffer alive
		rq.buf = make([]byte, 0, 16<<10)
	}
	// The score memo stays: its entries are right for any call, and
	// clearing its 1.3 KB cost more than a small route's handler.
	*rq = request{buf: rq.buf[:0], enc: rq.enc[:0], pos: rq.pos[:0], tmp: rq.tmp[:0], sums: rq.sums[:0], id: rq.id[:0], hdr: rq.hdr[:0], rows: rq.rows[:0], matches: rq.matches[:0],
		scores: rq.scores}
	requestPool.Put(rq)
}

// done makes rq.buf the answer.
func (rq *request) done() error {
	rq.body, rq.sum, rq.fixed = rq.buf, xxhash.Sum64(rq.buf), false
	return nil
}

// doneParts makes rq.buf, assembled from parts whose hashes are known,
// the answer: its content hash is taken over sums (a salt and each part's
// xxHash in order, 8 bytes little-endian each) and the body's bytes from
// tail on, not over the whole body. Those determine the body, so its ETag
// changes exactly when the body does, as a strong validator must (the
// salt: the bytes hashed are never a body). See compareSalt and pageSalt.
func (rq *request) doneParts(sums []byte, tail int) error {
	rq.sums = append(sums, rq.buf[tail:]...)
	rq.body, rq.sum, rq.fixed = rq.buf, xxhash.Sum64(rq.sums), false
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
func (rq *request) appendMeta(dst []byte) []byte { return rq.appendMetaNote(dst, nil) }

// appendMetaNote appends the meta object with note (a JSON string) as
// meta.note, unless nil.
func (rq *request) appendMetaNote(dst, note []byte) []byte {
	dst = append(dst, `"meta":{"last_synced_at":"`...)
	if rq.synced != 0 {
		dst = appendRFC3339(dst, rq.synced)
	} else {
		dst = append(dst, rq.syncedText...)
	}
	dst = append(dst, `","locale":"`...)
	dst = append(dst, rq.lang...) // locale codes need no escaping
	if rq.imperial {
		dst = append(dst, `","units":"imperial"`...)
	} else {
		dst = append(dst, `","units":"metric"`...)
	}
	if note != nil {
		dst = append(append(dst, `,"note":`...), note...)
	}
	return append(dst, '}')
}

// Routes whose rendered bodies are cached, for bodyKey and pageKey.
const (
	cachedVariant uint64 = iota + 1
	cachedSpecs
	cachedImages
	cachedPrices
	cachedBrands
	cachedModels
	cachedGenerations
	cachedGenVariants
	cachedSpecCatalog
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

// pageKey identifies a page of a finite list (brands, a brand's models, a
// model's generations, a generation's variants, the spec dictionary): the
// view, the route, the id view, the locale, the page size, the row whose
// list it is and the position the page starts after (nil: the first page).
// Those do not fit 64 bits, so the key is their hash and id their bytes
// (in rq.id), which a cached page must match exactly.
func (rq *request) pageKey(route uint64, parent uint32, pos []byte) (key uint64, id []byte) {
	id = binary.LittleEndian.AppendUint32(rq.id[:0], rq.v.epoch)
	id = binary.LittleEndian.AppendUint32(id, parent)
	flags := byte(0)
	if rq.raw {
		flags = 1
	}
	id = append(id, byte(route), flags, byte(rq.p.Limit))
	id = binary.LittleEndian.AppendUint16(id, uint16(rq.locale))
	id = append(id, pos...)
	rq.id = id
	return xxhash.Sum64(id), id
}

// rendered is an immutable rendered body, its content hash and, for a
// list page, the identity its key was hashed from (nil otherwise).
type rendered struct {
	key     uint64 // its key in the body cache
	body    []byte
	sum     uint64
	id      []byte
	data    int    // body[len(`{"data":`):data] is the data member's value
	dataSum uint64 // its xxHash, when data > 0
}

// cached makes the cached body of key, whose identity is id (nil for
// bodyKey), the answer and reports true, or reports false so that the
// operation renders it and calls store.
func (o *operations) cached(rq *request, key uint64, id []byte) bool {
	if o.bodies == nil {
		return false
	}
	r, ok := o.bodies.Get(key)
	if ok && bytes.Equal(r.id, id) {
		o.bodyHit()
		rq.doneFixed(r.body, r.sum)
		return true
	}
	o.bodyMiss()
	return false
}

// store keeps an immutable copy of the answer in rq.buf (made by done or
// doneParts, whose content hash it keeps) under key with its identity id
// (nil for bodyKey), and makes that copy the answer; data is the end of
// the data member in rq.buf, or 0.
func (o *operations) store(rq *request, key uint64, id []byte, data int) {
	if o.bodies == nil {
		return
	}
	r := o.keep(key, append([]byte(nil), rq.buf...), rq.sum, id, data)
	rq.doneFixed(r.body, r.sum)
}

// keep caches body, whose content hash is sum and which it owns from then
// on, under key: see store.
func (o *operations) keep(key uint64, body []byte, sum uint64, id []byte, data int) *rendered {
	r := &rendered{key: key, body: body, sum: sum, data: data}
	if data > 0 {
		r.dataSum = xxhash.Sum64(body[len(dataOpen):data])
	}
	if id != nil {
		r.id = append([]byte(nil), id...)
	}
	o.bodies.Set(r, int64(len(r.body)+len(r.id))+64)
	return r
}

// cachedPage answers a page of a finite list from the body cache, or
// renders it (render fills rq.buf and calls rq.done) and keeps it: see
// pageKey.
func (o *operations) cachedPage(rq *request, route uint64, parent uint32, pos []byte, render func() error) error {
	if o.bodies == nil {
		return render()
	}
	key, id := rq.pageKey(route, parent, pos)
	if o.cached(rq, key, id) {
		return nil
	}
	if err := render(); err != nil {
		return err
	}
	o.store(rq, key, id, 0)
	return nil
}
