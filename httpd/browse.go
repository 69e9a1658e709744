package httpd

import (
	"encoding/binary"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
)

// The browse chain of the full catalogue: brands > models > generations >
// variants, each list keyset-paged by its engine key.

// route names identify lists for cursor bindings and are part of every
// cursor's MAC: changing one invalidates cursors of that route.
const (
	routeBrands      = "brands"
	routeModels      = "models"
	routeGenerations = "generations"
	routeVariants    = "gen-variants"
	routeSpecCatalog = "spec-catalog"
	routeFilter      = "variants-filter"
	routeSearch      = "search"
)

// binding returns the cursor binding of a list: the tier, the route, its
// path parameter or query text (the folded search text, the canonical
// filter) and the locale. A cursor opens only where all of them are equal:
// a demo key's cursor does not open on a full-catalogue key's list of the
// same route, nor the other way round. The page size is not bound: a
// client may change it between pages.
func binding(codec *publicid.Codec, t tier, route string, param []byte, lang []byte) uint64 {
	return codec.BindingHash([]byte(tierNames[t]), []byte(route), param, lang)
}

var tierNames = [...]string{tierFull: "full", tierDemo: "demo"}

// listBinding names a finite list for its cursors, its hash (binding)
// taken when first needed: a page the body cache holds, asked for without
// a cursor, needs none (70 ns of a 12 µs request, issue 20).
type listBinding struct {
	codec       *publicid.Codec
	route       string
	param, lang []byte
	sum         uint64
	done        bool
}

// hash returns the list's binding for the full catalogue's tier.
func (b *listBinding) hash() uint64 {
	if !b.done {
		b.sum, b.done = binding(b.codec, tierFull, b.route, b.param, b.lang), true
	}
	return b.sum
}

// open returns the position a cursor holds for this list, as openCursor.
func (b *listBinding) open(rq *request, cursor []byte) []byte {
	if len(cursor) == 0 {
		return nil
	}
	return openCursor(b.codec, rq, cursor, b.hash())
}

// openCursor returns the position a cursor holds, or nil when there is no
// readable cursor for this list: the list then starts at its first page.
func openCursor(codec *publicid.Codec, rq *request, cursor []byte, bind uint64) []byte {
	if len(cursor) == 0 {
		return nil
	}
	pos, ok := codec.OpenCursor(rq.pos[:0], cursor, bind)
	if !ok {
		return nil
	}
	rq.pos = pos
	return pos
}

// listEnd closes data, writes links (next only when more rows follow) and
// meta: the body is done.
func listEnd(codec *publicid.Codec, rq *request, b []byte, bind uint64, next []byte) error {
	return listEndNote(codec, rq, b, bind, next, nil)
}

// listEndNote is listEnd with note (a JSON string, or nil) as meta.note.
func listEndNote(codec *publicid.Codec, rq *request, b []byte, bind uint64, next, note []byte) error {
	rq.buf = appendListEnd(codec, rq, b, bind, next, note)
	return rq.done()
}

// appendListEnd appends what follows a list's items: links and meta, with
// note as meta.note unless nil.
func appendListEnd(codec *publicid.Codec, rq *request, b []byte, bind uint64, next, note []byte) []byte {
	b = append(b, `],"links":{`...)
	if next != nil {
		b = append(b, `"next":"`...)
		b = codec.AppendCursor(b, bind, next)
		b = append(b, '"')
	}
	b = append(b, "},"...)
	b = rq.appendMetaNote(b, note)
	return append(b, '}')
}

// page renders a page of up to p.Limit of rows (one more only says that a
// next page exists), each with item, and its next position with key. With
// sums, the xxHash of what item appends for each row (by row), the page's
// content hash is taken over those and its bytes after the items
// (doneParts), not over the whole page.
func (o *operations) page(rq *request, p *Params, rows []uint32, bind uint64, item func([]byte, uint32) []byte, key func(dst []byte, row uint32) []byte, sums []uint64) error {
	n := min(len(rows), p.Limit)
	b := append(rq.buf[:0], `{"data":[`...)
	parts := rq.sums[:0]
	if sums != nil {
		parts = binary.LittleEndian.AppendUint64(parts, pageSalt)
	}
	for i, r := range rows[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, r)
		if sums != nil {
			parts = binary.LittleEndian.AppendUint64(parts, sums[r])
		}
	}
	var next []byte
	if len(rows) > n {
		next = key(rq.tmp[:0], rows[n-1])
		rq.tmp = next
	}
	if sums == nil {
		return listEnd(o.codec, rq, b, bind, next)
	}
	tail := len(b)
	rq.buf = appendListEnd(o.codec, rq, b, bind, next, nil)
	return rq.doneParts(parts, tail)
}

// pageSalt starts the hashes a page's content hash is taken over when its
// items' hashes are known (page, doneParts): the pre-rendered variant
// summaries'.
const pageSalt = 0x7661727061676531 // "varpage1"

