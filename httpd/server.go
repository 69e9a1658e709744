package httpd

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/openapi"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/ratelog"
	"github.com/vspec/catalogue/httpd/x402"
)

// Options configures the HTTP edge. The zero value is usable after
// SetDefaults, except that Codec and Keys are required.
type Options struct {
	// Codec encodes and decodes public tokens and cursors.
	Codec *publicid.Codec
	// Keys is the key store requests are checked against.
	Keys *access.Store
	// Meter persists usage; when it reports unhealthy, keyed requests are
	// refused with 503. Nil disables the check (counts stay in memory).
	Meter *access.Meter
	// Limits overrides the default limits of a plan.
	Limits map[access.Plan]access.Limits
	// SearchThreshold is the least pg_trgm word similarity of a search
	// match. Default 0.5.
	SearchThreshold float32
	// KeyFlow answers the demo key routes; nil makes them answer 503.
	KeyFlow *keyflow.Flow
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// Payments takes x402 payments for the four payable operations from
	// callers without a key. Nil answers them 401 like every keyed route.
	Payments *x402.Gate
	// PaidLimiter limits keyless paid calls per network. Default 60 a
	// minute.
	PaidLimiter *access.NetworkLimiter
	// PublicURL is the API's public URL, ending in /v1; 402s name resources
	// under it. Default "http://localhost/v1".
	PublicURL string
	// AgentURL is the public URL of the MCP endpoint the description names;
	// empty when the agent tool surface is off.
	AgentURL string

	// ReadTimeout and WriteTimeout bound one request. Defaults 10 s.
	ReadTimeout, WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections. Default 60 s.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers; larger requests
	// get 431. Default 8 KiB.
	MaxHeaderBytes int
	// MaxAge is the max-age of Cache-Control on catalogue responses.
	// Default 1 hour.
	MaxAge time.Duration
	// CompressedCacheBytes bounds the cache of compressed bodies. Default
	// 64 MiB; negative disables it.
	CompressedCacheBytes int64
	// BodyCacheBytes bounds the cache of rendered variant and specs bodies.
	// Default 256 MiB; negative disables it.
	BodyCacheBytes int64
	// SearchCacheBytes bounds the cache of first-page search results
	// (matches, not bodies). Default 32 MiB; negative disables it.
	SearchCacheBytes int64
	// CDNBase overrides the snapshot's image URL base when set.
	CDNBase string
	// LicensingURL is where GET /export points. Default
	// "https://vspec.example/licensing".
	LicensingURL string
	// UpgradeURL is the upgrade path 403 details give. Default
	// "https://vspec.example/pricing".
	UpgradeURL string
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// SetDefaults fills the zero fields of o.
func (o *Options) SetDefaults() {
	if o.ReadTimeout == 0 {
		o.ReadTimeout = 10 * time.Second
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 60 * time.Second
	}
	if o.MaxHeaderBytes == 0 {
		o.MaxHeaderBytes = 8 << 10
	}
	if o.MaxAge == 0 {
		o.MaxAge = time.Hour
	}
	if o.CompressedCacheBytes == 0 {
		o.CompressedCacheBytes = 64 << 20
	}
	if o.BodyCacheBytes == 0 {
		o.BodyCacheBytes = 256 << 20
	}
	if o.SearchCacheBytes == 0 {
		o.SearchCacheBytes = 32 << 20
	}
	if o.LicensingURL == "" {
		o.LicensingURL = "https://vspec.example/licensing"
	}
	if o.UpgradeURL == "" {
		o.UpgradeURL = "https://vspec.example/pricing"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PaidLimiter == nil {
		o.PaidLimiter = access.NewNetworkLimiter(60)
	}
	if o.PublicURL == "" {
		o.PublicURL = "http://localhost/v1"
	}
	o.PublicURL = strings.TrimSuffix(o.PublicURL, "/")
	if o.SearchThreshold == 0 {
		o.SearchThreshold = 0.5
	}
}

// Service answers the API from the catalogue installed last.
type Service struct {
	opts       Options
	view       atomic.Pointer[view]
	handler    fasthttp.RequestHandler
	cache      *ristretto.Cache[uint64, []byte]      // compressed bodies by content hash and coding
	bodies     *ristretto.Cache[uint64, *rendered]   // rendered bodies by bodyKey
	searches   *ristretto.Cache[uint64, *searchPage] // first-page search matches, see searchcache.go
	epoch      atomic.Uint32                         // counts Install calls; part of every bodyKey
	maxAge     []byte                                // "private, max-age=N"
	policy     map[access.Plan][]byte                // RateLimit-Policy of each plan
	limits     [4]access.Limits                      // by plan
	registered []openapi.Operation                   // every route, for the description test
	handlers   [numOperations]opHandlers             // the payable operations, for Invoke
}

// opHandlers are a payable operation's handler of the full catalogue and
// its demo-tier twin.
type opHandlers struct {
	full, demo func(*fasthttp.RequestCtx, *request)
}

// rendered is an immutable rendered body and its content hash.
type rendered struct {
	body []byte
	sum  uint64
}

// view is one installed catalogue with what the edge derives from it. A
// request loads the view once and answers from it to the end.
type view struct {
	cat         *engine.Catalogue
	varTok      []uint32 // token value of each variant row
	genTok      []uint32
	modelTok    []uint32
	cdn         string
	synced      []byte // meta.last_synced_at of the catalogue, RFC 3339
	specs       specFragments
	epoch       uint32    // distinguishes cached bodies of this view from earlier ones
	demo        *demoView // nil when the catalogue carries no complete demo set
	described   *described
	localeBytes [][]byte
}

// New returns the service answering from c.
func New(c *engine.Catalogue, opts Options) (*Service, error) {
	opts.SetDefaults()
	if opts.Codec == nil || opts.Keys == nil {
		return nil, fmt.Errorf("httpd: a token codec and a key store are required")
	}
	s := &Service{opts: opts, maxAge: []byte(fmt.Sprintf("private, max-age=%d", int(opts.MaxAge.Seconds()))), policy: map[access.Plan][]byte{}}
	for _, p := range []access.Plan{access.PlanDemo, access.PlanApify, access.PlanFree} {
		s.limits[p] = access.DefaultLimits(p)
		if l, ok := opts.Limits[p]; ok {
			s.limits[p] = l
		}
		l := s.limitsOf(p)
		s.policy[p] = []byte(fmt.Sprintf(`"minute";q=%d;w=60, "day";q=%d;w=86400, "month";q=%d;w=2592000`, l[access.Minute], l[access.Day], l[access.Month]))
	}
	if opts.CompressedCacheBytes > 0 {
		cache, err := ristretto.NewCache(&ristretto.Config[uint64, []byte]{
			NumCounters: 100_000, MaxCost: opts.CompressedCacheBytes, BufferItems: 64,
		})
		if err != nil {
			return nil, err
		}
		s.cache = cache
	}
	if opts.BodyCacheBytes > 0 {
		bodies, err := ristretto.NewCache(&ristretto.Config[uint64, *rendered]{
			NumCounters: 1_000_000, MaxCost: opts.BodyCacheBytes, BufferItems: 64,
		})
		if err != nil {
			return nil, err
		}
		s.bodies = bodies
	}
	if opts.SearchCacheBytes > 0 {
		searches, err := ristretto.NewCache(&ristretto.Config[uint64, *searchPage]{
			NumCounters: 200_000, MaxCost: opts.SearchCacheBytes, BufferItems: 64,
		})
		if err != nil {
			return nil, err
		}
		s.searches = searches
	}
	s.Install(c)
	s.handler = s.routes()
	return s, nil
}

// Install makes c the catalogue being served. Requests in flight finish on
// the catalogue they started with.
func (s *Service) Install(c *engine.Catalogue) {
	v := &view{cat: c, cdn: c.Meta.CDNBase, epoch: s.epoch.Add(1)}
	if s.opts.CDNBase != "" {
		v.cdn = s.opts.CDNBase
	}
	codec := s.opts.Codec
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
	v.demo = s.buildDemo(v)
	v.described = s.describe(v)
	s.view.Store(v)
}

// WaitCaches blocks until the response caches have applied every pending
// write (ristretto applies them asynchronously). Tests and benchmarks call
// it to reach the steady state.
func (s *Service) WaitCaches() {
	if s.bodies != nil {
		s.bodies.Wait()
	}
	if s.cache != nil {
		s.cache.Wait()
	}
	if s.searches != nil {
		s.searches.Wait()
	}
}

// Catalogue returns the catalogue being served.
func (s *Service) Catalogue() *engine.Catalogue { return s.view.Load().cat }

// Handler returns the request handler.
func (s *Service) Handler() fasthttp.RequestHandler { return s.handler }

// Server returns a fasthttp server around the handler. Serve it on a
// listener guarded by httpd/connguard: fasthttp's own accept loop ends on
// the first descriptor exhaustion.
func (s *Service) Server() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:      s.handler,
		Name:         "catalogued",
		ReadTimeout:  s.opts.ReadTimeout,
		WriteTimeout: s.opts.WriteTimeout,
		IdleTimeout:  s.opts.IdleTimeout,
		// The request line and headers must fit the read buffer (431
		// beyond); bodies are limited per route before they are read.
		ReadBufferSize:               s.opts.MaxHeaderBytes,
		HeaderReceived:               requestConfig,
		MaxRequestBodySize:           KeyRequestBodyBytes,
		ErrorHandler:                 parseError,
		DisablePreParseMultipartForm: true,
		NoDefaultContentType:         true,
		ReduceMemoryUsage:            false,
		// fasthttp logs every connection error; a client can cause as many
		// as it likes, so they are rate-limited.
		Logger: fasthttpLog{},
	}
}

