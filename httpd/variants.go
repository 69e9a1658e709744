package httpd

import (
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
)

// parseID resolves the id segment of a path: a token of the kind, or for
// the apify plan a raw stable id. An id that does not decode or names
// nothing is a 404 whose detail echoes the id as sent, never an internal
// id.
func (o *operations) parseID(rq *request, kind publicid.Kind, seg []byte) (uint32, error) {
	var id uint32
	ok := false
	if rq.raw {
		id, ok = parseRawID(seg)
	} else {
		id, ok = o.codec.Parse(kind, seg)
	}
	if ok {
		var row uint32
		c := rq.v.cat
		switch kind {
		case publicid.Variant:
			row, ok = c.VariantRow(id)
		case publicid.Generation:
			row, ok = c.GenerationRow(id)
		case publicid.Model:
			row, ok = c.ModelRow(id)
		}
		if ok {
			return row, nil
		}
	}
	return 0, notFound("No " + kindNames[kind] + " with id " + quoted(seg) + ".")
}

var kindNames = map[publicid.Kind]string{publicid.Variant: "variant", publicid.Generation: "generation", publicid.Model: "model"}

// parseRawID parses a decimal stable id strictly: digits only, no sign, no
// leading zero, at most 24 bits.
func parseRawID(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 8 || b[0] == '0' {
		return 0, false
	}
	var v uint32
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint32(c-'0')
	}
	return v, v <= publicid.MaxID
}

// variant answers VariantDetail: the summary fields, spec_count and the
// language-neutral spec document.
func (o *operations) variant(rq *request, p *Params) error {
	return o.variantBody(rq, p, cachedVariant, func(b []byte, row uint32) []byte {
		first, end := rq.v.cat.VariantSpecs(row)
		b = append(b, '{')
		b = rq.appendVariantFields(b, row)
		b = append(b, `,"spec_count":`...)
		b = strconv.AppendUint(b, uint64(end-first), 10)
		b = append(b, `,"specs":`...)
		b = rq.appendSpecsRaw(b, row)
		return append(b, '}')
	})
}

// variantSpecs answers VariantSpecs in the locale and units asked.
func (o *operations) variantSpecs(rq *request, p *Params) error {
	return o.variantBody(rq, p, cachedSpecs, rq.appendVariantSpecs)
}

// variantBody answers a cached single-variant route: the data member
// render appends, with meta, from the body cache when it holds it.
func (o *operations) variantBody(rq *request, p *Params, route uint64, render func([]byte, uint32) []byte) error {
	row, err := o.parseID(rq, publicid.Variant, p.Path)
	if err != nil {
		return err
	}
	o.variantRowBody(rq, row, route, render)
	return nil
}

// variantRowBody is variantBody for a variant row.
func (o *operations) variantRowBody(rq *request, row uint32, route uint64, render func([]byte, uint32) []byte) {
	key := rq.bodyKey(route, row)
	if o.cached(rq, key, nil) {
		return
	}
	rq.synced = rq.v.cat.VarSyncedAt[row]
	var data int
	rq.buf, data = rq.appendDataBody(rq.buf[:0], row, render)
	rq.done()
	o.store(rq, key, nil, data)
}

// appendDataBody appends the success body whose data member is what
// render appends for row, with meta; data is where that value ends.
func (rq *request) appendDataBody(dst []byte, row uint32, render func([]byte, uint32) []byte) (b []byte, data int) {
	b = render(append(dst, dataOpen...), row)
	data = len(b)
	b = rq.appendMeta(append(b, ','))
	return append(b, '}'), data
}

// dataOpen opens every success body.
const dataOpen = `{"data":`

// appendSpecsObject appends the VariantSpecs object of row in the
// request's locale, units and id view, and returns its xxHash too: the
// data member of its cached specs body when the body cache holds it;
// otherwise rendered, and its specs body cached for the next caller of
// either route.
func (o *operations) appendSpecsObject(rq *request, dst []byte, row uint32) ([]byte, uint64) {
	start := len(dst)
	if o.bodies == nil {
		dst = rq.appendVariantSpecs(dst, row)
		return dst, xxhash.Sum64(dst[start:])
	}
	key := rq.bodyKey(cachedSpecs, row)
	if r, ok := o.bodies.Get(key); ok && r.id == nil {
		o.bodyHit()
		return append(dst, r.body[len(dataOpen):r.data]...), r.dataSum
	}
	o.bodyMiss()
	dst = rq.appendVariantSpecs(dst, row)
	synced := rq.synced
	rq.synced = rq.v.cat.VarSyncedAt[row]
	body, data := rq.appendDataBody(make([]byte, 0, len(dst)-start+160), row, func(b []byte, _ uint32) []byte { return append(b, dst[start:]...) })
	rq.synced = synced
	return dst, o.keep(key, body, xxhash.Sum64(body), nil, data).dataSum
}

func (o *operations) variantImages(rq *request, p *Params) error {
	return o.variantBody(rq, p, cachedImages, rq.appendImages)
}

// appendImages appends the ImageRef list of a variant.
func (rq *request) appendImages(b []byte, row uint32) []byte {
	c := rq.v.cat
	first, end := c.VariantImages(row)
	b = append(b, '[')
	for i := first; i < end; i++ {
		if i > first {
			b = append(b, ',')
		}
		b = append(b, `{"url":"`...)
		b = c.AppendImageURL(b, rq.v.cdn, i) // slugs and hex need no escaping
		b = append(b, '"')
		if c.ImageRole[i] == engine.RoleHero {
			b = append(b, `,"variant":"hero"}`...)
		} else {
			b = append(b, `,"variant":"card"}`...)
		}
	}
	return append(b, ']')
}

func (o *operations) variantPrices(rq *request, p *Params) error {
	row, err := o.parseID(rq, publicid.Variant, p.Path)
	if err != nil {
		return err
	}
	if !rq.v.cat.VarHasPrice[row] {
		return notFound("No price snapshot is recorded for variant " + quoted(p.Path) + ".")
	}
	o.variantRowBody(rq, row, cachedPrices, rq.appendPrices)
	return nil
}

// appendPrices appends the price snapshot of a variant.
func (rq *request) appendPrices(b []byte, row uint32) []byte {
	c := rq.v.cat
	b = append(b, `{"variant_id":`...)
	b = rq.appendVariantID(b, row)
	b = append(b, `,"as_of":"`...)
	b = appendDate(b, c.VarPriceAsOf[row])
	b = append(b, `","price_eur":`...)
	if p := c.VarPriceEUR[row]; p == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return append(b, '}')
}
