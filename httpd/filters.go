package httpd

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/query"
	"github.com/vspec/catalogue/httpd/publicid"
)

// filter answers GET /v1/variants: the variants meeting every filter
// given, in stable-id order, paged by a keyset cursor.
//
// An unknown fuel, body or drive matches nothing; ev=true keeps
// battery-electric variants only, as the contract says.
func (o *operations) filter(rq *request, p *Params) error {
	f := o.filterQuery(rq, p)
	q, canon := f.q, f.canon // canon, the canonical filter text, is bound into the cursor
	bind := binding(o.codec, tierFull, routeFilter, canon, rq.lang)
	after, _ := engine.ParseIDPosition(openCursor(o.codec, rq, p.Cursor, bind))
	fs := engine.GetFilterScratch()
	defer engine.PutFilterScratch(fs)
	rows, err := rq.v.cat.Filter(rq.rows[:0], q, after, p.Limit, fs)
	if err != nil {
		return badRequest("The filters cannot be combined: " + err.Error())
	}
	rq.rows = rows
	return o.variantPage(rq, p, rows, bind)
}

// filterQuery is the simplified query of a filter call and its canonical
// text: what its filter parameters alone determine.
type filterQuery struct {
	params []byte // the parameters, as appendFilterParams packs them
	q      query.Q
	canon  []byte
}

// filterQueries remembers the filterQuery of recent filter parameters: a
// slot per hash of the packed parameters, the last one wins. Building and
// simplifying a query allocates about ten times; a hit, not at all.
type filterQueries [1024]atomic.Pointer[filterQuery]

// filterQuery returns the filterQuery of p's filter parameters, from
// o.queries when it holds them.
func (o *operations) filterQuery(rq *request, p *Params) *filterQuery {
	key := appendFilterParams(rq.tmp[:0], p)
	rq.tmp = key
	slot := &o.queries[xxhash.Sum64(key)%uint64(len(o.queries))]
	if f := slot.Load(); f != nil && bytes.Equal(f.params, key) {
		return f
	}
	q := newFilterQuery(p)
	f := &filterQuery{params: bytes.Clone(key), q: q, canon: q.AppendText(nil)}
	slot.Store(f)
	return f
}

// appendFilterParams packs the filter parameters of p, each value with
// its length or presence, so that two different sets never pack alike.
func appendFilterParams(dst []byte, p *Params) []byte {
	for _, v := range [...][]byte{p.Fuel, p.Body, p.Drive} {
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
	}
	for _, v := range [...]optInt{p.PowerMin, p.PowerMax, p.PriceMax, p.Year} {
		if !v.set {
			dst = append(dst, 0)
			continue
		}
		dst = binary.LittleEndian.AppendUint64(append(dst, 1), uint64(v.v))
	}
	if p.EV {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// newFilterQuery builds the simplified query of p's filter parameters.
func newFilterQuery(p *Params) query.Q {
	conds := make([]query.Q, 0, 8)
	term := func(f query.Field, v []byte) {
		if len(v) > 0 {
			conds = append(conds, query.Term{Field: f, Value: string(v)})
		}
	}
	term(query.Fuel, p.Fuel)
	term(query.Body, p.Body)
	term(query.Drive, p.Drive)
	if p.PowerMin.set {
		conds = append(conds, query.AtLeast(query.Power, p.PowerMin.v))
	}
	if p.PowerMax.set {
		conds = append(conds, query.AtMost(query.Power, p.PowerMax.v))
	}
	if p.PriceMax.set {
		conds = append(conds, query.AtMost(query.Price, p.PriceMax.v))
	}
	if p.Year.set {
		conds = append(conds, query.Range{Field: query.Year, Lo: p.Year.v, Hi: p.Year.v})
	}
	if p.EV {
		conds = append(conds, query.Term{Field: query.Fuel, Value: "electric"})
	}
	return query.Simplify(query.And{Children: conds})
}

// compare answers GET /v1/compare?ids=: 2 to 4 variants side by side, in
// the order asked, each a VariantSpecs in the requested locale and units.
// Every id is decoded strictly: one that cannot be read fails the whole
// call with a 400 naming it; a well-formed id of no variant is a 404.
func (o *operations) compare(rq *request, p *Params) error {
	c := rq.v.cat
	var rows [maxCompare]uint32
	var missing []byte
	for i, seg := range p.IDs[:p.NIDs] {
		var id uint32
		var ok bool
		if rq.raw {
			id, ok = parseRawID(seg)
		} else {
			id, ok = o.codec.Parse(publicid.Variant, seg)
		}
		if !ok {
			return badRequest("The query parameter " + strconv.Quote(paramIDs.Name) + " holds " + quoted(seg) + ", which is not a variant id; nothing was compared.")
		}
		row, found := c.VariantRow(id)
		if !found && missing == nil {
			missing = seg
		}
		rows[i] = row
	}
	if missing != nil {
		return notFound("No variant with id " + quoted(missing) + "; nothing was compared.")
	}
	b := append(rq.buf[:0], `{"data":[`...)
	// The body's content hash is taken over its parts' hashes and its tail
	// (doneParts), not over its 15-60 KB.
	sums := binary.LittleEndian.AppendUint64(rq.sums[:0], compareSalt)
	for i, r := range rows[:p.NIDs] {
		if i > 0 {
			b = append(b, ',')
		}
		var sum uint64
		b, sum = o.appendSpecsObject(rq, b, r)
		sums = binary.LittleEndian.AppendUint64(sums, sum)
		rq.synced = max(rq.synced, c.VarSyncedAt[r])
	}
	b = append(b, "],"...)
	tail := len(b)
	b = rq.appendMeta(b)
	rq.buf = append(b, '}')
	return rq.doneParts(sums, tail)
}

// compareSalt starts the hashes a compare body's content hash is taken
// over (doneParts): the compared VariantSpecs objects'.
const compareSalt = 0x636f6d7061726534 // "compare4"
