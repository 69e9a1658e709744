package httpd

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/x402"
)

// Operation is one of the four operations a caller without a key may pay
// for per request with x402.
type Operation uint8

// The payable operations.
const (
	OpSpecs   Operation = iota // GET /v1/variants/{id}/specs
	OpSearch                   // GET /v1/search
	OpFilter                   // GET /v1/variants
	OpCompare                  // GET /v1/compare
	numOperations
)

// operations holds each payable operation's price, in atomic units of a
// 6-decimal dollar stablecoin, and how a 402 names it.
var operations = [numOperations]struct {
	price       int64
	route       string
	description string
}{
	OpSpecs:   {50_000, "GET /v1/variants/{id}/specs", "Full spec sheet of one variant"},
	OpSearch:  {5_000, "GET /v1/search", "Typeahead search over the full catalogue, one page"},
	OpFilter:  {5_000, "GET /v1/variants", "Structured filter over the full catalogue, one page"},
	OpCompare: {100_000, "GET /v1/compare", "Side-by-side comparison of 2 to 4 variants"},
}

// Price returns an operation's price per call in atomic units (6 decimals:
// 50000 is 0.05 USD).
func (op Operation) Price() int64 { return operations[op].price }

// Description says in a few words what an operation's payment buys.
func (op Operation) Description() string { return operations[op].description }

// payable wraps the handler of a payable operation: a request with a key is
// answered exactly as keyed answers it (never 402, any PAYMENT-SIGNATURE
// ignored); a request without one pays per call with x402, or gets 402
// with the offer.
func (s *Service) payable(op Operation, h, demo func(*fasthttp.RequestCtx, *request)) fasthttp.RequestHandler {
	if s.opts.Payments == nil {
		return s.keyed(h, demo)
	}
	return func(ctx *fasthttp.RequestCtx) {
		if raw := apiKey(ctx); len(raw) > 0 {
			s.serveKeyed(ctx, raw, h, demo)
			return
		}
		s.paid(ctx, op, h)
	}
}

var headerPaymentSignature = []byte(x402.HeaderSignature)

// paid serves a keyless call to a payable operation: 402 with the offer
// when it carries no payment; otherwise the network's limit, the payment
// decoded and verified, the handler run, and the payment settled only when
// the handler answered 2xx, within the write timeout. A refused
// settlement discards the answer (402, nothing charged); one without a
// clear outcome discards it too (504 with the payment's reference: it may
// have been taken).
func (s *Service) paid(ctx *fasthttp.RequestCtx, op Operation, h func(*fasthttp.RequestCtx, *request)) {
	sig := ctx.Request.Header.PeekBytes(headerPaymentSignature)
	// A payment buys a GET's body; HEAD has none to sell, so it is answered
	// with the offer and a payment it carries is neither used nor charged.
	if len(sig) == 0 || ctx.IsHead() {
		s.paymentRequired(ctx, op, "", "")
		return
	}
	now := s.opts.Now()
	network := keyflow.Network(peer(ctx), ctx.Request.Header.PeekAll("X-Forwarded-For"), s.opts.TrustedProxies)
	if ok, wait := s.opts.PaidLimiter.Allow(network, now); !ok {
		ctx.Response.Header.SetBytesKV(headerRetryAfter, strconv.AppendInt(nil, int64(wait/time.Second), 10))
		problem(ctx, fasthttp.StatusTooManyRequests, "Too Many Requests",
			"Calls paid per request are limited to "+strconv.FormatInt(s.opts.PaidLimiter.Limit(), 10)+
				" a minute per network, and this network has made them this minute. Retry after the Retry-After delay, or use an API key: see "+s.opts.UpgradeURL+".")
		return
	}
	payload, err := x402.DecodePayment(sig)
	if err != nil {
		problem(ctx, fasthttp.StatusBadRequest, "Bad Request",
			"The PAYMENT-SIGNATURE header cannot be read: "+err.Error()+". It must be the standard base64 (with padding) of an x402 version 2 PaymentPayload JSON object.")
		return
	}
	pay, err := s.opts.Payments.Verify(context.Background(), payload, op.Price())
	if err != nil {
		var rej *x402.Rejection
		if errors.As(err, &rej) {
			s.paymentRequired(ctx, op, rej.Reason, "The payment was refused ("+rej.Reason+"): "+rej.Detail+".")
			return
		}
		// Gate.Verify logged the cause.
		ctx.Response.Header.SetBytesKV(headerRetryAfter, retryMetering)
		problem(ctx, fasthttp.StatusServiceUnavailable, "Service Unavailable",
			"The payment could not be verified because the payment facilitator is unavailable; nothing was charged. This is a failure on our side: retry after the Retry-After delay with a new payment.")
		return
	}
	// A paid call always gets the full representation it pays for.
	ctx.Request.Header.DelBytes(headerIfNoneMatch)
	rq := getRequest()
	defer putRequest(rq)
	rq.v = s.view.Load()
	h(ctx, rq)
	if code := ctx.Response.StatusCode(); code < 200 || code > 299 {
		return // not served: nothing is settled
	}
	// Not ctx: the settlement may run on after the handler returned, and
	// fasthttp reuses ctx for the next request.
	settled := s.opts.Payments.Settle(context.Background(), pay, s.SettleDeadline(ctx.Time()), x402.Sale{Resource: s.resourceURL(ctx), Operation: operations[op].route})
	switch settled.Outcome {
	case x402.Settled:
	case x402.Refused:
		header, _ := x402.EncodeHeader(settled.Response)
		ctx.Response.Reset()
		ctx.Response.Header.Set(x402.HeaderResponse, header)
		paymentProblem(ctx, "The payment could not be settled ("+settled.Response.ErrorReason+"), so the response is withheld and nothing was charged. Retry with a new payment.")
		return
	default: // unknown: it may have been taken
		ctx.Response.Reset()
		ctx.Response.Header.Set(HeaderPaymentReference, settled.Reference)
		problem(ctx, fasthttp.StatusGatewayTimeout, "Gateway Timeout", SettlementUnknownDetail(settled.Reference))
		return
	}
	header, _ := x402.EncodeHeader(settled.Response)
	ctx.Response.Header.Set(x402.HeaderResponse, header)
	// Each payment buys one response: a cache must not replay it, with its
	// receipt, as if it had been paid again.
	ctx.Response.Header.SetBytesKV(headerCacheControl, noStore)
	ctx.Response.Header.DelBytes(headerETag)
}

