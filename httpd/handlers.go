package httpd

import (
	"encoding/binary"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/publicid"
)

// health answers GET /v1/health: 200 while a catalogue is being served.
func (s *Service) health(ctx *fasthttp.RequestCtx) {
	ctx.SetBody(healthBody(s.view.Load()))
	ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
	ctx.Response.Header.SetBytesKV(headerCacheControl, noStore)
}

func healthBody(v *view) []byte {
	_, _, _, variants := v.cat.Counts()
	b := append(make([]byte, 0, 160), `{"data":{"status":"ok","active_variants":`...)
	b = strconv.AppendInt(b, int64(variants), 10)
	b = append(b, `},"meta":{"last_synced_at":"`...)
	b = append(b, v.synced...)
	return append(b, `","locale":"en","units":"metric"}}`...)
}

// Ids in paths.

// parseID decodes the id segment of a path: a token of the kind, or for
// the apify plan a raw stable id. It writes the 404 and returns false when
// the id does not decode or names nothing; the detail echoes the id as
// sent, never an internal id.
func (s *Service) parseID(ctx *fasthttp.RequestCtx, rq *request, kind publicid.Kind, seg []byte) (uint32, bool) {
	var id uint32
	ok := false
	if rq.raw {
		id, ok = parseRawID(seg)
	} else {
		id, ok = s.opts.Codec.Parse(kind, seg)
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
			return row, true
		}
	}
	what := map[publicid.Kind]string{publicid.Variant: "variant", publicid.Generation: "generation", publicid.Model: "model"}[kind]
	problem(ctx, fasthttp.StatusNotFound, "Not Found", "No "+what+" with id "+strconv.Quote(truncate(string(seg), 64))+".")
	return 0, false
}

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

// Lists.

// binding returns the cursor binding of a list: the tier (the demo tier
// when d is set, else the full catalogue), the route, its path parameter or
// query text (the folded search text, the canonical filter) and the locale.
// A cursor opens only where all of them are equal: a demo key's cursor
// does not open on a full-catalogue key's list of the same route, nor the
// other way round. The page size is not bound: a client may change it
// between pages.
func (s *Service) binding(rq *request, d *demoView, route string, param []byte) uint64 {
	return s.opts.Codec.BindingHash([]byte(d.tier()), []byte(route), param, []byte(rq.v.cat.Locales[rq.locale]))
}

// openCursor returns the position a cursor holds, or nil when there is no
// readable cursor for this list: the list then starts at its first page.
func (s *Service) openCursor(rq *request, bind uint64) []byte {
	if len(rq.cursor) == 0 {
		return nil
	}
	pos, ok := s.opts.Codec.OpenCursor(rq.pos[:0], rq.cursor, bind)
	if !ok {
		return nil
	}
	rq.pos = pos
	return pos
}

