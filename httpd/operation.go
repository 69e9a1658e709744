package httpd

import (
	"github.com/valyala/fasthttp"

	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/publicid"
)

// An operation is one call of the API, declared once: its route, its
// parameter table, its answer from the full catalogue and its answer from
// the demo tier. Both answers render into the request's buffer and return
// nil, or return an *Error; the transports (the REST routes, the MCP tools
// through Call) parse the parameters with the table, pick the answer by
// the caller's tier and write the body or the error in their own form.
type operation struct {
	id     string   // operationId in the description
	path   string   // the REST route
	params []*Param // what it takes, in the order the description lists them
	full   func(o *operations, rq *request, p *Params) error
	// demo answers demo keys and keyless MCP callers from the demo set
	// alone: it never sees the full catalogue (rq.v is nil). Nil when the
	// operation is not part of the demo tier (403).
	demo func(d *demoView, rq *request, p *Params) error
}

// operations is what the operations of the full catalogue need besides
// the request: the token codec, the search threshold, the caches of
// rendered bodies and first search pages, the account limits and links.
type operations struct {
	codec      *publicid.Codec
	threshold  float32
	bodies     *bodyCache                            // rendered bodies by bodyKey and pageKey
	searches   *ristretto.Cache[uint64, *searchPage] // first-page search matches, see searchcache.go
	limits     *[4]access.Limits                     // by plan
	now        func() time.Time
	licensing  string // where GET /export points
	upgradeURL string
	queries    *filterQueries // recent filter parameters' queries
	// Hits and misses of the body and search caches, for the metrics.
	bodyHit, bodyMiss, searchHit, searchMiss func()
}

// The keyed operations, in the order of the contract.
var (
	opBrands = &operation{id: "listBrands", path: "/v1/brands", params: listParams,
		full: (*operations).brands, demo: (*demoView).brands}
	opBrand = &operation{id: "getBrand", path: "/v1/brands/{slug}", params: []*Param{paramSlug, paramLocale},
		full: (*operations).brand, demo: (*demoView).brand}
	opModels = &operation{id: "listModels", path: "/v1/brands/{slug}/models", params: []*Param{paramSlug, paramLocale, paramLimit, paramCursor},
		full: (*operations).models, demo: (*demoView).models}
	opGenerations = &operation{id: "listGenerations", path: "/v1/models/{id}/generations", params: []*Param{paramModel, paramLocale, paramLimit, paramCursor},
		full: (*operations).generations, demo: (*demoView).generations}
	opGenVariants = &operation{id: "listGenerationVariants", path: "/v1/generations/{id}/variants", params: []*Param{paramGen, paramLocale, paramLimit, paramCursor},
		full: (*operations).generationVariants, demo: (*demoView).generationVariants}
	opFilter = &operation{id: "filterVariants", path: "/v1/variants",
		params: []*Param{paramLocale, paramLimit, paramCursor, paramFuel, paramBody, paramDrive, paramPMin, paramPMax, paramPrice, paramYear, paramEV},
		full:   (*operations).filter, demo: nil}
	opCompare = &operation{id: "compare", path: "/v1/compare", params: []*Param{paramIDs, paramLocale, paramUnits},
		full: (*operations).compare, demo: (*demoView).compare}
	opSearch = &operation{id: "search", path: "/v1/search", params: []*Param{paramSearchQ, paramLocale, paramLimit, paramCursor},
		full: (*operations).search, demo: (*demoView).search}
	opVariant = &operation{id: "getVariant", path: "/v1/variants/{id}", params: []*Param{paramVariant, paramLocale},
		full: (*operations).variant, demo: (*demoView).variant}
	opSpecs = &operation{id: "getVariantSpecs", path: "/v1/variants/{id}/specs", params: specsParams,
		full: (*operations).variantSpecs, demo: (*demoView).variantSpecs}
	opImages = &operation{id: "getVariantImages", path: "/v1/variants/{id}/images", params: []*Param{paramVariant, paramLocale},
		full: (*operations).variantImages, demo: (*demoView).variantImages}
	opPrices = &operation{id: "getVariantPrices", path: "/v1/variants/{id}/prices", params: []*Param{paramVariant, paramLocale},
		full: (*operations).variantPrices, demo: nil}
	opSpecCatalog = &operation{id: "listSpecDefinitions", path: "/v1/specs/catalog", params: listParams,
		full: (*operations).specCatalog, demo: nil}
	opUsage = &operation{id: "getUsage", path: "/v1/usage", params: localeOnly,
		full: (*operations).usage, demo: nil}
	opExport = &operation{id: "getExport", path: "/v1/export", params: localeOnly,
		full: (*operations).export, demo: nil}
	opDemo = &operation{id: "getDemoSet", path: "/v1/demo", params: localeOnly,
		full: (*operations).demoForOthers, demo: (*demoView).setOp}
)

