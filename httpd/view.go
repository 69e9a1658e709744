package httpd

import (
	"time"

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
	// item of the filter's and a generation's pages, rendered at install:
	// row r's is summaries[summaryEnd[r-1]:summaryEnd[r]] (from 0 for row
	// 0). Pointer-free, so the collector never scans it; raw ids (the apify
	// plan) are rendered per request.
	summaries  []byte
	summaryEnd []uint32
	// searchRows holds every variant's SearchResult with token ids up to
	// its score's value (`,"score":` included), rendered at install in the
	// same layout as summaries: about 190 bytes a variant.
	searchRows []byte
	searchEnd  []uint32
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
	v.renderSummaries()
	v.renderSearchRows()
	return v
}

// renderSummaries fills summaries: about 270 bytes a variant.
func (v *view) renderSummaries() {
	rq := &request{v: v}
	n := len(v.cat.VarID)
	v.summaryEnd = make([]uint32, n)
	b := make([]byte, 0, n*280)
	for r := range n {
		b = rq.renderVariant(b, uint32(r))
		v.summaryEnd[r] = uint32(len(b))
	}
	v.summaries = b
}

// summary returns row's pre-rendered Variant object (token ids).
func (v *view) summary(row uint32) []byte {
	start := uint32(0)
	if row > 0 {
		start = v.summaryEnd[row-1]
	}
	return v.summaries[start:v.summaryEnd[row]]
}

// renderSearchRows fills searchRows.
func (v *view) renderSearchRows() {
	rq := &request{v: v}
	n := len(v.cat.VarID)
	v.searchEnd = make([]uint32, n)
	b := make([]byte, 0, n*200)
	for r := range n {
		b = append(rq.appendSearchResult(b, uint32(r)), `,"score":`...)
		v.searchEnd[r] = uint32(len(b))
	}
	v.searchRows = b
}

// searchRow returns row's pre-rendered SearchResult up to its score's
// value (token ids).
func (v *view) searchRow(row uint32) []byte {
	start := uint32(0)
	if row > 0 {
		start = v.searchEnd[row-1]
	}
	return v.searchRows[start:v.searchEnd[row]]
}
