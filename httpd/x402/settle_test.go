package x402_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/x402"
)

// settleServer is a facilitator on loopback that verifies every payment
// and answers /settle with settle, which may block until the test ends.
func settleServer(t *testing.T, settle http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/verify":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"isValid":true}`))
		case "/settle":
			settle(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// hangingServer is a facilitator whose /settle blocks until the test ends,
// then answers 502: it never answers in time, and never clearly.
func hangingServer(t *testing.T) *httptest.Server {
	release := make(chan struct{})
	srv := settleServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusBadGateway)
	})
	t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
	return srv
}

// verified returns a fixture settling through f within timeout, and a
// payment it verified.
func verified(t *testing.T, f x402.Facilitator, timeout time.Duration) (*fixture, *x402.Payment) {
	t.Helper()
	fx := newFixture(t, f)
	g, err := x402.New(x402.Config{PayTo: payTo, Facilitator: f, Nonces: fx.store, Now: func() time.Time { return fx.now }, SettleTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	fx.gate = g
	pay, err := g.Verify(context.Background(), fx.pay(t), price)
	if err != nil {
		t.Fatal(err)
	}
	return fx, pay
}

var sale = x402.Sale{Resource: "http://127.0.0.1/v1/variants/x/specs", Operation: "GET /v1/variants/{id}/specs"}

// A facilitator that does not answer by the deadline: the outcome is
// unknown, the payment recorded under its reference with what it was for,
// and the answer comes by the deadline, not the facilitator's.
func TestSettleTimeoutIsUnknown(t *testing.T) {
	srv := hangingServer(t)
	fx, pay := verified(t, &x402.HTTPFacilitator{URL: srv.URL}, time.Minute)
	// The facilitator never answers /settle while the test runs, so an
	// answer at all shows the settlement was bounded by its deadline.
	s := fx.gate.Settle(context.Background(), pay, time.Now().Add(1500*time.Millisecond), sale)
	a := pay.Payload.Payload.Authorization
	ref := x402.Reference(pay.Payer, a.Nonce)
	if s.Outcome != x402.Unknown || s.Reference != ref || !strings.HasPrefix(ref, "pay_") || len(ref) != 20 || !errors.Is(s.Err, x402.ErrFacilitator) {
		t.Fatalf("%+v (reference %s)", s, ref)
	}
	if s.Response.Success {
		t.Errorf("an unknown outcome reports success: %+v", s.Response)
	}
	recs, err := fx.store.Records(false)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %+v %v", recs, err)
	}
	r := recs[0]
	if r.Reference != ref || r.State != x402.StateUnknown || r.Payer != pay.Payer || r.Nonce != a.Nonce || r.Amount != "50000" ||
		r.Resource != sale.Resource || r.Operation != sale.Operation || !r.At.Equal(fx.now) || r.ValidBefore != a.ValidBefore ||
		r.PayTo != payTo || r.Network != x402.NetworkBase || !strings.Contains(r.Error, "did not answer within") || r.ResolvedAt != nil {
		t.Fatalf("record %+v", r)
	}
	if got, err := fx.store.Record(ref); err != nil || got.Reference != ref {
		t.Fatalf("Record(%s): %+v %v", ref, got, err)
	}

	// Resolving: once, and only what was recorded.
	if _, err := fx.store.Resolve("pay_0000000000000000", x402.StateSettled, "", "operator"); !errors.Is(err, x402.ErrNoRecord) {
		t.Errorf("resolving an unknown reference: %v", err)
	}
	if _, err := fx.store.Resolve(ref, "maybe", "", "operator"); err == nil {
		t.Error("resolved to an unknown state")
	}
	if _, err := fx.store.Resolve(ref, x402.StateUnsettled, "0xabc", "operator"); err == nil {
		t.Error("resolved unsettled with a transaction")
	}
	done, err := fx.store.Resolve(ref, x402.StateSettled, "0xfeed", "operator")
	if err != nil || done.State != x402.StateSettled || done.Transaction != "0xfeed" || done.ResolvedAt == nil || done.ResolvedBy != "operator" {
		t.Fatalf("resolve: %+v %v", done, err)
	}
	if _, err := fx.store.Resolve(ref, x402.StateUnsettled, "", "operator"); !errors.Is(err, x402.ErrResolved) {
		t.Errorf("resolving twice: %v", err)
	}
	if recs, _ := fx.store.Records(false); len(recs) != 0 {
		t.Errorf("a resolved payment is still listed as unknown: %+v", recs)
	}
	if recs, _ := fx.store.Records(true); len(recs) != 1 || recs[0].State != x402.StateSettled {
		t.Errorf("all records: %+v", recs)
	}
}

// Every unclear answer is an unknown outcome; a clear "not settled", or a
// request that never left, is a refusal that charged nothing.
func TestSettleOutcomes(t *testing.T) {
	answer := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}
	}
	reset := func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.(interface{ SetLinger(int) error }).SetLinger(0)
			c.Close()
		}
	}
	cases := []struct {
		name    string
		settle  http.HandlerFunc
		outcome x402.Outcome
		reason  string
	}{
		{"settled", answer(200, `{"success":true,"transaction":"0x1234","network":"eip155:8453"}`), x402.Settled, ""},
		{"refused", answer(400, `{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"eip155:8453"}`), x402.Refused, "insufficient_funds"},
		{"refused without reason", answer(200, `{"success":false,"transaction":"","network":"eip155:8453"}`), x402.Refused, "unexpected_settle_error"},
		{"5xx", answer(500, `{"error":"chain RPC down"}`), x402.Unknown, ""},
		{"5xx with a verdict", answer(503, `{"success":false,"errorReason":"x","transaction":"","network":"eip155:8453"}`), x402.Unknown, ""},
		{"not JSON", answer(200, `<html>gateway</html>`), x402.Unknown, ""},
		{"success without transaction", answer(200, `{"success":true,"transaction":"","network":"eip155:8453"}`), x402.Unknown, ""},
		{"connection reset", reset, x402.Unknown, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := settleServer(t, c.settle)
			fx, pay := verified(t, &x402.HTTPFacilitator{URL: srv.URL}, 5*time.Second)
			s := fx.gate.Settle(context.Background(), pay, time.Time{}, sale)
			if s.Outcome != c.outcome {
				t.Fatalf("outcome %v, want %v: %+v", s.Outcome, c.outcome, s)
			}
			recs, _ := fx.store.Records(true)
			switch c.outcome {
			case x402.Settled:
				if !s.Response.Success || s.Response.Transaction != "0x1234" || s.Response.Payer != pay.Payer || len(recs) != 0 {
					t.Fatalf("%+v, records %+v", s, recs)
				}
			case x402.Refused:
				if s.Response.Success || s.Response.ErrorReason != c.reason || s.Reference != "" || len(recs) != 0 {
					t.Fatalf("%+v, records %+v", s, recs)
				}
			case x402.Unknown:
				if s.Reference == "" || s.Err == nil || len(recs) != 1 || recs[0].Reference != s.Reference || recs[0].State != x402.StateUnknown || recs[0].Error == "" {
					t.Fatalf("%+v, records %+v", s, recs)
				}
			}
		})
	}
	// A facilitator that cannot be reached was never asked: nothing was
	// settled, and nothing needs reconciling.
	srv := settleServer(t, answer(200, `{}`))
	fx, pay := verified(t, &x402.HTTPFacilitator{URL: srv.URL}, 5*time.Second)
	srv.Close()
	s := fx.gate.Settle(context.Background(), pay, time.Time{}, sale)
	if recs, _ := fx.store.Records(true); s.Outcome != x402.Refused || !errors.Is(s.Err, x402.ErrNotSent) || s.Response.ErrorReason != "unexpected_settle_error" || len(recs) != 0 {
		t.Fatalf("unreachable: %+v, records %+v", s, recs)
	}
}