// HeaderPaymentReference carries, on the 504 of a payment whose settlement
// has no clear outcome, the reference it is recorded under for
// reconciliation.
const HeaderPaymentReference = "Payment-Reference"

// settleMargin is what the settlement of a paid call leaves of the write
// timeout for answering.
const settleMargin = time.Second

// SettleDeadline is when the settlement of a paid call that started at
// start must have ended for its answer to be written within the write
// timeout. The gate's own SettleTimeout may end it sooner.
func (s *Service) SettleDeadline(start time.Time) time.Time {
	return start.Add(s.opts.WriteTimeout - settleMargin)
}

// SettlementUnknownDetail says to a paying caller that its payment's
// settlement has no clear outcome: the answer is withheld, the payment may
// have been taken and is recorded under ref for reconciliation.
func SettlementUnknownDetail(ref string) string {
	return "The payment facilitator did not confirm the settlement of your payment in time, so the answer is withheld. " +
		"The payment may have been taken: it is recorded under the payment reference " + ref + " (also in the " + HeaderPaymentReference +
		" header) and will be reconciled with the facilitator; quote the reference when you ask about it. " +
		"A new call needs a new payment."
}

// paymentRequired writes the 402 of a payable operation: the offer in
// PAYMENT-REQUIRED and a ProblemDetail saying it in words.
func (s *Service) paymentRequired(ctx *fasthttp.RequestCtx, op Operation, reason, refused string) {
	res := x402.Resource{URL: s.resourceURL(ctx), Description: op.Description(), MimeType: "application/json"}
	header, err := x402.EncodeHeader(s.opts.Payments.Required(res, op.Price(), reason))
	if err != nil {
		s.panicked(ctx, err)
		return
	}
	ctx.Response.Header.Set(x402.HeaderRequired, header)
	detail := operations[op].route + " costs " + x402.USD(op.Price()) + " USD per call without an API key, paid with x402 version 2 (scheme exact, USDC on " +
		s.opts.Payments.Network() + "). The PAYMENT-REQUIRED header carries the offer as base64 JSON: sign it and repeat the request with the PAYMENT-SIGNATURE header. " +
		"Only a successful response is charged. With an API key (X-Api-Key or Authorization: Bearer) no payment is asked; see " + s.opts.UpgradeURL + "."
	if refused != "" {
		detail = refused + " " + detail
	}
	paymentProblem(ctx, detail)
}

// paymentProblem writes a 402 ProblemDetail as application/json, as the
// contract says the 402 body is.
func paymentProblem(ctx *fasthttp.RequestCtx, detail string) {
	problem(ctx, fasthttp.StatusPaymentRequired, "Payment Required", detail)
	ctx.SetContentType("application/json; charset=utf-8")
}

// resourceURL is the public URL of the request, which a 402 names as the
// resource paid for.
func (s *Service) resourceURL(ctx *fasthttp.RequestCtx) string {
	b := append(make([]byte, 0, 128), s.opts.PublicURL...)
	b = append(b, ctx.Path()[len("/v1"):]...)
	if q := ctx.URI().QueryString(); len(q) > 0 {
		b = append(b, '?')
		b = append(b, q...)
	}
	return string(b)
}
