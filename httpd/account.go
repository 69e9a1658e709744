package httpd

import (
	"strconv"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/access"
)

// The utilities of the full catalogue: the spec dictionary, the caller's
// usage, the export policy and the demo route for keys that are not demo
// keys.

func (o *operations) specCatalog(rq *request, p *Params) error {
	c := rq.v.cat
	bind := listBinding{codec: o.codec, route: routeSpecCatalog, lang: rq.lang}
	pos := bind.open(rq, p.Cursor)
	return o.cachedPage(rq, cachedSpecCatalog, 0, pos, func() error {
		start := 0
		if key, ok := parseSpecPosition(pos); ok {
			if i, ok := c.SpecIndex(key); ok {
				start = i + 1
			}
		}
		return o.specPage(rq, p, start, bind.hash())
	})
}

// specPage renders the page of the spec dictionary from spec start.
func (o *operations) specPage(rq *request, p *Params, start int, bind uint64) error {
	c := rq.v.cat
	end := min(len(c.Specs), start+p.Limit)
	f := &rq.v.specs
	b := append(rq.buf[:0], `{"data":[`...)
	for i := start; i < end; i++ {
		st := &c.Specs[i]
		if i > start {
			b = append(b, ',')
		}
		b = append(b, `{"spec_key":`...)
		b = append(b, f.keyString[i]...)
		b = append(b, `,"display_name":`...)
		b = c.AppendSpecLabelJSON(b, rq.locale, uint8(i))
		b = append(b, `,"unit":`...)
		b = append(b, f.unit[rq.locale][i]...)
		b = append(b, `,"group":`...)
		b = jsonenc.AppendString(b, c.Groups[st.Group])
		b = append(b, `,"group_label":`...)
		b = c.AppendGroupLabelJSON(b, rq.locale, st.Group)
		b = append(b, `,"kind":"`...)
		b = append(b, specKindNames[st.Kind]...)
		b = append(b, `"}`...)
	}
	var next []byte
	if end < len(c.Specs) {
		next = appendSpecPosition(rq.tmp[:0], c.Specs[end-1].Key)
		rq.tmp = next
	}
	return listEnd(o.codec, rq, b, bind, next)
}

// A spec position is the cursor key of the spec dictionary: the key of the
// last spec sent, so a page starts after it whatever the dictionary's
// order becomes.
func appendSpecPosition(dst []byte, key string) []byte { return append(dst, key...) }

func parseSpecPosition(pos []byte) (key string, ok bool) { return string(pos), len(pos) > 0 }

var specKindNames = [...]string{engine.KindNumber: "number", engine.KindInt: "integer", engine.KindBool: "boolean", engine.KindEnum: "label", engine.KindText: "text"}

// usage answers the calling key's plan, quota and use this month; it
// changes with every call, so it is never cached.
func (o *operations) usage(rq *request, p *Params) error {
	now := o.now()
	k := rq.key
	b := append(rq.buf[:0], `{"data":{"plan":"`...)
	b = append(b, k.Plan.String()...)
	b = append(b, `","quota":`...)
	b = strconv.AppendInt(b, o.limits[k.Plan][access.Month], 10)
	b = append(b, `,"used":`...)
	// This request is already reserved: it counts.
	b = strconv.AppendInt(b, rq.usedMonth, 10)
	b = append(b, `,"resets_at":"`...)
	b = resetsAt(b, now)
	rq.noStore = true
	return rq.object(append(b, `"}`...))
}

func resetsAt(dst []byte, now time.Time) []byte {
	now = now.UTC()
	return time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC).AppendFormat(dst, time.RFC3339)
}

func (o *operations) export(rq *request, p *Params) error {
	return forbidden("Bulk data is never served by the API. Licensed exports (CSV and JSON, with a field dictionary, a coverage sheet and optional quarterly updates) are arranged by hand: see " + o.licensing + ".").kind("export-not-offered")
}

// demoForOthers answers GET /v1/demo for keys that are not demo keys.
func (o *operations) demoForOthers(rq *request, p *Params) error {
	return notFound("/v1/demo lists the demo set for demo keys; this key reaches the full catalogue.")
}
