package httpd

import (
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/ratelog"
)

// Authentication and admission of keyed calls, for every transport: the
// key a call sends, its state (401, 403), its plan's limits (429, RateLimit
// fields) and the metering store's health (503, fail closed).

// authenticate checks the key a call sent (raw, empty when none): 401
// when there is none or it is unknown, 403 when it is not yet active or
// revoked.
func (s *Service) authenticate(raw []byte) (*access.Key, *Error) {
	if len(raw) == 0 {
		return nil, errorf(http.StatusUnauthorized, "An API key is required: send it in the X-Api-Key header or as Authorization: Bearer <key>. "+
			"A free demo key (40 cars) is a POST /v1/keys/demo away; /v1/docs describes every route.").
			with("WWW-Authenticate", bearerRealm)
	}
	k, err := s.opts.Keys.Lookup(raw)
	if err != nil && err != access.ErrNotFound {
		return nil, storeDown(err)
	}
	if err != nil {
		return nil, errorf(http.StatusUnauthorized, "The API key is not known. Check that it was copied whole.").
			with("WWW-Authenticate", bearerRealmInvalid).kind("key-unknown")
	}
	switch k.State {
	case access.StatePending:
		return nil, forbidden("This API key is not yet active. Activate it with the link that was emailed to you; see " + s.opts.UpgradeURL + ".").kind("key-inactive")
	case access.StateRevoked:
		return nil, forbidden("This API key has been revoked. To keep using the catalogue, see " + s.opts.UpgradeURL + ".").kind("key-inactive")
	}
	return k, nil
}

// admit reserves one call on the key's counters at now and renders its
// RateLimit field into rq.hdr, or refuses: 429 when a limit is reached,
// 503 when metering cannot be trusted (fail closed).
func (s *Service) admit(rq *request, k *access.Key, now time.Time) (access.Ticket, *Error) {
	if s.opts.Meter != nil && !s.opts.Meter.Healthy(now) {
		ratelog.Default.Printf("metering refusal", "keyed requests are refused with 503: usage cannot be persisted (last error: %s)", s.opts.Meter.LastError())
		return access.Ticket{}, unavailable(retryMetering,
			"Usage metering is unavailable, so the request is refused rather than served uncounted. This is a failure on our side, not a limit of your key: retry after the Retry-After delay.").kind("metering-unavailable")
	}
	limits := &s.limits[k.Plan]
	ticket, full, ok, serr := s.opts.Keys.Reserve(k, now, limits)
	if serr != nil {
		return access.Ticket{}, storeDown(serr)
	}
	if !ok {
		end := full.End(now)
		wait := int64(end.Sub(now).Seconds()) + 1
		e := &Error{Status: http.StatusTooManyRequests, RetryAfter: wait,
			Detail: "This key has used its " + strconv.FormatInt(limits[full], 10) + " calls per " + full.String() + " of the " + k.Plan.String() +
				" plan. The " + full.String() + " window resets at " + end.Format(time.RFC3339) + "; for higher limits, see " + s.opts.UpgradeURL + "."}
		return access.Ticket{}, e.with("RateLimit-Policy", string(s.policy[k.Plan])).with("RateLimit", string(appendRateLimit(nil, full, 0, wait)))
	}
	// RateLimit reports the window closest to exhaustion.
	tight, left := access.Minute, int64(-1)
	for w := access.Minute; w <= access.Month; w++ {
		if r := ticket.Remaining(w, limits); left < 0 || r < left {
			tight, left = w, r
		}
	}
	end := tight.End(now)
	rq.hdr = appendRateLimit(rq.hdr[:0], tight, left, int64(end.Sub(now).Seconds())+1)
	rq.usedMonth = ticket.Used[access.Month]
	return ticket, nil
}

// requestTime is the time of a REST request: when fasthttp started
// handling it (a clock read it makes anyway), unless o.Now is another
// clock than time.Now (tests) or the request did not come through a
// server.
func requestTime(ctx *fasthttp.RequestCtx, o *Options) time.Time {
	if o.realClock {
		if t := ctx.Time(); !t.IsZero() {
			return t
		}
	}
	return o.Now()
}

// storeDown is the 503 of a request whose key or counters the access store
// could not check in time (err wraps access.ErrUnavailable): refused,
// never served unchecked or uncounted.
func storeDown(err error) *Error {
	ratelog.Default.Printf("access store refusal", "keyed requests are refused with 503: the access store failed: %v", err)
	return unavailable(retryStore,
		"The access store cannot be reached, so the request is refused rather than served unchecked or uncounted. This is a failure on our side, not a limit of your key: retry after the Retry-After delay.").kind("metering-unavailable")
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

var (
	headerRetryAfter      = canonical("Retry-After")
	headerRateLimit       = canonical("RateLimit")
	headerRateLimitPolicy = canonical("RateLimit-Policy")
)

const (
	retryMetering      = 30 // seconds a refusal for metering asks to wait
	retryStore         = 2  // seconds a refusal for an unreachable access store asks to wait
	bearerRealm        = `Bearer realm="catalogue"`
	bearerRealmInvalid = `Bearer realm="catalogue", error="invalid_token"`
)