// A clear answer that arrives after the deadline resolves the record.
func TestSettleLateAnswerResolves(t *testing.T) {
	var calls atomic.Int32
	srv := settleServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		time.Sleep(700 * time.Millisecond)
		json.NewEncoder(w).Encode(x402.SettlementResponse{Success: true, Transaction: "0xlate", Network: x402.NetworkBase})
	})
	fx, pay := verified(t, &x402.HTTPFacilitator{URL: srv.URL}, 100*time.Millisecond)
	s := fx.gate.Settle(context.Background(), pay, time.Time{}, sale)
	if s.Outcome != x402.Unknown {
		t.Fatalf("%+v", s)
	}
	var r x402.PaymentRecord
	for i := 0; i < 200; i++ { // at most 10 s
		r, _ = fx.store.Record(s.Reference)
		if r.State != x402.StateUnknown {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r.State != x402.StateSettled || r.Transaction != "0xlate" || r.ResolvedBy != "facilitator" || calls.Load() != 1 {
		t.Fatalf("record after the late answer %+v (%d calls)", r, calls.Load())
	}
}

// panickingFacilitator verifies through a real facilitator and panics in
// Settle: a bug in a facilitator client.
type panickingFacilitator struct{ x402.Facilitator }

func (panickingFacilitator) Settle(context.Context, *x402.PaymentPayload, x402.Requirements) (x402.SettlementResponse, error) {
	var m map[string]int
	//lint:ignore SA5000 the nil-map write is the panic being reproduced
	m["settled"]++ // a nil-map write, as in issue 35's crash
	return x402.SettlementResponse{}, nil
}

// A panic while settling runs in a goroutine of Settle's own: it once
// would have ended the process. It is an unknown outcome, recorded.
func TestSettlePanicIsUnknown(t *testing.T) {
	srv := settleServer(t, func(w http.ResponseWriter, r *http.Request) {})
	fx, pay := verified(t, panickingFacilitator{&x402.HTTPFacilitator{URL: srv.URL}}, 5*time.Second)
	s := fx.gate.Settle(context.Background(), pay, time.Time{}, sale)
	if s.Outcome != x402.Unknown || !errors.Is(s.Err, x402.ErrFacilitator) || !strings.Contains(s.Err.Error(), "nil map") {
		t.Fatalf("%+v", s)
	}
	if recs, err := fx.store.Records(false); err != nil || len(recs) != 1 {
		t.Errorf("records %+v %v", recs, err)
	}
}
