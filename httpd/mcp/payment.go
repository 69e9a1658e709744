package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/x402"
)

// x402 over MCP (x402 transports-v2/mcp.md): the offer is a tool error
// whose structuredContent is the PaymentRequired and whose first text is
// {"x402/error":{"code":402,"message":…,"data":PaymentRequired}}; the
// payment comes back in params._meta["x402/payment"] as a PaymentPayload
// object; the settlement goes out in the result's
// _meta["x402/payment-response"].
const (
	metaPayment         = "x402/payment"
	metaPaymentResponse = "x402/payment-response"
	// metaPaymentReference is this server's own: the reference of a
	// payment whose settlement has no clear outcome (the REST 504's
	// Payment-Reference header).
	metaPaymentReference = "vspec/payment-reference"
)

// paid serves a call without a key that carries a payment: the sale of
// x402.Gate.Sell, answered from the full catalogue and settled only when
// the answer is a success.
func (t *tools) paid(ctx context.Context, gate *x402.Gate, tool string, op httpd.Operation, in args, raw any) (*sdk.CallToolResult, any, error) {
	start := time.Now() // the write timeout runs from about now
	b, err := json.Marshal(raw)
	if err != nil {
		return t.paymentRequired(tool, op, "invalid_payload", "The payment in _meta[\"x402/payment\"] cannot be read."), nil, nil
	}
	payload, err := x402.DecodePaymentJSON(b)
	if err != nil {
		return t.paymentRequired(tool, op, "invalid_payload", "The payment in _meta[\"x402/payment\"] cannot be read: "+err.Error()+"."), nil, nil
	}
	var body []byte
	var refused *httpd.Error
	// Settled as on REST: within the write timeout, and on to the end even
	// when the client went away.
	sold := t.svc.Sell(ctx, op, payload, t.svc.SettleDeadline(start), x402.Sale{Resource: "mcp://tool/" + tool, Operation: "MCP " + tool}, func() bool {
		body, refused = t.svc.Call(op, in, httpd.Caller{Paid: true})
		return refused == nil
	})
	var rej *x402.Rejection
	switch {
	case errors.As(sold.Verify, &rej):
		return t.paymentRequired(tool, op, rej.Reason, "The payment was refused ("+rej.Reason+"): "+rej.Detail+"."), nil, nil
	case sold.Verify != nil:
		return failure("The payment could not be verified because the payment facilitator is unavailable; nothing was charged. " +
			"This is a failure on our side: retry in a little while with a new payment."), nil, nil
	case !sold.Served:
		return refusal(refused, "Nothing was charged: only a successful call is."), nil, nil
	case sold.Outcome == x402.Refused:
		return t.settlementFailed(tool, op, sold.Response), nil, nil
	case sold.Outcome != x402.Settled: // unknown: it may have been taken
		res := failure(settlementUnknown(sold.Reference))
		res.Meta = sdk.Meta{metaPaymentReference: sold.Reference}
		return res, nil, nil
	}
	res := answer(body)
	res.Meta = sdk.Meta{metaPaymentResponse: sold.Response}
	return res, nil, nil
}

// settlementUnknown says to a paying caller that its payment's settlement
// has no clear outcome: the REST 504's detail, in the words of a tool.
func settlementUnknown(ref string) string {
	return "Gateway Timeout (504): The payment facilitator did not confirm the settlement of your payment in time, so the answer is withheld. " +
		"The payment may have been taken: it is recorded under the payment reference " + ref + " (also in the result's _meta[\"" + metaPaymentReference +
		"\"]) and will be reconciled with the facilitator; quote the reference when you ask about it. " +
		"A new call needs a new payment."
}

// paymentRequired is the offer for a call: reason, when set, is why an
// earlier payment was refused, and refused says it in words.
func (t *tools) paymentRequired(tool string, op httpd.Operation, reason, refused string) *sdk.CallToolResult {
	gate := t.svc.Payments()
	offer := gate.Required(x402.Resource{URL: "mcp://tool/" + tool, Description: op.Description(), MimeType: "application/json"}, op.Price(), reason)
	msg := tool + " costs " + x402.USD(op.Price()) + " USD per call beyond the free demo set when called without an API key, paid with x402 version 2 (scheme exact, USDC on " +
		gate.Network() + "). Sign the offer (accepts[0]) and repeat the same call with the PaymentPayload in params._meta[\"x402/payment\"]. " +
		"Only a successful call is charged. With an API key (Authorization: Bearer <key>) no payment is asked: " + t.svc.UpgradeURL() + "."
	if refused != "" {
		msg = refused + " " + msg
	}
	return x402Error(msg, offer)
}

// settlementFailed answers a call whose payment could not be settled: the
// answer is withheld, and the settlement says why.
func (t *tools) settlementFailed(tool string, op httpd.Operation, settled x402.SettlementResponse) *sdk.CallToolResult {
	gate := t.svc.Payments()
	failed := struct {
		x402.PaymentRequired
		Response x402.SettlementResponse `json:"x402/payment-response"`
	}{gate.Required(x402.Resource{URL: "mcp://tool/" + tool, Description: op.Description(), MimeType: "application/json"}, op.Price(), settled.ErrorReason), settled}
	return x402Error("The payment could not be settled ("+settled.ErrorReason+"), so the answer is withheld and nothing was charged. Retry with a new payment.", failed)
}

// x402Error is the tool error of the x402 MCP transport carrying data.
func x402Error(msg string, data any) *sdk.CallToolResult {
	wrapped, _ := json.Marshal(map[string]any{"x402/error": map[string]any{"code": 402, "message": msg, "data": data}})
	return &sdk.CallToolResult{IsError: true, StructuredContent: data, Content: []sdk.Content{&sdk.TextContent{Text: string(wrapped)}}}
}
