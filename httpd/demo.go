package httpd

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/publicid"
)

// The demo tier answers demo keys from the frozen 40-car set only: the
// browse chain restricted to the set, variant detail without specs, specs,
// images, compare and search inside the set, and GET /v1/demo. Every other
// route, every car outside the set and every token that does not decode is
// a 403 (never a 404) whose detail gives the upgrade path. Its handlers are
// separate from the catalogue's (each route names its demo twin in routes),
// and its responses come from the same serializers, so the shapes cannot
// drift apart; the bodies that do not depend on paging are rendered once
// per locale when a catalogue is installed.

// demoView is the demo set of one installed catalogue.
type demoView struct {
	variants, gens, models, brands map[uint32]bool // rows in the set
	rows                           []uint32        // the 40 variant rows in demo order
	set                            string          // the set in words
	fuels                          []string        // fuel slugs represented, sorted

	setBody     [][]byte       // GET /v1/demo per locale
	detailBody  [][][]byte     // [locale][i] GET /v1/variants/{id}
	specsBody   [2][][][]byte  // [imperial][locale][i] GET /v1/variants/{id}/specs
	specsObject [2][][][]byte  // [imperial][locale][i] the VariantSpecs object alone, for compare
	imagesBody  [][]byte       // [i] GET /v1/variants/{id}/images (locale en)
	index       map[uint32]int // variant row -> i
	searchText  [][]string     // [locale][i] folded "brand (localized and Latin) model generation display-name"
}

// demoSize is the size of a complete demo set.
const demoSize = 40

// buildDemo derives and pre-renders the demo set of v, or returns nil when
// the catalogue carries no complete one.
func (s *Service) buildDemo(v *view) *demoView {
	c := v.cat
	if len(c.Demo) != demoSize {
		return nil
	}
	d := &demoView{variants: map[uint32]bool{}, gens: map[uint32]bool{}, models: map[uint32]bool{}, brands: map[uint32]bool{}, index: map[uint32]int{}}
	fuels := map[string]bool{}
	var brandOrder []uint32
	modelsOf := map[uint32][]string{}
	for i, r := range c.Demo {
		g := c.VarGen[r]
		m := c.GenModel[g]
		b := c.ModelBrand[m]
		d.variants[r], d.gens[g] = true, true
		if !d.models[m] {
			modelsOf[b] = append(modelsOf[b], c.ModelName.String(m))
		}
		d.models[m] = true
		if !d.brands[b] {
			brandOrder = append(brandOrder, b)
		}
		d.brands[b] = true
		d.rows = append(d.rows, r)
		d.index[r] = i
		fuels[c.FuelSlug(c.VarFuel[r])] = true
	}
	for f := range fuels {
		d.fuels = append(d.fuels, f)
	}
	sort.Strings(d.fuels)
	var parts []string
	for _, b := range brandOrder {
		parts = append(parts, c.BrandName.String(b)+" "+strings.Join(modelsOf[b], " and "))
	}
	d.set = strconv.Itoa(demoSize) + " cars: " + strings.Join(parts, ", ") + "; two generations of each model and two variants of each generation, covering " + strconv.Itoa(len(d.fuels)) + " fuel types."

	rq := &request{v: v}
	L := len(c.Locales)
	d.setBody = make([][]byte, L)
	d.detailBody = make([][][]byte, L)
	for k := 0; k < 2; k++ {
		d.specsBody[k] = make([][][]byte, L)
		d.specsObject[k] = make([][][]byte, L)
	}
	for li := 0; li < L; li++ {
		rq.locale = li
		rq.imperial, rq.synced = false, 0
		d.setBody[li] = s.renderDemoSet(rq, d)
		d.detailBody[li] = make([][]byte, demoSize)
		for k := 0; k < 2; k++ {
			d.specsBody[k][li] = make([][]byte, demoSize)
			d.specsObject[k][li] = make([][]byte, demoSize)
		}
		for i, r := range d.rows {
			rq.imperial = false
			rq.synced = c.VarSyncedAt[r]
			b := append([]byte(`{"data":{`), nil...)
			b = rq.appendVariantFields(b, r)
			b = append(b, "},"...)
			b = s.appendMeta(b, rq)
			d.detailBody[li][i] = append(b, '}')
			for k := 0; k < 2; k++ {
				rq.imperial = k == 1
				obj := rq.appendVariantSpecs(nil, r)
				d.specsObject[k][li][i] = obj
				b := append(append([]byte(`{"data":`), obj...), ',')
				b = s.appendMeta(b, rq)
				d.specsBody[k][li][i] = append(b, '}')
			}
		}
	}
	d.searchText = make([][]string, L)
	for li := 0; li < L; li++ {
		d.searchText[li] = make([]string, demoSize)
		for i, r := range d.rows {
			g := c.VarGen[r]
			m := c.GenModel[g]
			b := c.ModelBrand[m]
			d.searchText[li][i] = engine.Fold(c.BrandDisplayName(li, b) + " " + c.BrandName.String(b) + " " + c.ModelName.String(m) + " " + c.GenName.String(g) + " " + c.VarName.String(r))
		}
	}
	rq.locale, rq.imperial = c.English(), false
	d.imagesBody = make([][]byte, demoSize)
	for i, r := range d.rows {
		rq.synced = c.VarSyncedAt[r]
		d.imagesBody[i] = s.renderImages(rq, r)
	}
	return d
}