// variantPage sends a page of variant summaries: rows holds up to limit+1
// rows in stable-id order, the extra one only saying that a next page
// exists. rows is kept as the request's scratch for the next request.
func (s *Service) variantPage(ctx *fasthttp.RequestCtx, rq *request, rows []uint32, bind uint64) {
	rq.rows = rows
	n := min(len(rows), rq.limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, r := range rows[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = rq.appendVariantFields(b, r)
		b = append(b, '}')
	}
	var next []byte
	if len(rows) > n {
		next = engine.AppendIDPosition(rq.tmp[:0], rq.v.cat.VarID[rows[n-1]])
		rq.tmp = next
	}
	s.listEnd(ctx, rq, b, bind, next)
}

// listEnd closes data, writes links (next only when more rows follow) and
// meta, and sends the response.
func (s *Service) listEnd(ctx *fasthttp.RequestCtx, rq *request, b []byte, bind uint64, next []byte) {
	b = append(b, `],"links":{`...)
	if next != nil {
		b = append(b, `"next":"`...)
		b = s.opts.Codec.AppendCursor(b, bind, next)
		b = append(b, '"')
	}
	b = append(b, "},"...)
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.respond(ctx, rq)
}

func (s *Service) brands(ctx *fasthttp.RequestCtx, rq *request) { s.listBrands(ctx, rq, nil) }

// listBrands lists the brands, only those of the demo set when d is set.
func (s *Service) listBrands(ctx *fasthttp.RequestCtx, rq *request, d *demoView) {
	if !s.parseQuery(ctx, rq, pLocale|pLimit|pCursor) {
		return
	}
	c := rq.v.cat
	bind := s.binding(rq, d, routeBrands, nil)
	var after *engine.BrandKey
	if k, ok := engine.ParseBrandKey(s.openCursor(rq, bind)); ok {
		after = &k
	}
	rows := d.keep(rq, c.BrandsAfter(after), d.brandSet())
	n := min(len(rows), rq.limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, r := range rows[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = rq.appendBrand(b, r)
	}
	var next []byte
	if len(rows) > n {
		next = c.BrandKeyOf(rows[n-1]).AppendPosition(rq.tmp[:0])
		rq.tmp = next
	}
	s.listEnd(ctx, rq, b, bind, next)
}

// brandRow resolves the {slug} segment; 404 when no brand has it.
func (s *Service) brandRow(ctx *fasthttp.RequestCtx, rq *request) (uint32, bool) {
	slug := pathSegment(ctx.Path(), 2)
	row, ok := rq.v.cat.BrandBySlug(string(slug))
	if !ok {
		problem(ctx, fasthttp.StatusNotFound, "Not Found", "No brand with slug "+strconv.Quote(truncate(string(slug), 64))+".")
	}
	return row, ok
}

func (s *Service) brand(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	row, ok := s.brandRow(ctx, rq)
	if !ok {
		return
	}
	b := append(rq.buf[:0], `{"data":`...)
	b = rq.appendBrand(b, row)
	b = append(b, ',')
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.respond(ctx, rq)
}

func (s *Service) models(ctx *fasthttp.RequestCtx, rq *request) { s.listModels(ctx, rq, nil) }

func (s *Service) listModels(ctx *fasthttp.RequestCtx, rq *request, d *demoView) {
	if !s.parseQuery(ctx, rq, pLocale|pLimit|pCursor) {
		return
	}
	brand, ok := s.brandRow(ctx, rq)
	if !ok || (d != nil && !d.brands[brand]) {
		if ok {
			s.demoOutsideCar(ctx, rq)
		}
		return
	}
	c := rq.v.cat
	bind := s.binding(rq, d, routeModels, c.BrandSlug.Bytes(brand))
	var after *engine.ModelKey
	if k, ok := engine.ParseModelKey(s.openCursor(rq, bind)); ok {
		after = &k
	}
	rows := d.keep(rq, c.ModelsAfter(brand, after), d.modelSet())
	n := min(len(rows), rq.limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, r := range rows[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = rq.appendModel(b, r)
	}
	var next []byte
	if len(rows) > n {
		next = c.ModelKeyOf(rows[n-1]).AppendPosition(rq.tmp[:0])
		rq.tmp = next
	}
	s.listEnd(ctx, rq, b, bind, next)
}

func (s *Service) generations(ctx *fasthttp.RequestCtx, rq *request) { s.listGenerations(ctx, rq, nil) }

func (s *Service) listGenerations(ctx *fasthttp.RequestCtx, rq *request, d *demoView) {
	if !s.parseQuery(ctx, rq, pLocale|pLimit|pCursor) {
		return
	}
	model, ok := s.resolveID(ctx, rq, publicid.Model, pathSegment(ctx.Path(), 2), d)
	if !ok {
		return
	}
	c := rq.v.cat
	bind := s.binding(rq, d, routeGenerations, binary.LittleEndian.AppendUint32(nil, c.ModelID[model]))
	var after *engine.GenerationKey
	if k, ok := engine.ParseGenerationKey(s.openCursor(rq, bind)); ok {
		after = &k
	}
	rows := d.keep(rq, c.GenerationsAfter(model, after), d.genSet())
	n := min(len(rows), rq.limit)
	b := append(rq.buf[:0], `{"data":[`...)
	for i, r := range rows[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = rq.appendGeneration(b, r)
	}
	var next []byte
	if len(rows) > n {
		next = c.GenerationKeyOf(rows[n-1]).AppendPosition(rq.tmp[:0])
		rq.tmp = next
	}
	s.listEnd(ctx, rq, b, bind, next)
}

func (s *Service) generationVariants(ctx *fasthttp.RequestCtx, rq *request) {
	s.listGenerationVariants(ctx, rq, nil)
}

func (s *Service) listGenerationVariants(ctx *fasthttp.RequestCtx, rq *request, d *demoView) {
	if !s.parseQuery(ctx, rq, pLocale|pLimit|pCursor) {
		return
	}
	gen, ok := s.resolveID(ctx, rq, publicid.Generation, pathSegment(ctx.Path(), 2), d)
	if !ok {
		return
	}
	c := rq.v.cat
	bind := s.binding(rq, d, routeVariants, binary.LittleEndian.AppendUint32(nil, c.GenID[gen]))
	after, _ := engine.ParseIDPosition(s.openCursor(rq, bind))
	first, end := c.VariantsAfter(gen, after)
	rows := rq.rows[:0]
	for r := first; r < end && len(rows) <= rq.limit; r++ {
		if d == nil || d.variants[r] {
			rows = append(rows, r)
		}
	}
	s.variantPage(ctx, rq, rows, bind)
}

// Variants.

func (s *Service) variant(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	row, ok := s.parseID(ctx, rq, publicid.Variant, pathSegment(ctx.Path(), 2))
	if !ok {
		return
	}
	key := rq.bodyKey(cachedVariant, row)
	if s.cached(ctx, rq, key) {
		return
	}
	c := rq.v.cat
	first, end := c.VariantSpecs(row)
	rq.synced = c.VarSyncedAt[row]
	b := append(rq.buf[:0], `{"data":{`...)
	b = rq.appendVariantFields(b, row)
	b = append(b, `,"spec_count":`...)
	b = strconv.AppendUint(b, uint64(end-first), 10)
	b = append(b, `,"specs":`...)
	b = rq.appendSpecsRaw(b, row)
	b = append(b, "},"...)
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.store(ctx, rq, key)
}

func (s *Service) variantSpecs(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale|pUnits) {
		return
	}
	row, ok := s.parseID(ctx, rq, publicid.Variant, pathSegment(ctx.Path(), 2))
	if !ok {
		return
	}
	key := rq.bodyKey(cachedSpecs, row)
	if s.cached(ctx, rq, key) {
		return
	}
	rq.synced = rq.v.cat.VarSyncedAt[row]
	b := append(rq.buf[:0], `{"data":`...)
	b = rq.appendVariantSpecs(b, row)
	b = append(b, ',')
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.store(ctx, rq, key)
}

func (s *Service) variantImages(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	row, ok := s.parseID(ctx, rq, publicid.Variant, pathSegment(ctx.Path(), 2))
	if !ok {
		return
	}
	rq.synced = rq.v.cat.VarSyncedAt[row]
	rq.buf = s.renderImages(rq, row)
	s.respond(ctx, rq)
}

// renderImages renders the ImageRef list of a variant into rq.buf.
func (s *Service) renderImages(rq *request, row uint32) []byte {
	c := rq.v.cat
	first, end := c.VariantImages(row)
	b := append(rq.buf[:0], `{"data":[`...)
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
	b = s.appendMeta(b, rq)
	return append(b, '}')
}

func (s *Service) variantPrices(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	seg := pathSegment(ctx.Path(), 2)
	row, ok := s.parseID(ctx, rq, publicid.Variant, seg)
	if !ok {
		return
	}
	c := rq.v.cat
	if !c.VarHasPrice[row] {
		problem(ctx, fasthttp.StatusNotFound, "Not Found", "No price snapshot is recorded for variant "+strconv.Quote(string(seg))+".")
		return
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
	b = append(b, "},"...)
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.respond(ctx, rq)
}

// The spec dictionary.

func (s *Service) specCatalog(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale|pLimit|pCursor) {
		return
	}
	c := rq.v.cat
	bind := s.binding(rq, nil, routeSpecCatalog, nil)
	start := 0
	if pos := s.openCursor(rq, bind); pos != nil {
		if i, ok := c.SpecIndex(string(pos)); ok {
			start = i + 1
		}
	}
	end := min(len(c.Specs), start+rq.limit)
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
		b = append(b, f.unit[i]...)
		b = append(b, `,"group":`...)
		b = jsonenc.AppendString(b, c.Groups[st.Group])
		b = append(b, `,"group_label":`...)
		b = c.AppendGroupLabelJSON(b, rq.locale, st.Group)
		b = append(b, `,"kind":"`...)
		b = append(b, kindNames[st.Kind]...)
		b = append(b, `"}`...)
	}
	var next []byte
	if end < len(c.Specs) {
		next = append(rq.tmp[:0], c.Specs[end-1].Key...)
		rq.tmp = next
	}
	s.listEnd(ctx, rq, b, bind, next)
}

var kindNames = [...]string{engine.KindNumber: "number", engine.KindInt: "integer", engine.KindBool: "boolean", engine.KindEnum: "label", engine.KindText: "text"}

// Account and licensing.

func (s *Service) usage(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	now := s.opts.Now()
	k := rq.key
	b := append(rq.buf[:0], `{"data":{"plan":"`...)
	b = append(b, k.Plan.String()...)
	b = append(b, `","quota":`...)
	b = strconv.AppendInt(b, s.limitsOf(k.Plan)[access.Month], 10)
	b = append(b, `,"used":`...)
	// This request is already reserved: it counts.
	b = strconv.AppendInt(b, k.Usage().Used(access.Month, now), 10)
	b = append(b, `,"resets_at":"`...)
	b = resetsAt(b, now)
	b = append(b, `"},`...)
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.respond(ctx, rq)
	// Usage changes with every call: no caching.
	ctx.Response.Header.SetBytesKV(headerCacheControl, noStore)
}

func resetsAt(dst []byte, now time.Time) []byte {
	now = now.UTC()
	return time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC).AppendFormat(dst, time.RFC3339)
}

func (s *Service) export(ctx *fasthttp.RequestCtx, rq *request) {
	if !s.parseQuery(ctx, rq, pLocale) {
		return
	}
	problem(ctx, fasthttp.StatusForbidden, "Forbidden",
		"Bulk data is never served by the API. Licensed exports (CSV and JSON, with a field dictionary, a coverage sheet and optional quarterly updates) are arranged by hand: see "+s.opts.LicensingURL+".")
}
