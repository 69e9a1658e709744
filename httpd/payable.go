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

var headerPaymentSignature = []byte(x402.HeaderSignature)

// paid serves a keyless call to a payable operation from v: 402 with the offer
// when it carries no payment; otherwise the network's limit, the payment
// decoded, and the sale (x402.Gate.Sell): verified, answered from the full
// catalogue, and settled only when the answer is a success, within the
// write timeout. A refused settlement discards the answer (402, nothing
// charged); one without a clear outcome discards it too (504 with the
// payment's reference: it may have been taken).
func (s *Service) paid(ctx *fasthttp.RequestCtx, v *view, op Operation) {
	sig := ctx.Request.Header.PeekBytes(headerPaymentSignature)
	// A payment buys a GET's body; HEAD has none to sell, so it is answered
	// with the offer and a payment it carries is neither used nor charged.
	if len(sig) == 0 || ctx.IsHead() {
		s.paymentRequired(ctx, op, "", "")
		return
	}
	now := s.opts.Now()
	network := keyflow.Network(peer(ctx), ctx.Request.Header.PeekAll("X-Forwarded-For"), s.opts.TrustedProxies)
	ok, wait, err := s.opts.PaidLimiter.Allow(network, now)
	if err != nil {
		s.problem(ctx, storeDown(err).kind("unavailable"))
		return
	}
	if !ok {
		s.problem(ctx, &Error{Status: fasthttp.StatusTooManyRequests, RetryAfter: int64(wait / time.Second),
			Detail: "Calls paid per request are limited to " + strconv.FormatInt(s.opts.PaidLimiter.Limit(), 10) +
				" a minute per network, and this network has made them this minute. Retry after the Retry-After delay, or use an API key: see " + s.opts.UpgradeURL + ".", Kind: "network-rate-limited"})
		return
	}
	payload, err := x402.DecodePayment(sig)
	if err != nil {
		s.problem(ctx, badRequest("The PAYMENT-SIGNATURE header cannot be read: "+err.Error()+". It must be the standard base64 (with padding) of an x402 version 2 PaymentPayload JSON object.").kind("invalid-payment"))
		return
	}
	// A paid call always gets the full representation it pays for.
	ctx.Request.Header.DelBytes(headerIfNoneMatch)
	rq := getRequest()
	defer putRequest(rq)
	var refused error
	// Not ctx: the settlement may run on after the handler returned, and
	// fasthttp reuses ctx for the next request.
	sold := s.Sell(context.Background(), op, payload, s.SettleDeadline(ctx.Time()),
		x402.Sale{Resource: s.resourceURL(ctx), Operation: payable[op].route}, func() bool {
			refused = s.run(ctx, rq, v, payable[op].op, tierFull)
			return refused == nil
		})
	var rej *x402.Rejection
	switch {
	case errors.As(sold.Verify, &rej):
		s.paymentRequired(ctx, op, rej.Reason, "The payment was refused ("+rej.Reason+"): "+rej.Detail+".")
	case sold.Verify != nil: // Gate.Verify logged the cause.
		s.problem(ctx, unavailable(retryMetering,
			"The payment could not be verified because the payment facilitator is unavailable; nothing was charged. This is a failure on our side: retry after the Retry-After delay with a new payment.").kind("facilitator-unavailable"))
	case !sold.Served:
		s.problem(ctx, asError(refused)) // not served: nothing is settled
	case sold.Outcome == x402.Settled:
		s.send(ctx, rq)
		header, _ := x402.EncodeHeader(sold.Response)
		ctx.Response.Header.Set(x402.HeaderResponse, header)
		// Each payment buys one response: a cache must not replay it, with
		// its receipt, as if it had been paid again.
		ctx.Response.Header.SetCanonical(headerCacheControl, noStore)
		ctx.Response.Header.DelBytes(headerETag)
	case sold.Outcome == x402.Refused:
		header, _ := x402.EncodeHeader(sold.Response)
		ctx.Response.Header.Set(x402.HeaderResponse, header)
		s.paymentProblem(ctx, "The payment could not be settled ("+sold.Response.ErrorReason+"), so the response is withheld and nothing was charged. Retry with a new payment.")
	default: // unknown: it may have been taken
		ctx.Response.Header.Set(HeaderPaymentReference, sold.Reference)
		s.problem(ctx, errorf(fasthttp.StatusGatewayTimeout, SettlementUnknownDetail(sold.Reference)))
	}
}

// Sell sells one call of op with the payment (x402.Gate.Sell: verify,
// serve, settle only a success) and counts how it ended, for REST and MCP
// alike.
func (s *Service) Sell(ctx context.Context, op Operation, payload *x402.PaymentPayload, deadline time.Time, sale x402.Sale, serve func() bool) x402.Sold {
	sold := s.opts.Payments.Sell(ctx, payload, op.Price(), deadline, sale, serve)
	var rej *x402.Rejection
	outcome := "settled"
	switch {
	case errors.As(sold.Verify, &rej):
		outcome = "rejected"
	case sold.Verify != nil:
		outcome = "facilitator_unavailable"
	case !sold.Served:
		outcome = "not_served"
	case sold.Outcome == x402.Refused:
		outcome = "settlement_refused"
	case sold.Outcome != x402.Settled:
		outcome = "settlement_unknown"
	}
	s.obs.Counter(`catalogue_payments_total{operation="` + payable[op].op.id + `",outcome="` + outcome + `"}`).Inc()
	return sold
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
	detail := payable[op].route + " costs " + x402.USD(op.Price()) + " USD per call without an API key, paid with x402 version 2 (scheme exact, USDC on " +
		s.opts.Payments.Network() + "). The PAYMENT-REQUIRED header carries the offer as base64 JSON: sign it and repeat the request with the PAYMENT-SIGNATURE header. " +
		"Only a successful response is charged. With an API key (X-Api-Key or Authorization: Bearer) no payment is asked; see " + s.opts.UpgradeURL + "."
	if refused != "" {
		detail = refused + " " + detail
	}
	s.paymentProblem(ctx, detail)
}

// paymentProblem writes a 402 ProblemDetail as application/json, as the
// contract says the 402 body is.
func (s *Service) paymentProblem(ctx *fasthttp.RequestCtx, detail string) {
	s.problem(ctx, errorf(fasthttp.StatusPaymentRequired, detail))
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