// renderDemoSet renders GET /v1/demo in rq's locale.
func (s *Service) renderDemoSet(rq *request, d *demoView) []byte {
	c := rq.v.cat
	b := append([]byte(nil), `{"data":{"variant_count":`...)
	b = strconv.AppendInt(b, demoSize, 10)
	b = append(b, `,"set":`...)
	b = jsonenc.AppendString(b, d.set)
	b = append(b, `,"fuels":[`...)
	for i, f := range d.fuels {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, f)
	}
	b = append(b, `],"upgrade":`...)
	b = jsonenc.AppendString(b, "The demo covers these 40 cars only. For the full catalogue of "+strconv.Itoa(len(c.VarID))+" variants, see "+s.opts.UpgradeURL+".")
	b = append(b, `,"variants":[`...)
	for i, r := range d.rows {
		if i > 0 {
			b = append(b, ',')
		}
		g := c.VarGen[r]
		m := c.GenModel[g]
		b = append(b, `{"variant_id":`...)
		b = rq.appendVariantID(b, r)
		b = append(b, `,"generation_id":`...)
		b = rq.appendGenerationID(b, g)
		b = append(b, `,"model_id":`...)
		b = rq.appendModelID(b, m)
		b = append(b, `,"brand":`...)
		b = c.AppendBrandNameJSON(b, rq.locale, c.ModelBrand[m])
		b = append(b, `,"model":`...)
		b = jsonenc.AppendString(b, c.ModelName.String(m))
		b = append(b, `,"generation":`...)
		b = jsonenc.AppendString(b, c.GenName.String(g))
		b = append(b, `,"display_name":`...)
		b = c.AppendVariantNameJSON(b, r)
		b = append(b, `,"fuel":"`...)
		b = append(b, c.FuelSlug(c.VarFuel[r])...)
		b = append(b, `","body_type":`...)
		b = jsonenc.AppendString(b, c.BodyLabel(c.English(), c.VarBody[r]))
		b = append(b, `,"years":"`...)
		b = strconv.AppendUint(b, uint64(c.GenYearStart[g]), 10)
		b = append(b, "–"...)
		if y := c.GenYearEnd[g]; y != 0 {
			b = strconv.AppendUint(b, uint64(y), 10)
		}
		b = append(b, `","power_hp":`...)
		b = appendNullableInt(b, c.VarPowerHP[r])
		b = append(b, `,"price_new_eur":`...)
		b = appendPriceNew(b, c, r)
		b = append(b, `,"battery_kwh":`...)
		b = appendNullableTenths(b, c.VarBatteryKWh[r])
		b = append(b, '}')
	}
	b = append(b, "]},"...)
	b = s.appendMeta(b, rq)
	return append(b, '}')
}

