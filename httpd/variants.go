package httpd

import (
	"strconv"

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

// variantBody answers a cached single-variant route: the data object
// render appends, with meta, from the body cache when it holds it.
func (o *operations) variantBody(rq *request, p *Params, route uint64, render func([]byte, uint32) []byte) error {
	row, err := o.parseID(rq, publicid.Variant, p.Path)
	if err != nil {
		return err
	}
	key := rq.bodyKey(route, row)
	if o.cached(rq, key) {
		return nil
	}
	rq.synced = rq.v.cat.VarSyncedAt[row]
	b := render(append(rq.buf[:0], `{"data":`...), row)
	b = rq.appendMeta(append(b, ','))
	rq.buf = append(b, '}')
	o.store(rq, key)
	return nil
}

func (o *operations) variantImages(rq *request, p *Params) error {
	row, err := o.parseID(rq, publicid.Variant, p.Path)
	if err != nil {
		return err
	}
	rq.synced = rq.v.cat.VarSyncedAt[row]
	rq.buf = rq.appendImages(rq.buf[:0], row)
	return rq.done()
}

// appendImages renders the ImageRef list body of a variant.
func (rq *request) appendImages(b []byte, row uint32) []byte {
	c := rq.v.cat
	first, end := c.VariantImages(row)
	b = append(b, `{"data":[`...)
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
	b = append(b, "],"...)
	b = rq.appendMeta(b)
	return append(b, '}')
}

func (o *operations) variantPrices(rq *request, p *Params) error {
	row, err := o.parseID(rq, publicid.Variant, p.Path)
	if err != nil {
		return err
	}
	c := rq.v.cat
	if !c.VarHasPrice[row] {
		return notFound("No price snapshot is recorded for variant " + quoted(p.Path) + ".")
	}
	rq.synced = c.VarSyncedAt[row]
	b := append(rq.buf[:0], `{"data":{"variant_id":`...)
	b = rq.appendVariantID(b, row)
	b = append(b, `,"as_of":"`...)
	b = appendDate(b, c.VarPriceAsOf[row])
	b = append(b, `","price_eur":`...)
	if p := c.VarPriceEUR[row]; p == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return rq.object(append(b, '}'))
}
