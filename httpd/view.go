package httpd

import (
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
)

// view is one installed catalogue with what the edge derives from it. A
// request loads the view once and answers from it to the end.
type view struct {
	cat         *engine.Catalogue
	varTok      []uint32 // token value of each variant row
	genTok      []uint32
	modelTok    []uint32
	cdn         string
	version     []byte // X-Catalogue-Version of every response answered from this view
	synced      []byte // meta.last_synced_at of the catalogue, RFC 3339
	specs       specFragments
	epoch       uint32    // distinguishes cached bodies of this view from earlier ones
	demo        *demoView // nil when the catalogue carries no complete demo set
	described   *described
	localeBytes [][]byte     // each locale's code
	vocab       vocabularies // the values parameters take, for schemas
	// summaries holds every variant's Variant object with token ids, the
	// item of the filter's and a generation's pages, rendered at install
	// (about 270 bytes a variant); raw ids (the apify plan) are rendered
	// per request.
	summaries rowTexts
	// summarySums holds each summary's xxHash, of which a page of them
	// takes its content hash (variantPage).
	summarySums []uint64
	// searchRows holds every variant's SearchResult with token ids up to
	// its score's value (`,"score":` included), rendered at install: about
	// 190 bytes a variant.
	searchRows rowTexts
}

// rowTexts is one pre-rendered text per variant row in one pointer-free
// arena, so the collector never scans it: row r's is
// buf[end[r-1]:end[r]] (from 0 for row 0).
type rowTexts struct {
	buf []byte
	end []uint32
}

// renderRowTexts renders each of n rows with render, about sizeHint bytes
// a row.
func renderRowTexts(n, sizeHint int, render func(dst []byte, row uint32) []byte) rowTexts {
	t := rowTexts{buf: make([]byte, 0, n*sizeHint), end: make([]uint32, n)}
	for r := range n {
		t.buf = render(t.buf, uint32(r))
		t.end[r] = uint32(len(t.buf))
	}
	return t
}

// row returns row r's text.
func (t *rowTexts) row(r uint32) []byte {
	start := uint32(0)
	if r > 0 {
		start = t.end[r-1]
	}
	return t.buf[start:t.end[r]]
}

// newView derives the view of c: tokens, pre-rendered spec fragments,
// locale codes and vocabularies.
func newView(c *engine.Catalogue, codec *publicid.Codec, epoch uint32) *view {
	v := &view{cat: c, cdn: c.Meta.CDNBase, epoch: epoch, version: []byte(c.Meta.ContentHash)}
	if len(v.version) == 0 { // a catalogue not read from a file (tests): its payload identity
		v.version = []byte(c.Meta.Identity)
	}
	tokens := func(ids []uint32, kind publicid.Kind) []uint32 {
		t := make([]uint32, len(ids))
		for i, id := range ids {
			t[i] = codec.Encode(kind, id)
		}
		return t
	}
	v.varTok = tokens(c.VarID, publicid.Variant)
	v.genTok = tokens(c.GenID, publicid.Generation)
	v.modelTok = tokens(c.ModelID, publicid.Model)
	v.synced = c.Meta.SyncedAt.UTC().AppendFormat(nil, time.RFC3339)
	v.specs = newSpecFragments(c)
	for _, l := range c.Locales {
		v.localeBytes = append(v.localeBytes, []byte(l))
	}
	v.vocab[locales] = c.Locales
	for code := range c.Fuels() {
		v.vocab[fuels] = append(v.vocab[fuels], c.FuelSlug(uint8(code)))
	}
	for code := range c.Bodies() {
		v.vocab[bodies] = append(v.vocab[bodies], c.BodySlug(uint8(code)))
		v.vocab[bodyLabels] = append(v.vocab[bodyLabels], c.BodyLabel(c.English(), uint8(code)))
	}
	for code := range c.Drives() {
		v.vocab[drives] = append(v.vocab[drives], c.DriveSlug(uint8(code)))
	}
	rq := &request{v: v}
	n := len(c.VarID)
	v.summaries = renderRowTexts(n, 280, rq.renderVariant)
	v.summarySums = make([]uint64, n)
	for r := range v.summarySums {
		v.summarySums[r] = xxhash.Sum64(v.summaries.row(uint32(r)))
	}
	v.searchRows = renderRowTexts(n, 200, func(dst []byte, row uint32) []byte {
		return append(rq.appendSearchResult(dst, row), `,"score":`...)
	})
	return v
}