// demoFor returns the demo view, or writes the 503 of a set being rebuilt.
func (s *Service) demoFor(ctx *fasthttp.RequestCtx, rq *request) *demoView {
	if d := rq.v.demo; d != nil {
		return d
	}
	ctx.Response.Header.SetBytesKV(headerRetryAfter, []byte("300"))
	problem(ctx, fasthttp.StatusServiceUnavailable, "Service Unavailable",
		"The demo set is being rebuilt. Your demo key is fine: retry in 5 minutes.")
	return nil
}

// sendFixed sends a pre-rendered immutable body.
func (s *Service) sendFixed(ctx *fasthttp.RequestCtx, rq *request, body []byte) {
	s.send(ctx, rq, body, xxhash.Sum64(body), true)
}

func (s *Service) demoSet(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	if d := s.demoFor(ctx, rq); d != nil {
		s.sendFixed(ctx, rq, d.setBody[rq.locale])
	}
}

// demoForOthers answers GET /v1/demo for keys that are not demo keys.
func (s *Service) demoForOthers(ctx *fasthttp.RequestCtx, rq *request) {
	problem(ctx, fasthttp.StatusNotFound, "Not Found", "/v1/demo lists the demo set for demo keys; this key reaches the full catalogue.")
}

// demoOutside answers a route outside the demo tier.
func (s *Service) demoOutside(ctx *fasthttp.RequestCtx, rq *request) {
	problem(ctx, fasthttp.StatusForbidden, "Forbidden", string(ctx.Path())+" is not part of the demo tier: demo keys reach the 40 cars of the demo set (GET /v1/demo lists them). For the full catalogue, see "+s.opts.UpgradeURL+".")
}

// demoOutsideCar answers an id outside the demo set, or one that does not
// decode.
func (s *Service) demoOutsideCar(ctx *fasthttp.RequestCtx, rq *request) {
	problem(ctx, fasthttp.StatusForbidden, "Forbidden", "This car is outside the demo set: demo keys reach the 40 cars GET /v1/demo lists. For the full catalogue, see "+s.opts.UpgradeURL+".")
}

// resolveID decodes an id segment; in the demo tier (d set) anything that
// is not a car of the set is a 403, elsewhere a 404 as parseID says.
func (s *Service) resolveID(ctx *fasthttp.RequestCtx, rq *request, kind publicid.Kind, seg []byte, d *demoView) (uint32, bool) {
	if d == nil {
		return s.parseID(ctx, rq, kind, seg)
	}
	id, ok := s.opts.Codec.Parse(kind, seg)
	var row uint32
	if ok {
		c := rq.v.cat
		switch kind {
		case publicid.Variant:
			row, ok = c.VariantRow(id)
			ok = ok && d.variants[row]
		case publicid.Generation:
			row, ok = c.GenerationRow(id)
			ok = ok && d.gens[row]
		case publicid.Model:
			row, ok = c.ModelRow(id)
			ok = ok && d.models[row]
		}
	}
	if !ok {
		s.demoOutsideCar(ctx, rq)
	}
	return row, ok
}

// tier names the tier of a list in its cursor binding (see binding):
// "demo" for the demo set, "full" for the catalogue (d nil).
func (d *demoView) tier() string {
	if d == nil {
		return "full"
	}
	return "demo"
}

func (d *demoView) brandSet() map[uint32]bool {
	if d == nil {
		return nil
	}
	return d.brands
}

func (d *demoView) modelSet() map[uint32]bool {
	if d == nil {
		return nil
	}
	return d.models
}

func (d *demoView) genSet() map[uint32]bool {
	if d == nil {
		return nil
	}
	return d.gens
}