// keyedOperations are the operations above, for the description.
var keyedOperations = []*operation{opBrands, opBrand, opModels, opGenerations, opGenVariants, opFilter, opCompare, opSearch,
	opVariant, opSpecs, opImages, opPrices, opSpecCatalog, opUsage, opExport, opDemo}

// Operation is one of the four operations a caller without a key may pay
// for per request with x402, which the MCP tools also expose.
type Operation uint8

// The payable operations.
const (
	OpSpecs   Operation = iota // GET /v1/variants/{id}/specs
	OpSearch                   // GET /v1/search
	OpFilter                   // GET /v1/variants
	OpCompare                  // GET /v1/compare
	numOperations
)

// payable holds each payable operation's declaration, its price in atomic
// units of a 6-decimal dollar stablecoin, and how a 402 names it.
var payable = [numOperations]struct {
	op          *operation
	price       int64
	route       string
	description string
}{
	OpSpecs:   {opSpecs, 50_000, "GET /v1/variants/{id}/specs", "Full spec sheet of one variant"},
	OpSearch:  {opSearch, 5_000, "GET /v1/search", "Typeahead search over the full catalogue, one page"},
	OpFilter:  {opFilter, 5_000, "GET /v1/variants", "Structured filter over the full catalogue, one page"},
	OpCompare: {opCompare, 100_000, "GET /v1/compare", "Side-by-side comparison of 2 to 4 variants"},
}

// Price returns an operation's price per call in atomic units (6 decimals:
// 50000 is 0.05 USD).
func (op Operation) Price() int64 { return payable[op].price }

// Description says in a few words what an operation's payment buys.
func (op Operation) Description() string { return payable[op].description }

// tier is whose data a call is answered from.
type tier uint8

const (
	tierFull tier = iota // the full catalogue: keys of the paid plans, paid calls
	tierDemo             // the demo set: demo keys, keyless MCP calls
)

// answer answers op for a caller of tier from the view v into rq: the
// parameters parsed from args (named as REST or an MCP tool names them;
// path parameters already in rq.p), the locale resolved, then the full
// or the demo operation.
func (o *operations) answer(rq *request, v *view, op *operation, t tier, args *fasthttp.Args, tool bool) error {
	if err := parse(op.params, &rq.p, args, tool, &v.vocab); err != nil {
		return err
	}
	rq.imperial = rq.p.Imperial
	if t == tierDemo {
		d := v.demo
		if d == nil {
			return demoRebuilding()
		}
		rq.locale = d.localeOrEnglish(rq.p.Locale)
		rq.lang, rq.syncedText = d.langs[rq.locale], d.synced
		if op.demo == nil {
			return d.outsideTier(op)
		}
		return op.demo(d, rq, &rq.p)
	}
	rq.v = v
	rq.locale = v.cat.LocaleOrEnglish(string(rq.p.Locale))
	rq.lang, rq.syncedText = v.localeBytes[rq.locale], v.synced
	return op.full(o, rq, &rq.p)
}
