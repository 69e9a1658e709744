package httpd

import (
	"strings"
	"unicode"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
)

// The operations of the demo tier: each answers from the demo view alone
// (rq.v is nil), see demo.go.

// localeOrEnglish is the index of a locale code, English when it is not
// published.
func (d *demoView) localeOrEnglish(code []byte) int {
	if i, ok := d.locales[string(code)]; ok {
		return i
	}
	return d.english
}

func demoRebuilding() *Error {
	return unavailable(300, "The demo set is being rebuilt. Your demo key is fine: retry in 5 minutes.").kind("demo-rebuilding")
}

// outsideTier is the 403 of an operation the demo tier does not have.
func (d *demoView) outsideTier(op *operation) *Error {
	return forbidden(op.path + " is not part of the demo tier: demo keys reach the 40 cars of the demo set (GET /v1/demo lists them). For the full catalogue, see " + d.upgradeURL + ".").kind("outside-demo")
}

// outsideCar is the 403 of an id outside the demo set, or one that does
// not decode.
func (d *demoView) outsideCar() *Error {
	return forbidden("This car is outside the demo set: demo keys reach the 40 cars GET /v1/demo lists. For the full catalogue, see " + d.upgradeURL + ".").kind("outside-demo")
}

// stableID decodes a token of the kind; the demo tier never takes raw ids.
func (d *demoView) stableID(kind publicid.Kind, seg []byte) (uint32, error) {
	id, ok := d.codec.Parse(kind, seg)
	if !ok {
		return 0, d.outsideCar()
	}
	return id, nil
}

// car returns the index of the variant a path names.
func (d *demoView) car(seg []byte) (int, error) {
	id, err := d.stableID(publicid.Variant, seg)
	if err != nil {
		return 0, err
	}
	i, ok := d.cars[id]
	if !ok {
		return 0, d.outsideCar()
	}
	return i, nil
}

// A demo position is the cursor key of a demo list or of a demo search:
// the index of the next item to send, one byte (the set holds 40 cars).
func appendDemoPosition(dst []byte, next int) []byte { return append(dst, byte(next)) }

// parseDemoPosition reads a demo position; a missing or unreadable one is
// the start of the list.
func parseDemoPosition(pos []byte) (next int, ok bool) {
	if len(pos) != 1 {
		return 0, false
	}
	return int(pos[0]), true
}

// page sends a page of a demo list.
func (d *demoView) page(rq *request, p *Params, l *demoList) error {
	if l == nil {
		return d.outsideCar()
	}
	bind := binding(d.codec, tierDemo, l.route, l.param, rq.lang)
	start, _ := parseDemoPosition(openCursor(d.codec, rq, p.Cursor, bind))
	items := l.items[rq.locale]
	start = min(start, len(items))
	end := min(len(items), start+p.Limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, item := range items[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
	}
	var next []byte
	if end < len(items) {
		next = appendDemoPosition(rq.tmp[:0], end)
		rq.tmp = next
	}
	return listEndNote(d.codec, rq, b, bind, next, d.listNote)
}

func (d *demoView) brands(rq *request, p *Params) error { return d.page(rq, p, &d.brandList) }

func (d *demoView) brand(rq *request, p *Params) error {
	item, ok := d.brandItem[string(p.Path)]
	if !ok {
		return d.outsideCar()
	}
	return rq.object(append(append(rq.buf[:0], `{"data":`...), item[rq.locale]...))
}

func (d *demoView) models(rq *request, p *Params) error {
	return d.page(rq, p, d.modelLists[string(p.Path)])
}

func (d *demoView) generations(rq *request, p *Params) error {
	id, err := d.stableID(publicid.Model, p.Path)
	if err != nil {
		return err
	}
	return d.page(rq, p, d.genLists[id])
}

func (d *demoView) generationVariants(rq *request, p *Params) error {
	id, err := d.stableID(publicid.Generation, p.Path)
	if err != nil {
		return err
	}
	return d.page(rq, p, d.varLists[id])
}

// variant answers variant detail for a demo car: the summary fields,
// without spec_count and specs.
func (d *demoView) variant(rq *request, p *Params) error {
	return d.carBody(rq, p, d.detailBody[rq.locale])
}

func (d *demoView) variantSpecs(rq *request, p *Params) error {
	return d.carBody(rq, p, d.specsBody[boolIndex(rq.imperial)][rq.locale])
}

func (d *demoView) variantImages(rq *request, p *Params) error {
	return d.carBody(rq, p, d.imagesBody[rq.locale])
}

// carBody answers with the pre-rendered body of the car the path names.
func (d *demoView) carBody(rq *request, p *Params, bodies []rendered) error {
	i, err := d.car(p.Path)
	if err != nil {
		return err
	}
	return rq.doneFixed(bodies[i].body, bodies[i].sum)
}

// compare compares cars of the demo set; one outside it, or an id that
// does not decode, is a 403.
func (d *demoView) compare(rq *request, p *Params) error {
	var cars [maxCompare]int
	for i, seg := range p.IDs[:p.NIDs] {
		car, err := d.car(seg)
		if err != nil {
			return err
		}
		cars[i] = car
	}
	objects := d.specsObject[boolIndex(rq.imperial)][rq.locale]
	b := append(rq.buf[:0], `{"data":[`...)
	for i, car := range cars[:p.NIDs] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, objects[car]...)
		rq.synced = max(rq.synced, d.carSynced[car])
	}
	b = append(b, "],"...)
	b = rq.appendMeta(b)
	rq.buf = append(b, '}')
	return rq.done()
}

// search is the demo tier's search: a substring match of the folded query
// over the folded "brand model generation display-name" of the 40 cars
// (the brand as the locale writes it and in Latin), in demo order. score
// is null: there is no ranking.
func (d *demoView) search(rq *request, p *Params) error {
	folded := engine.Fold(string(p.Q))
	bind := binding(d.codec, tierDemo, routeSearch, []byte(folded), rq.lang)
	start, _ := parseDemoPosition(openCursor(d.codec, rq, p.Cursor, bind))
	b := append(rq.buf[:0], `{"data":[`...)
	n := 0
	var next []byte
	if strings.IndexFunc(folded, isWordRune) >= 0 { // no letter or digit: nothing
		for i, text := range d.searchText[rq.locale] {
			if i < start || !strings.Contains(text, folded) {
				continue
			}
			if n == p.Limit { // one more: a next page exists
				next = appendDemoPosition(rq.tmp[:0], i)
				rq.tmp = next
				break
			}
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, d.searchItem[rq.locale][i]...)
			n++
		}
	}
	return listEndNote(d.codec, rq, b, bind, next, d.searchNote)
}

// set answers GET /v1/demo.
func (d *demoView) setOp(rq *request, p *Params) error {
	r := &d.setBody[rq.locale]
	return rq.doneFixed(r.body, r.sum)
}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
