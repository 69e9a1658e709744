package mcp

import (
	"context"
	"encoding/json"
	"errors"

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
)

// paid serves a call without a key that carries a payment: verified for
// the operation's price, answered from the full catalogue, settled only
// when the answer is a success.
func (t *tools) paid(ctx context.Context, gate *x402.Gate, tool string, call httpd.Call, raw any) (*sdk.CallToolResult, any, error) {
	op := call.Op
	b, err := json.Marshal(raw)
	if err != nil {
		return t.paymentRequired(tool, op, "invalid_payload", "The payment in _meta[\"x402/payment\"] cannot be read."), nil, nil
	}
	payload, err := x402.DecodePaymentJSON(b)
	if err != nil {
		return t.paymentRequired(tool, op, "invalid_payload", "The payment in _meta[\"x402/payment\"] cannot be read: "+err.Error()+"."), nil, nil
	}
	pay, err := gate.Verify(ctx, payload, op.Price())
	if err != nil {
		var rej *x402.Rejection
		if errors.As(err, &rej) {
			return t.paymentRequired(tool, op, rej.Reason, "The payment was refused ("+rej.Reason+"): "+rej.Detail+"."), nil, nil
		}
		return failure("The payment could not be verified because the payment facilitator is unavailable; nothing was charged. " +
			"This is a failure on our side: retry in a little while with a new payment."), nil, nil
	}
	a := t.svc.Invoke(call, httpd.Caller{Paid: true})
	if !a.OK() {
		return refusal(&a, "Nothing was charged: only a successful call is."), nil, nil
	}
	// The answer exists now: settling must not be abandoned half-way
	// because the client went away.
	settled := gate.Settle(context.WithoutCancel(ctx), pay)
	if !settled.Success {
		return t.settlementFailed(tool, op, settled), nil, nil
	}
	res := answer(a.Body)
	res.Meta = sdk.Meta{metaPaymentResponse: settled}
	return res, nil, nil
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
