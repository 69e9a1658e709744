package httpd

import (
	"strconv"
	"time"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
)

// Options configures the HTTP edge. The zero value is usable after
// SetDefaults.
type Options struct {
	// ReadTimeout and WriteTimeout bound one request. Defaults 10 s.
	ReadTimeout, WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections. Default 60 s.
	IdleTimeout time.Duration
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
}

// New returns a fasthttp server answering from the catalogue in h.
func New(h *engine.Holder, opts Options) *fasthttp.Server {
	opts.SetDefaults()
	s := &service{holder: h}
	r := router.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	r.HandleOPTIONS = true // answers OPTIONS with 200 and Allow
	r.GET("/v1/health", s.health)
	r.HEAD("/v1/health", s.health)
	r.NotFound = s.notFound
	r.MethodNotAllowed = s.methodNotAllowed
	r.PanicHandler = s.panicked
	return &fasthttp.Server{
		Handler:                       r.Handler,
		Name:                          "catalogued",
		ReadTimeout:                   opts.ReadTimeout,
		WriteTimeout:                  opts.WriteTimeout,
		IdleTimeout:                   opts.IdleTimeout,
		DisableHeaderNamesNormalizing: false,
		NoDefaultDate:                 false,
		NoDefaultContentType:          true,
	}
}

type service struct {
	holder *engine.Holder
}

const contentJSON = "application/json; charset=utf-8"

// appendMeta appends the meta object every success response carries.
func appendMeta(dst []byte, c *engine.Catalogue, locale string) []byte {
	dst = append(dst, `"meta":{"last_synced_at":"`...)
	dst = c.Meta.SyncedAt.AppendFormat(dst, time.RFC3339)
	dst = append(dst, `","locale":`...)
	dst = jsonenc.AppendString(dst, locale)
	return append(dst, `,"units":"metric"}`...)
}

// health answers GET /v1/health: 200 while a catalogue is being served.
func (s *service) health(ctx *fasthttp.RequestCtx) {
	c := s.holder.Load()
	_, _, _, variants := c.Counts()
	b := append(make([]byte, 0, 256), `{"data":{"status":"ok","active_variants":`...)
	b = strconv.AppendInt(b, int64(variants), 10)
	b = append(b, `},`...)
	b = appendMeta(b, c, "en")
	b = append(b, '}')
	ctx.SetBody(b)
	ctx.SetContentType(contentJSON)
	ctx.Response.Header.Set("Cache-Control", "no-store")
}
