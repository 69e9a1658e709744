package httpd

import (
	"bytes"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/ratelog"
)

// Authentication and admission of keyed requests: the key a request sends,
// its state (401, 403), its plan's limits (429, RateLimit headers) and the
// metering store's health (503, fail closed).

var (
	headerAPIKey        = []byte("X-Api-Key")
	headerAuthorization = []byte("Authorization")
	bearerPrefix        = []byte("bearer ")
)

// apiKey returns the key a request sends: X-Api-Key, or else the token of
// Authorization: Bearer.
func apiKey(ctx *fasthttp.RequestCtx) []byte {
	if k := ctx.Request.Header.PeekBytes(headerAPIKey); len(k) > 0 {
		return bytes.TrimSpace(k)
	}
	a := ctx.Request.Header.PeekBytes(headerAuthorization)
	if len(a) > len(bearerPrefix) && bytes.EqualFold(a[:len(bearerPrefix)], bearerPrefix) {
		return bytes.TrimSpace(a[len(bearerPrefix):])
	}
	return nil
}

// keyed wraps a handler of a key-requiring route: no or an unknown key is
// 401, a key not yet active or revoked is 403, a key over one of its
// plan's limits is 429, and while usage cannot be metered the request is
// refused with 503 (fail closed). A call is counted only when it served a
// body: a GET answered 2xx. A 304 and a HEAD are admitted like any call but
// not counted, so clients that cache and revalidate are not charged for it.
//
// demo is the route's handler for demo keys: a request with a demo key is
// answered by it and never reaches h, whatever the route.
func (s *Service) keyed(h, demo func(*fasthttp.RequestCtx, *request)) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) { s.serveKeyed(ctx, apiKey(ctx), h, demo) }
}

// serveKeyed answers a request of a key-requiring route with the key it
// sent (raw, empty when none), as keyed describes.
func (s *Service) serveKeyed(ctx *fasthttp.RequestCtx, raw []byte, h, demo func(*fasthttp.RequestCtx, *request)) {
	rq := getRequest()
	defer putRequest(rq)
	rq.v = s.view.Load()
	k, ok := s.authenticate(ctx, raw)
	if !ok {
		return
	}
	rq.key = k
	rq.raw = k.Plan == access.PlanApify
	ticket, ok := s.admit(ctx, rq, k)
	if !ok {
		return
	}
	if k.Plan == access.PlanDemo {
		demo(ctx, rq)
	} else {
		h(ctx, rq)
	}
	if code := ctx.Response.StatusCode(); code >= 300 || ctx.IsHead() {
		ticket.Release()
	}
}

// authenticate checks the key a request sent (raw, empty when none),
// writing the 401 or 403 when it does not admit the request.
func (s *Service) authenticate(ctx *fasthttp.RequestCtx, raw []byte) (*access.Key, bool) {
	if len(raw) == 0 {
		ctx.Response.Header.SetBytesKV(headerWWWAuthenticate, bearerRealm)
		problem(ctx, fasthttp.StatusUnauthorized, "Unauthorized",
			"An API key is required: send it in the X-Api-Key header or as Authorization: Bearer <key>.")
		return nil, false
	}
	k, ok := s.opts.Keys.Lookup(raw)
	if !ok {
		ctx.Response.Header.SetBytesKV(headerWWWAuthenticate, bearerRealmInvalid)
		problem(ctx, fasthttp.StatusUnauthorized, "Unauthorized", "The API key is not known. Check that it was copied whole.")
		return nil, false
	}
	switch k.State {
	case access.StatePending:
		problem(ctx, fasthttp.StatusForbidden, "Forbidden", "This API key is not yet active. Activate it with the link that was emailed to you; see "+s.opts.UpgradeURL+".")
		return nil, false
	case access.StateRevoked:
		problem(ctx, fasthttp.StatusForbidden, "Forbidden", "This API key has been revoked. To keep using the catalogue, see "+s.opts.UpgradeURL+".")
		return nil, false
	}
	return k, true
}

// admit reserves the call on the key's counters, or writes the 429 (a limit
// is reached) or the 503 (metering cannot be trusted).
func (s *Service) admit(ctx *fasthttp.RequestCtx, rq *request, k *access.Key) (access.Ticket, bool) {
	now := s.opts.Now()
	if s.opts.Meter != nil && !s.opts.Meter.Healthy(now) {
		ratelog.Default.Printf("metering refusal", "keyed requests are refused with 503: usage cannot be persisted (last error: %s)", s.opts.Meter.LastError())
		ctx.Response.Header.SetBytesKV(headerRetryAfter, retryMetering)
		problem(ctx, fasthttp.StatusServiceUnavailable, "Service Unavailable",
			"Usage metering is unavailable, so the request is refused rather than served uncounted. This is a failure on our side, not a limit of your key: retry after the Retry-After delay.")
		return access.Ticket{}, false
	}
	limits := s.limitsOf(k.Plan)
	ticket, full, ok := k.Usage().Reserve(now, limits)
	h := &ctx.Response.Header
	h.SetBytesKV(headerRateLimitPolicy, s.policy[k.Plan])
	if !ok {
		end := full.End(now)
		wait := int64(end.Sub(now).Seconds()) + 1
		h.SetBytesKV(headerRetryAfter, strconv.AppendInt(nil, wait, 10))
		h.SetBytesKV(headerRateLimit, appendRateLimit(nil, full, 0, wait))
		problem(ctx, fasthttp.StatusTooManyRequests, "Too Many Requests",
			"This key has used its "+strconv.FormatInt(limits[full], 10)+" calls per "+full.String()+" of the "+k.Plan.String()+
				" plan. The "+full.String()+" window resets at "+end.Format(time.RFC3339)+"; for higher limits, see "+s.opts.UpgradeURL+".")
		return access.Ticket{}, false
	}
	// RateLimit reports the window closest to exhaustion.
	tight, left := access.Minute, int64(-1)
	for w := access.Minute; w <= access.Month; w++ {
		if r, _ := k.Usage().Remaining(w, now, limits); left < 0 || r < left {
			tight, left = w, r
		}
	}
	_, end := k.Usage().Remaining(tight, now, limits)
	hdr := appendRateLimit(rq.hdr[:0], tight, left, int64(end.Sub(now).Seconds())+1)
	rq.hdr = hdr
	h.SetBytesKV(headerRateLimit, hdr)
	return ticket, true
}

// appendRateLimit renders the RateLimit field of the IETF draft
// (draft-ietf-httpapi-ratelimit-headers): "minute";r=REMAINING;t=SECONDS.
func appendRateLimit(dst []byte, w access.Window, remaining, reset int64) []byte {
	dst = append(dst, '"')
	dst = append(dst, w.String()...)
	dst = append(dst, `";r=`...)
	dst = strconv.AppendInt(dst, remaining, 10)
	dst = append(dst, ";t="...)
	return strconv.AppendInt(dst, reset, 10)
}

// limitsOf returns the limits of a plan (resolved in New).
func (s *Service) limitsOf(p access.Plan) *access.Limits { return &s.limits[p] }

var (
	headerRetryAfter      = []byte("Retry-After")
	headerRateLimit       = []byte("RateLimit")
	headerRateLimitPolicy = []byte("RateLimit-Policy")
	retryMetering         = []byte("30")
	headerWWWAuthenticate = []byte("WWW-Authenticate")
	bearerRealm           = []byte(`Bearer realm="catalogue"`)
	bearerRealmInvalid    = []byte(`Bearer realm="catalogue", error="invalid_token"`)
)