func (o *operations) brands(rq *request, p *Params) error {
	c := rq.v.cat
	bind := listBinding{codec: o.codec, route: routeBrands, lang: rq.lang}
	return keyedPage(o, rq, p, cachedBrands, 0, &bind, engine.ParseBrandKey,
		func(k engine.BrandKey, ok bool) []uint32 { return c.BrandsAfter(ptrIf(&k, ok)) }, c.BrandKeyOf, rq.appendBrand)
}

// positioned is an engine list key: BrandKey, ModelKey, GenerationKey.
type positioned interface{ AppendPosition(dst []byte) []byte }

// keyedPage answers a page of a finite list keyset-paged by the engine key
// K, from the body cache when it holds it: the rows after the cursor's
// key (from the start when ok is false), each rendered by item, and the
// key of the last one sent as the next position. The key goes to after by
// value: a pointer through a function value would move it to the heap.
func keyedPage[K positioned](o *operations, rq *request, p *Params, route uint64, parent uint32, bind *listBinding,
	parse func([]byte) (K, bool), after func(k K, ok bool) []uint32, keyOf func(uint32) K, item func([]byte, uint32) []byte) error {
	pos := bind.open(rq, p.Cursor)
	return o.cachedPage(rq, route, parent, pos, func() error {
		return o.page(rq, p, after(parse(pos)), bind.hash(), item, func(dst []byte, r uint32) []byte { return keyOf(r).AppendPosition(dst) }, nil)
	})
}

// ptrIf returns k when ok, else nil: the engine's "after" argument.
func ptrIf[K any](k *K, ok bool) *K {
	if ok {
		return k
	}
	return nil
}

// brandRow resolves the {slug} segment; 404 when no brand has it.
func brandRow(rq *request, slug []byte) (uint32, error) {
	row, ok := rq.v.cat.BrandBySlug(string(slug))
	if !ok {
		return 0, notFound("No brand with slug " + quoted(slug) + ".")
	}
	return row, nil
}

func (o *operations) brand(rq *request, p *Params) error {
	row, err := brandRow(rq, p.Path)
	if err != nil {
		return err
	}
	return rq.object(rq.appendBrand(append(rq.buf[:0], `{"data":`...), row))
}

func (o *operations) models(rq *request, p *Params) error {
	brand, err := brandRow(rq, p.Path)
	if err != nil {
		return err
	}
	c := rq.v.cat
	bind := listBinding{codec: o.codec, route: routeModels, param: c.BrandSlug.Bytes(brand), lang: rq.lang}
	return keyedPage(o, rq, p, cachedModels, brand, &bind, engine.ParseModelKey,
		func(k engine.ModelKey, ok bool) []uint32 { return c.ModelsAfter(brand, ptrIf(&k, ok)) }, c.ModelKeyOf, rq.appendModel)
}

func (o *operations) generations(rq *request, p *Params) error {
	model, err := o.parseID(rq, publicid.Model, p.Path)
	if err != nil {
		return err
	}
	c := rq.v.cat
	var id [4]byte
	binary.LittleEndian.PutUint32(id[:], c.ModelID[model])
	bind := listBinding{codec: o.codec, route: routeGenerations, param: id[:], lang: rq.lang}
	return keyedPage(o, rq, p, cachedGenerations, model, &bind, engine.ParseGenerationKey,
		func(k engine.GenerationKey, ok bool) []uint32 { return c.GenerationsAfter(model, ptrIf(&k, ok)) }, c.GenerationKeyOf, rq.appendGeneration)
}

func (o *operations) generationVariants(rq *request, p *Params) error {
	gen, err := o.parseID(rq, publicid.Generation, p.Path)
	if err != nil {
		return err
	}
	c := rq.v.cat
	var id [4]byte
	binary.LittleEndian.PutUint32(id[:], c.GenID[gen])
	bind := listBinding{codec: o.codec, route: routeVariants, param: id[:], lang: rq.lang}
	pos := bind.open(rq, p.Cursor)
	return o.cachedPage(rq, cachedGenVariants, gen, pos, func() error {
		after, _ := engine.ParseIDPosition(pos)
		first, end := c.VariantsAfter(gen, after)
		rows := rq.rows[:0]
		for r := first; r < end && len(rows) <= p.Limit; r++ {
			rows = append(rows, r)
		}
		rq.rows = rows
		return o.variantPage(rq, p, rows, bind.hash())
	})
}

// variantPage renders a page of variant summaries: rows holds up to
// limit+1 rows in stable-id order. With token ids the summaries are the
// pre-rendered ones, whose hashes are known too (view.summarySums).
func (o *operations) variantPage(rq *request, p *Params, rows []uint32, bind uint64) error {
	c := rq.v.cat
	var sums []uint64
	if !rq.raw {
		sums = rq.v.summarySums
	}
	return o.page(rq, p, rows, bind, rq.appendVariant,
		func(dst []byte, r uint32) []byte { return engine.AppendIDPosition(dst, c.VarID[r]) }, sums)
}