// keep returns rows, or in the demo tier the rows in set, at most
// rq.limit+1 of them.
func (d *demoView) keep(rq *request, rows []uint32, set map[uint32]bool) []uint32 {
	if d == nil {
		return rows
	}
	out := rq.rows[:0]
	for _, r := range rows {
		if set[r] {
			out = append(out, r)
			if len(out) > rq.limit {
				break
			}
		}
	}
	rq.rows = out
	return out
}

func (s *Service) demoBrands(ctx *fasthttp.RequestCtx, rq *request) {
	if d := s.demoFor(ctx, rq); d != nil {
		s.listBrands(ctx, rq, d)
	}
}

func (s *Service) demoBrand(ctx *fasthttp.RequestCtx, rq *request) {
	d := s.demoFor(ctx, rq)
	if d == nil || !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	row, ok := rq.v.cat.BrandBySlug(string(pathSegment(ctx.Path(), 2)))
	if !ok || !d.brands[row] {
		s.demoOutsideCar(ctx, rq)
		return
	}
	b := append(rq.buf[:0], `{"data":`...)
	b = rq.appendBrand(b, row)
	b = append(b, ',')
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.respond(ctx, rq)
}

func (s *Service) demoModels(ctx *fasthttp.RequestCtx, rq *request) {
	if d := s.demoFor(ctx, rq); d != nil {
		if _, ok := rq.v.cat.BrandBySlug(string(pathSegment(ctx.Path(), 2))); !ok {
			s.demoOutsideCar(ctx, rq)
			return
		}
		s.listModels(ctx, rq, d)
	}
}

func (s *Service) demoGenerations(ctx *fasthttp.RequestCtx, rq *request) {
	if d := s.demoFor(ctx, rq); d != nil {
		s.listGenerations(ctx, rq, d)
	}
}

func (s *Service) demoGenerationVariants(ctx *fasthttp.RequestCtx, rq *request) {
	if d := s.demoFor(ctx, rq); d != nil {
		s.listGenerationVariants(ctx, rq, d)
	}
}

// demoVariant answers variant detail for a demo car: the summary fields,
// without spec_count and specs.
func (s *Service) demoVariant(ctx *fasthttp.RequestCtx, rq *request) {
	d := s.demoFor(ctx, rq)
	if d == nil || !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	if row, ok := s.resolveID(ctx, rq, publicid.Variant, pathSegment(ctx.Path(), 2), d); ok {
		s.sendFixed(ctx, rq, d.detailBody[rq.locale][d.index[row]])
	}
}

func (s *Service) demoVariantSpecs(ctx *fasthttp.RequestCtx, rq *request) {
	d := s.demoFor(ctx, rq)
	if d == nil || !s.parseQuery(ctx, rq, pLocale|pUnits) {
		return
	}
	if row, ok := s.resolveID(ctx, rq, publicid.Variant, pathSegment(ctx.Path(), 2), d); ok {
		s.sendFixed(ctx, rq, d.specsBody[boolIndex(rq.imperial)][rq.locale][d.index[row]])
	}
}

func (s *Service) demoVariantImages(ctx *fasthttp.RequestCtx, rq *request) {
	d := s.demoFor(ctx, rq)
	if d == nil || !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	if row, ok := s.resolveID(ctx, rq, publicid.Variant, pathSegment(ctx.Path(), 2), d); ok {
		if rq.locale == rq.v.cat.English() {
			s.sendFixed(ctx, rq, d.imagesBody[d.index[row]])
			return
		}
		rq.synced = rq.v.cat.VarSyncedAt[row]
		rq.buf = s.renderImages(rq, row)
		s.respond(ctx, rq)
	}
}

// demoCompare compares cars of the demo set; one outside it, or an id that
// does not decode, is a 403.
func (s *Service) demoCompare(ctx *fasthttp.RequestCtx, rq *request) {
	d := s.demoFor(ctx, rq)
	if d == nil {
		return
	}
	s.compareIn(ctx, rq, d)
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
