package httpd

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/observe"
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
	// Keys is the key store requests are checked against and counted in:
	// the embedded store or Redis (see access.Backend).
	Keys access.Backend
	// Meter persists usage; when it reports unhealthy, keyed requests are
	// refused with 503. Nil disables the check (counts stay in memory).
	Meter *access.Meter
	// StoreReachable reports whether the shared access store answers (a
	// result cached by the store, so cheap): while it returns an error,
	// /readyz answers 503 "store unreachable" and a load balancer's health
	// check takes this replica out. Nil: the store is in the process.
	StoreReachable func() error
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
	PaidLimiter access.NetworkCounter
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
	// BodyCacheBytes bounds the cache of rendered bodies: a variant, its
	// specs, images and prices, and the pages of the finite lists.
	// Default 256 MiB; negative disables it. The 1,024 bodies used last
	// are also held in front of it (see bodyCache), beyond the bound.
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
	// FreeSunset is when keys of the deprecated free plan stop working,
	// announced in the Sunset field of their responses (RFC 8594). Default
	// 2027-06-01.
	FreeSunset time.Time
	// Observer records each request's id, access-log line and metrics.
	// Default: one of its own, with metrics and no access log.
	Observer *observe.Observer
	// Now is the clock. Default time.Now.
	Now       func() time.Time
	realClock bool // Now is time.Now: a REST request's time is fasthttp's (requestTime)
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
		o.realClock = true
	}
	if o.FreeSunset.IsZero() {
		o.FreeSunset = time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.Observer == nil {
		o.Observer = observe.New(observe.Options{})
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

// Service serves the API over REST from the catalogue installed last, and
// answers the MCP adapter's calls (call.go).
type Service struct {
	opts       Options
	ops        operations
	obs        *observe.Observer
	view       atomic.Pointer[view]
	serve      fasthttp.RequestHandler
	cache      *ristretto.Cache[uint64, []byte] // compressed bodies by content hash and coding
	epoch      atomic.Uint32                    // counts Install calls; part of every bodyKey
	maxAge     []byte                           // "private, max-age=N"
	policy     map[access.Plan][]byte           // RateLimit-Policy of each plan
	sunset     []byte                           // the free plan's Sunset field
	upgrade    []byte                           // its Link to the upgrade path
	limits     [4]access.Limits                 // by plan
	registered []openapi.Operation              // every route, for the description test
	draining   atomic.Bool                      // see SetDraining

	compressedHit, compressedMiss func() // the compressed-body cache, for the metrics
}

// New returns the service answering from c.
func New(c *engine.Catalogue, opts Options) (*Service, error) {
	opts.SetDefaults()
	if opts.Codec == nil || opts.Keys == nil {
		return nil, fmt.Errorf("httpd: a token codec and a key store are required")
	}
	s := &Service{opts: opts, obs: opts.Observer, maxAge: []byte(fmt.Sprintf("private, max-age=%d", int(opts.MaxAge.Seconds()))), policy: map[access.Plan][]byte{}}
	for _, p := range []access.Plan{access.PlanDemo, access.PlanApify, access.PlanFree} {
		s.limits[p] = access.DefaultLimits(p)
		if l, ok := opts.Limits[p]; ok {
			s.limits[p] = l
		}
		l := &s.limits[p]
		s.policy[p] = []byte(fmt.Sprintf(`"minute";q=%d;w=60, "day";q=%d;w=86400, "month";q=%d;w=2592000`, l[access.Minute], l[access.Day], l[access.Month]))
	}
	s.sunset = []byte(opts.FreeSunset.UTC().Format(http.TimeFormat))
	s.upgrade = []byte("<" + opts.UpgradeURL + `>; rel="deprecation"; type="text/html"`)
	cacheCounter := func(cache, result string) func() {
		return s.obs.Counter(`catalogue_cache_requests_total{cache="` + cache + `",result="` + result + `"}`).Inc
	}
	s.ops = operations{codec: opts.Codec, threshold: opts.SearchThreshold, limits: &s.limits, now: opts.Now,
		licensing: opts.LicensingURL, upgradeURL: opts.UpgradeURL, queries: new(filterQueries),
		bodyHit: cacheCounter("body", "hit"), bodyMiss: cacheCounter("body", "miss"),
		searchHit: cacheCounter("search", "hit"), searchMiss: cacheCounter("search", "miss")}
	s.compressedHit, s.compressedMiss = cacheCounter("compressed", "hit"), cacheCounter("compressed", "miss")
	var err error
	if s.cache, err = newCache[[]byte](opts.CompressedCacheBytes, 100_000); err != nil {
		return nil, err
	}
	bodies, err := newCache[*rendered](opts.BodyCacheBytes, 1_000_000)
	if err != nil {
		return nil, err
	}
	s.ops.bodies = newBodyCache(bodies)
	if s.ops.searches, err = newCache[*searchPage](opts.SearchCacheBytes, 200_000); err != nil {
		return nil, err
	}
	s.Install(c)
	s.serve = s.routes()
	return s, nil
}

// newCache returns a cache of at most bytes, or nil when bytes is not
// positive.
func newCache[V any](bytes, counters int64) (*ristretto.Cache[uint64, V], error) {
	if bytes <= 0 {
		return nil, nil
	}
	return ristretto.NewCache(&ristretto.Config[uint64, V]{NumCounters: counters, MaxCost: bytes, BufferItems: 64})
}

// Install makes c the catalogue being served. Requests in flight finish on
// the catalogue they started with.
func (s *Service) Install(c *engine.Catalogue) {
	v := newView(c, s.opts.Codec, s.epoch.Add(1))
	if s.opts.CDNBase != "" {
		v.cdn = s.opts.CDNBase
	}
	v.demo = buildDemo(v, s.opts.Codec, s.opts.UpgradeURL)
	v.described = s.describe(v)
	s.view.Store(v)
}

// WaitCaches blocks until the response caches have applied every pending
// write (ristretto applies them asynchronously). Tests and benchmarks call
// it to reach the steady state.
func (s *Service) WaitCaches() {
	if s.ops.bodies != nil {
		s.ops.bodies.Wait()
	}
	if s.cache != nil {
		s.cache.Wait()
	}
	if s.ops.searches != nil {
		s.ops.searches.Wait()
	}
}

// Catalogue returns the catalogue being served.
func (s *Service) Catalogue() *engine.Catalogue { return s.view.Load().cat }

// Handler returns the request handler.
func (s *Service) Handler() fasthttp.RequestHandler { return s.serve }

// Server returns a fasthttp server around the handler. Serve it on a
// listener guarded by httpd/connguard: fasthttp's own accept loop ends on
// the first descriptor exhaustion.
func (s *Service) Server() *fasthttp.Server { return NewServer(s.opts, s.serve) }

// NewServer returns a fasthttp server around h with the limits of opts:
// what Service.Server returns, for a process that serves before its
// Service exists (see Starting).
func NewServer(opts Options, h fasthttp.RequestHandler) *fasthttp.Server {
	opts.SetDefaults()
	return &fasthttp.Server{
		Handler:      h,
		Name:         "catalogued",
		ReadTimeout:  opts.ReadTimeout,
		WriteTimeout: opts.WriteTimeout,
		IdleTimeout:  opts.IdleTimeout,
		// The request line and headers must fit the read buffer (431
		// beyond); bodies are limited per route before they are read.
		ReadBufferSize:               opts.MaxHeaderBytes,
		HeaderReceived:               requestConfig,
		MaxRequestBodySize:           KeyRequestBodyBytes,
		ErrorHandler:                 func(ctx *fasthttp.RequestCtx, err error) { parseError(ctx, opts.Observer, err) },
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
