package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/mcp"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/x402test"
)

// paymentRequired checks the x402 payment-required tool result of a tool at
// a price and returns the offer.
func paymentRequired(t testing.TB, res *sdk.CallToolResult, tool, amount string) x402.PaymentRequired {
	t.Helper()
	if !res.IsError {
		t.Fatalf("%s: not an error: %s", tool, text(res))
	}
	var offer x402.PaymentRequired
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &offer); err != nil || offer.X402Version != 2 || len(offer.Accepts) != 1 {
		t.Fatalf("%s: structuredContent is not a PaymentRequired: %s", tool, b)
	}
	if offer.Resource.URL != "mcp://tool/"+tool || offer.Accepts[0].Amount != amount || offer.Accepts[0].Scheme != "exact" || offer.Accepts[0].PayTo != payTo {
		t.Errorf("%s: offer %s", tool, b)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content[0] is not text", tool)
	}
	var wrapped struct {
		Err struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"x402/error"`
	}
	if err := json.Unmarshal([]byte(tc.Text), &wrapped); err != nil || wrapped.Err.Code != 402 || !strings.Contains(wrapped.Err.Message, "x402/payment") {
		t.Fatalf("%s: content[0] is not an x402/error: %s", tool, tc.Text)
	}
	sameJSON(t, tool+" offer in text and structuredContent", wrapped.Err.Data, b)
	return offer
}

// TestPaid: a keyless call carrying a payment reaches the full catalogue,
// is settled only when it succeeds, and the payment cannot be replayed.
func TestPaid(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("")
	payer, err := x402test.NewPayer("")
	if err != nil {
		t.Fatal(err)
	}
	out := e.outside()
	offer := paymentRequired(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(out)}, nil), mcp.ToolSpecs, "50000")
	pay := func(offer x402.PaymentRequired) sdk.Meta {
		p, err := payer.Pay(offer, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return sdk.Meta{"x402/payment": p}
	}
	meta := pay(offer)
	res := call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(out)}, meta)
	if status, _ := e.restGet("/v1/variants/"+e.token(out)+"/specs", ""); status != 402 {
		t.Fatalf("REST without key or payment: %d", status)
	}
	full, refused := e.svc.Call(httpd.OpSpecs, map[string]json.RawMessage{"id": json.RawMessage(strconv.Quote(e.token(out)))}, httpd.Caller{Paid: true})
	if refused != nil {
		t.Fatal(refused)
	}
	sameJSON(t, "paid specs", ok(t, res), full)
	settled := settlement(t, res)
	if !settled.Success || !strings.HasPrefix(settled.Transaction, "local:") || !strings.EqualFold(settled.Payer, payer.Address.String()) || settled.Network != x402.NetworkBase {
		t.Errorf("settlement %+v", settled)
	}
	receipts(t, e, 1)

	// The same payment again is refused, and a new offer made.
	again := paymentRequired(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(out)}, meta), mcp.ToolSpecs, "50000")
	if again.Error != "invalid_exact_evm_nonce_already_used" {
		t.Errorf("replay: error %q", again.Error)
	}
	// A call that fails is not settled.
	failed(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": "v_00000000"}, pay(offer)), "Not Found (404)", "Nothing was charged")
	receipts(t, e, 1)
	// A payment for another price is refused.
	res = call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "electric"}, pay(offer))
	if got := paymentRequired(t, res, mcp.ToolFilter, "5000"); got.Error != "invalid_payment_requirements" || !strings.Contains(text(res), "costs 5000") {
		t.Errorf("wrong price: %q %s", got.Error, text(res))
	}
	// A payment that cannot be read is refused with a reason.
	if got := paymentRequired(t, call(t, cs, mcp.ToolSpecs, map[string]any{"id": e.token(out)}, sdk.Meta{"x402/payment": "not an object"}), mcp.ToolSpecs, "50000"); got.Error != "invalid_payload" {
		t.Errorf("unreadable payment: %q", got.Error)
	}
	// Filter and compare, paid.
	filterOffer := paymentRequired(t, call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "electric", "limit": 3}, nil), mcp.ToolFilter, "5000")
	res = call(t, cs, mcp.ToolFilter, map[string]any{"fuel": "electric", "limit": 3}, pay(filterOffer))
	if !settlement(t, res).Success {
		t.Error("filter not settled")
	}
	ids := []string{e.token(e.cat.Demo[0]), e.token(out)}
	compareOffer := paymentRequired(t, call(t, cs, mcp.ToolCompare, map[string]any{"ids": ids}, nil), mcp.ToolCompare, "100000")
	if !settlement(t, call(t, cs, mcp.ToolCompare, map[string]any{"ids": ids}, pay(compareOffer))).Success {
		t.Error("compare not settled")
	}
	receipts(t, e, 3)
}

func settlement(t testing.TB, res *sdk.CallToolResult) x402.SettlementResponse {
	t.Helper()
	ok(t, res)
	var s x402.SettlementResponse
	b, _ := json.Marshal(res.Meta["x402/payment-response"])
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("no settlement in _meta: %v", res.Meta)
	}
	return s
}

func receipts(t testing.TB, e *env, want int) {
	t.Helper()
	r, err := e.payments.Receipts()
	if err != nil {
		t.Fatal(err)
	}
	if len(r) != want {
		t.Errorf("%d receipts, want %d", len(r), want)
	}
}

// failingFacilitator verifies every payment, and fails verification or
// settlement as told.
type failingFacilitator struct {
	verifyErr bool
}

func (f *failingFacilitator) Verify(context.Context, *x402.PaymentPayload, x402.Requirements) (x402.VerifyResponse, error) {
	if f.verifyErr {
		return x402.VerifyResponse{}, fmt.Errorf("%w: connection refused", x402.ErrFacilitator)
	}
	return x402.VerifyResponse{IsValid: true}, nil
}

func (f *failingFacilitator) Settle(context.Context, *x402.PaymentPayload, x402.Requirements) (x402.SettlementResponse, error) {
	return x402.SettlementResponse{Success: false, ErrorReason: "insufficient_funds", Network: x402.NetworkBase}, nil
}

func (f *failingFacilitator) Supported(context.Context) (x402.SupportedResponse, error) {
	return x402.SupportedResponse{}, nil
}

// TestPaymentFailures: a facilitator that is down charges nothing and
// says so; a settlement that fails withholds the answer.
func TestPaymentFailures(t *testing.T) {
	payer, _ := x402test.NewPayer("")
	f := &failingFacilitator{verifyErr: true}
	e := newEnv(t, func(c *config) { c.facilitator = f })
	cs := e.connect("")
	id := map[string]any{"id": e.token(e.outside())}
	offer := paymentRequired(t, call(t, cs, mcp.ToolSpecs, id, nil), mcp.ToolSpecs, "50000")
	p, _ := payer.Pay(offer, time.Now())
	res := call(t, cs, mcp.ToolSpecs, id, sdk.Meta{"x402/payment": p})
	failed(t, res, "facilitator is unavailable", "nothing was charged")
	if res.StructuredContent != nil {
		t.Errorf("an outage is not an offer: %v", res.StructuredContent)
	}

	f.verifyErr = false
	p, _ = payer.Pay(offer, time.Now())
	res = call(t, cs, mcp.ToolSpecs, id, sdk.Meta{"x402/payment": p})
	if !res.IsError || res.Meta["x402/payment-response"] != nil {
		t.Fatalf("failed settlement: %v %s", res.IsError, text(res))
	}
	var got mcp.PaymentOutput
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil || got.PaymentResponse == nil {
		t.Fatalf("no x402/payment-response: %s", b)
	}
	if r := got.PaymentResponse; r.Success || r.ErrorReason != "insufficient_funds" || r.Transaction != "" || r.Network != x402.NetworkBase {
		t.Errorf("settlement %+v", r)
	}
	if strings.Contains(string(b), `"data"`) || strings.Contains(string(b), "variant_id") {
		t.Errorf("a failed settlement carries the answer: %s", b)
	}
	if !strings.Contains(text(res), `"x402/error"`) || !strings.Contains(text(res), "insufficient_funds") {
		t.Errorf("text %s", text(res))
	}
}

// TestSettlementTimeout: a settlement the facilitator does not confirm in
// time is a tool error carrying the payment's reference, within the write
// timeout, and the payment is recorded as unsettled-unknown, as on REST.
func TestSettlementTimeout(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC) // the payments' clock
	gate, store := x402test.HangingGate(t, payTo, http.StatusBadGateway, t0)
	const writeTimeout = 3 * time.Second
	e := newEnv(t, func(c *config) {
		c.noPayments = true // the gate is this test's own
		c.rest.Payments = gate
		c.rest.WriteTimeout = writeTimeout
	})
	cs := e.connect("")
	id := map[string]any{"id": e.token(e.outside())}
	offer := paymentRequired(t, call(t, cs, mcp.ToolSpecs, id, nil), mcp.ToolSpecs, "50000")
	payer, _ := x402test.NewPayer("")
	p, err := payer.Pay(offer, t0)
	if err != nil {
		t.Fatal(err)
	}
	// The facilitator never answers /settle while the test runs, so an
	// answer at all shows the settlement was bounded by its deadline.
	res := call(t, cs, mcp.ToolSpecs, id, sdk.Meta{"x402/payment": p})
	ref := x402.Reference(payer.Address.String(), p.Payload.Authorization.Nonce)
	failed(t, res, "Gateway Timeout (504)", "recorded under the payment reference "+ref, "may have been taken")
	if strings.Contains(text(res), "nothing was charged") || res.StructuredContent != nil || res.Meta["x402/payment-response"] != nil {
		t.Errorf("an unknown settlement reads as a refusal, or carries the answer: %s %v %v", text(res), res.StructuredContent, res.Meta)
	}
	if got, _ := res.Meta["vspec/payment-reference"].(string); got != ref {
		t.Errorf("_meta reference %q, want %s", got, ref)
	}
	recs, err := store.Records(false)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %+v %v", recs, err)
	}
	if g := recs[0]; g.Reference != ref || g.State != x402.StateUnknown || g.Payer != payer.Address.String() || g.Amount != "50000" ||
		g.Operation != "MCP "+mcp.ToolSpecs || g.Resource != "mcp://tool/"+mcp.ToolSpecs || !g.At.Equal(t0) || g.Error == "" {
		t.Errorf("record %+v", g)
	}
	if got, err := store.Resolve(ref, x402.StateSettled, "0xfeed", "operator"); err != nil || got.State != x402.StateSettled || got.Transaction != "0xfeed" {
		t.Fatalf("resolve: %+v %v", got, err)
	}
	if recs, _ := store.Records(false); len(recs) != 0 {
		t.Errorf("resolved, still unknown: %+v", recs)
	}
}