// fasthttpLog sends fasthttp's own log lines through ratelog.
type fasthttpLog struct{}

func (fasthttpLog) Printf(format string, args ...any) {
	ratelog.Default.Printf("http", format, args...)
}

// route names identify lists for cursor bindings and are part of every
// cursor's MAC: changing one invalidates cursors of that route.
const (
	routeBrands      = "brands"
	routeModels      = "models"
	routeGenerations = "generations"
	routeVariants    = "gen-variants"
	routeSpecCatalog = "spec-catalog"
)

func (s *Service) routes() fasthttp.RequestHandler {
	s.handlers = [numOperations]opHandlers{
		OpSpecs:   {s.variantSpecs, s.demoVariantSpecs},
		OpSearch:  {s.search, s.demoSearch},
		OpFilter:  {s.variantsFilter, s.demoOutside},
		OpCompare: {s.compare, s.demoCompare},
	}
	r := router.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.HandleOPTIONS = true
	get := func(path string, h fasthttp.RequestHandler) {
		r.GET(path, h)
		r.HEAD(path, h)
		s.registered = append(s.registered, openapi.Operation{Method: "GET", Path: path}, openapi.Operation{Method: "HEAD", Path: path})
	}
	post := func(path string, h fasthttp.RequestHandler) {
		r.POST(path, h)
		s.registered = append(s.registered, openapi.Operation{Method: "POST", Path: path})
	}
	get("/v1/health", s.health)
	get("/v1/openapi.json", s.openAPI)
	get("/v1/docs", s.docs)
	post("/v1/keys/demo", s.keyRequest)
	post("/v1/keys", s.keyRequest) // alias kept for cached pages and copied commands
	get("/v1/keys/demo/verify", s.keyVerify)
	// Each keyed route names its catalogue handler and its demo-tier twin.
	get("/v1/brands", s.keyed(s.brands, s.demoBrands))
	get("/v1/brands/{slug}", s.keyed(s.brand, s.demoBrand))
	get("/v1/brands/{slug}/models", s.keyed(s.models, s.demoModels))
	get("/v1/models/{id}/generations", s.keyed(s.generations, s.demoGenerations))
	get("/v1/generations/{id}/variants", s.keyed(s.generationVariants, s.demoGenerationVariants))
	get("/v1/variants", s.payable(OpFilter, s.variantsFilter, s.demoOutside))
	get("/v1/compare", s.payable(OpCompare, s.compare, s.demoCompare))
	get("/v1/search", s.payable(OpSearch, s.search, s.demoSearch))
	get("/v1/variants/{id}", s.keyed(s.variant, s.demoVariant))
	get("/v1/variants/{id}/specs", s.payable(OpSpecs, s.variantSpecs, s.demoVariantSpecs))
	get("/v1/variants/{id}/images", s.keyed(s.variantImages, s.demoVariantImages))
	get("/v1/variants/{id}/prices", s.keyed(s.variantPrices, s.demoOutside))
	get("/v1/specs/catalog", s.keyed(s.specCatalog, s.demoOutside))
	get("/v1/usage", s.keyed(s.usage, s.demoOutside))
	get("/v1/export", s.keyed(s.export, s.demoOutside))
	get("/v1/demo", s.keyed(s.demoForOthers, s.demoSet))
	r.NotFound = s.notFound
	r.MethodNotAllowed = s.methodNotAllowed
	r.PanicHandler = s.panicked
	slow := r.Handler
	variant, specs := s.keyed(s.variant, s.demoVariant), s.payable(OpSpecs, s.variantSpecs, s.demoVariantSpecs)
	// The two hottest reads skip the router: its {id} parameters cost three
	// allocations per request (see BenchmarkRouting).
	return func(ctx *fasthttp.RequestCtx) {
		if refuseFraming(ctx) {
			return
		}
		if (ctx.IsGet() || ctx.IsHead()) && bytes.HasPrefix(ctx.Path(), prefixVariants) {
			rest := ctx.Path()[len(prefixVariants):]
			switch i := bytes.IndexByte(rest, '/'); {
			case i < 0 && len(rest) > 0:
				variant(ctx)
				return
			case i > 0 && bytes.Equal(rest[i:], suffixSpecs):
				specs(ctx)
				return
			}
		}
		slow(ctx)
	}
}

// pathSegment returns segment n of a path ("/v1/variants/v_1/specs" has
// segments "v1", "variants", "v_1", "specs" numbered from 0), or nil.
func pathSegment(path []byte, n int) []byte {
	if len(path) > 0 && path[0] == '/' {
		path = path[1:]
	}
	for ; n > 0; n-- {
		i := bytes.IndexByte(path, '/')
		if i < 0 {
			return nil
		}
		path = path[i+1:]
	}
	if i := bytes.IndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return path
}

var (
	prefixVariants = []byte("/v1/variants/")
	suffixSpecs    = []byte("/specs")
)
