package httpd_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/observe"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/x402test"
)

// offerOf decodes the PAYMENT-REQUIRED of a 402.
func offerOf(t *testing.T, r resp) x402.PaymentRequired {
	t.Helper()
	if r.status != 402 {
		t.Fatalf("status %d, want 402: %s", r.status, r.body)
	}
	raw, err := base64.StdEncoding.DecodeString(r.header["Payment-Required"])
	if err != nil {
		t.Fatalf("PAYMENT-REQUIRED %q: %v", r.header["Payment-Required"], err)
	}
	var o x402.PaymentRequired
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if ct := r.header["Content-Type"]; ct != "application/json; charset=utf-8" {
		t.Errorf("402 content type %q", ct)
	}
	if p := r.json(t); p["status"] != float64(402) || p["title"] != "Payment Required" || str(p, "detail") == "" {
		t.Errorf("402 body %s", r.body)
	}
	return o
}

func settlementOf(t *testing.T, r resp) x402.SettlementResponse {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(r.header["Payment-Response"])
	if err != nil || len(raw) == 0 {
		t.Fatalf("PAYMENT-RESPONSE %q: %v", r.header["Payment-Response"], err)
	}
	var s x402.SettlementResponse
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// paidGet gets path without a key: the 402, then the same request paid.
func (e *env) paidGet(t *testing.T, payer *x402test.Payer, path string, headers ...string) (resp, *x402.PaymentPayload) {
	t.Helper()
	o := offerOf(t, e.get(path, ""))
	p, err := payer.Pay(o, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return e.get(path, "", append([]string{"PAYMENT-SIGNATURE", x402test.Header(p)}, headers...)...), p
}

func TestPayPerRequest(t *testing.T) {
	e := newEnv(t)
	payer, _ := x402test.NewPayer("")
	c := e.cat
	vt := e.codec.Token(publicid.Variant, c.VarID[0])
	v2 := e.codec.Token(publicid.Variant, c.VarID[1])
	ops := []struct {
		path  string
		price string
	}{
		{"/v1/variants/" + vt + "/specs?locale=de", "50000"},
		{"/v1/search?q=golf&limit=3", "5000"},
		{"/v1/variants?fuel=diesel&limit=2", "5000"},
		{"/v1/compare?ids=" + vt + "," + v2, "100000"},
	}
	for _, op := range ops {
		t.Run(op.path, func(t *testing.T) {
			o := offerOf(t, e.get(op.path, ""))
			a := o.Accepts[0]
			if o.X402Version != 2 || o.Resource.URL != "https://api.example.org"+op.path || o.Resource.MimeType != "application/json" ||
				a.Amount != op.price || a.PayTo != testPayTo || a.Network != "eip155:8453" || a.Scheme != "exact" || a.MaxTimeoutSeconds != 60 || a.Extra.Name != "USD Coin" {
				t.Fatalf("offer %+v %+v", o, a)
			}
			before, _ := e.payStore.Receipts()
			r, p := e.paidGet(t, payer, op.path)
			if r.status != 200 {
				t.Fatalf("paid call: %d %s", r.status, r.body)
			}
			s := settlementOf(t, r)
			if !s.Success || !strings.HasPrefix(s.Transaction, "local:0x") || s.Network != "eip155:8453" || s.Payer != payer.Address.String() {
				t.Fatalf("settlement %+v", s)
			}
			if r.header["Cache-Control"] != "no-store" || r.header["Etag"] != "" {
				t.Errorf("a paid response is cacheable: Cache-Control %q, ETag %q", r.header["Cache-Control"], r.header["Etag"])
			}
			// The paying caller gets what a key holder with public ids gets.
			if keyed := e.get(op.path, e.free); string(keyed.body) != string(r.body) {
				t.Errorf("paid body differs from the keyed body:\n%s\n%s", r.body, keyed.body)
			}
			after, _ := e.payStore.Receipts()
			if len(after) != len(before)+1 {
				t.Fatalf("%d receipts, want %d", len(after), len(before)+1)
			}
			// The same payment again is a replay: a fresh offer saying why.
			again := e.get(op.path, "", "PAYMENT-SIGNATURE", x402test.Header(p))
			if o := offerOf(t, again); o.Error != "invalid_exact_evm_nonce_already_used" {
				t.Fatalf("replay: %+v", o)
			}
		})
	}
}

func TestPaymentNotChargedUnlessServed(t *testing.T) {
	ob := observe.New(observe.Options{})
	e := newEnv(t, func(o *httpd.Options) { o.Observer = ob })
	payer, _ := x402test.NewPayer("")
	missing := e.codec.Token(publicid.Variant, 1<<23+17)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	for path, status := range map[string]int{
		"/v1/variants/" + missing + "/specs": 404,
		"/v1/compare?ids=" + vt:              400,
		"/v1/compare?ids=" + vt + ",v_zz":    400,
		"/v1/search?q=golf&limit=x":          400,
	} {
		r, _ := e.paidGet(t, payer, path)
		if r.status != status || r.header["Payment-Response"] != "" {
			t.Errorf("%s: %d, PAYMENT-RESPONSE %q: %s", path, r.status, r.header["Payment-Response"], r.body)
		}
	}
	if rs, _ := e.payStore.Receipts(); len(rs) != 0 {
		t.Fatalf("%d receipts for calls that were not served", len(rs))
	}
	// A paid call always gets the full representation: If-None-Match does
	// not turn it into a free 304.
	path := "/v1/variants/" + vt + "/specs"
	etag := e.get(path, e.free).header["Etag"]
	r, _ := e.paidGet(t, payer, path, "If-None-Match", etag)
	if r.status != 200 || !settlementOf(t, r).Success {
		t.Fatalf("paid conditional call: %d", r.status)
	}
	// The metrics count each sale by how it ended.
	var m bytes.Buffer
	ob.WriteMetrics(&m)
	for _, want := range []string{`catalogue_payments_total{operation="getVariantSpecs",outcome="not_served"} 1`,
		`catalogue_payments_total{operation="compare",outcome="not_served"} 2`, `catalogue_payments_total{operation="getVariantSpecs",outcome="settled"} 1`} {
		if !strings.Contains(m.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestKeyHoldersNeverPay(t *testing.T) {
	e := newEnv(t)
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	path := "/v1/variants/" + vt + "/specs"
	payer, _ := x402test.NewPayer("")
	o := offerOf(t, e.get(path, ""))
	p, _ := payer.Pay(o, time.Now())
	sig := x402test.Header(p)
	r := e.get(path, e.free, "PAYMENT-SIGNATURE", sig)
	if r.status != 200 || r.header["Payment-Response"] != "" {
		t.Fatalf("a key with a payment: %d %q", r.status, r.header["Payment-Response"])
	}
	e.problem(e.get(path, "vsc_apify_"+strings.Repeat("0", 48), "PAYMENT-SIGNATURE", sig), 401, "not known")
	e.problem(e.get(path, e.revoked, "PAYMENT-SIGNATURE", sig), 403, "revoked")
	e.problem(e.get(path, e.demo, "PAYMENT-SIGNATURE", sig), 403, "outside the demo set")
	if rs, _ := e.payStore.Receipts(); len(rs) != 0 {
		t.Fatal("a key holder's payment was settled")
	}
	// HEAD sells nothing: the offer, and the payment stays unused.
	if r := e.do("HEAD", path, "", "PAYMENT-SIGNATURE", sig); r.status != 402 || r.header["Payment-Required"] == "" {
		t.Fatalf("HEAD with a payment: %d", r.status)
	}
	// The payment was never used, so it still pays a keyless call.
	if r := e.get(path, "", "PAYMENT-SIGNATURE", sig); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	// Routes that are not payable stay 401 without a key.
	e.problem(e.get("/v1/variants/"+vt, "", "PAYMENT-SIGNATURE", sig), 401, "API key is required")
}

func TestPaymentRefusals(t *testing.T) {
	e := newEnv(t)
	payer, _ := x402test.NewPayer("")
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	specs := "/v1/variants/" + vt + "/specs"
	for name, header := range map[string]string{
		"not base64": "%%%", "URL-safe": "eyJ4NDAyVmVyc2lvbiI6Mn0-_", "not JSON": base64.StdEncoding.EncodeToString([]byte("hello")),
		"version 1": base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1}`)),
	} {
		t.Log(name)
		e.problem(e.get(specs, "", "PAYMENT-SIGNATURE", header), 400, "PAYMENT-SIGNATURE header cannot be read")
	}
	// A signed payment followed by bytes is not that payment: 400 naming
	// the trailing data, and the payment is not spent.
	good, _ := payer.Pay(offerOf(t, e.get(specs, "")), time.Now())
	raw, _ := json.Marshal(good)
	for _, tail := range []string{"}", "]]]", " " + string(raw)} {
		header := base64.StdEncoding.EncodeToString(append(append([]byte(nil), raw...), tail...))
		e.problem(e.get(specs, "", "PAYMENT-SIGNATURE", header), 400, "the payload has data after its JSON object")
	}
	if r := e.get(specs, "", "PAYMENT-SIGNATURE", x402test.Header(good)); r.status != 200 {
		t.Fatalf("the payment alone, after the refused copies: %d %s", r.status, r.body)
	}
	// The search offer (0.005) does not pay for specs (0.05).
	o := offerOf(t, e.get("/v1/search?q=golf", ""))
	p, _ := payer.Pay(o, time.Now())
	r := e.get(specs, "", "PAYMENT-SIGNATURE", x402test.Header(p))
	if got := offerOf(t, r); got.Error != "invalid_payment_requirements" || got.Accepts[0].Amount != "50000" {
		t.Fatalf("%+v", got)
	}
	if !strings.Contains(str(r.json(t), "detail"), "this operation costs 50000") {
		t.Errorf("detail: %s", r.body)
	}
	// An expired authorization.
	o = offerOf(t, e.get(specs, ""))
	p, _ = payer.Pay(o, time.Now().Add(-2*time.Minute))
	if got := offerOf(t, e.get(specs, "", "PAYMENT-SIGNATURE", x402test.Header(p))); got.Error != "invalid_exact_evm_payload_authorization_valid_before" {
		t.Fatalf("%+v", got)
	}
}

// failingSettlement verifies with the built-in facilitator and then fails
// to settle, as a chain refusing the transfer would.
type failingSettlement struct{ *x402.Local }

func (f failingSettlement) Settle(context.Context, *x402.PaymentPayload, x402.Requirements) (x402.SettlementResponse, error) {
	return x402.SettlementResponse{ErrorReason: "insufficient_funds", Network: "eip155:8453"}, nil
}

// unreachable is a facilitator that cannot be reached.
type unreachable struct{ *x402.Local }

func (unreachable) Verify(context.Context, *x402.PaymentPayload, x402.Requirements) (x402.VerifyResponse, error) {
	return x402.VerifyResponse{}, x402.ErrFacilitator
}

func TestSettlementFailure(t *testing.T) {
	e := newEnv(t)
	store := testPaymentStore(t)
	e2 := newEnvWith(t, e, func(o *httpd.Options) {
		o.Payments = testGate(t, store, failingSettlement{&x402.Local{Store: store}})
	})
	payer, _ := x402test.NewPayer("")
	vt := e.codec.Token(publicid.Variant, e.cat.VarID[0])
	r, _ := e2.paidGet(t, payer, "/v1/variants/"+vt+"/specs")
	if r.status != 402 || r.header["Payment-Required"] != "" {
		t.Fatalf("failed settlement: %d %v", r.status, r.header)
	}
	s := settlementOf(t, r)
	if s.Success || s.ErrorReason != "insufficient_funds" || s.Transaction != "" {
		t.Fatalf("%+v", s)
	}
	if strings.Contains(string(r.body), `"data"`) || !strings.Contains(string(r.body), "could not be settled (insufficient_funds)") {
		t.Fatalf("body %s", r.body)
	}

	e3 := newEnvWith(t, e, func(o *httpd.Options) {
		st := testPaymentStore(t)
		o.Payments = testGate(t, st, unreachable{&x402.Local{Store: st}})
	})
	o := offerOf(t, e3.get("/v1/search?q=golf", ""))
	p, _ := payer.Pay(o, time.Now())
	r = e3.get("/v1/search?q=golf", "", "PAYMENT-SIGNATURE", x402test.Header(p))
	e.problem(r, 503, "facilitator is unavailable")
	if r.header["Retry-After"] == "" {
		t.Error("503 without Retry-After")
	}
}

func TestPaidCallsLimitedPerNetwork(t *testing.T) {
	e := newEnv(t)
	e2 := newEnvWith(t, e, func(o *httpd.Options) { o.PaidLimiter = access.NewNetworkLimiter(2) })
	payer, _ := x402test.NewPayer("")
	for i := 0; i < 2; i++ {
		if r, _ := e2.paidGet(t, payer, "/v1/search?q=golf"); r.status != 200 {
			t.Fatalf("call %d: %d", i, r.status)
		}
	}
	r, _ := e2.paidGet(t, payer, "/v1/search?q=golf")
	e.problem(r, 429, "limited to 2 a minute per network")
	if r.header["Retry-After"] == "" {
		t.Error("429 without Retry-After")
	}
	// Keys are not affected by the network's paid limit.
	if r := e2.get("/v1/search?q=golf", e.free); r.status != 200 {
		t.Fatalf("keyed call after the paid limit: %d", r.status)
	}
}

// Without payments configured the payable routes are keyed like the rest.
func TestPaymentsOff(t *testing.T) {
	e := newEnv(t)
	e2 := newEnvWith(t, e, func(o *httpd.Options) { o.Payments = nil })
	e.problem(e2.get("/v1/search?q=golf", ""), 401, "API key is required")
}

// A settlement the facilitator does not confirm by the deadline: 504 within
// the write timeout with the payment's reference, the answer withheld, and
// the payment recorded as unsettled-unknown, never "nothing was charged".
func TestSettlementTimeout(t *testing.T) {
	e := newEnv(t)
	t0 := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC) // the payments' clock
	gate, store := x402test.HangingGate(t, testPayTo, http.StatusBadGateway, t0)
	const writeTimeout = 3 * time.Second
	e2 := newEnvWith(t, e, func(o *httpd.Options) { o.Payments = gate; o.WriteTimeout = writeTimeout })
	payer, _ := x402test.NewPayer("")
	path := "/v1/variants/" + e.codec.Token(publicid.Variant, e.cat.VarID[0]) + "/specs"
	p, err := payer.Pay(offerOf(t, e2.get(path, "")), t0)
	if err != nil {
		t.Fatal(err)
	}
	// The facilitator never answers /settle while the test runs, so an
	// answer at all shows the settlement was bounded by its deadline.
	r := e2.get(path, "", "PAYMENT-SIGNATURE", x402test.Header(p))
	ref := x402.Reference(payer.Address.String(), p.Payload.Authorization.Nonce)
	e.problem(r, 504, "recorded under the payment reference "+ref)
	detail := str(r.json(t), "detail")
	if r.header["Payment-Reference"] != ref || !strings.Contains(detail, "may have been taken") || strings.Contains(detail, "nothing was charged") {
		t.Errorf("Payment-Reference %q (want %s), detail %q", r.header["Payment-Reference"], ref, detail)
	}
	if r.header["Payment-Response"] != "" || r.header["Payment-Required"] != "" || strings.Contains(string(r.body), `"data"`) {
		t.Errorf("the 504 carries a settlement, an offer or the answer: %v %s", r.header, r.body)
	}
	recs, err := store.Records(false)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %+v %v", recs, err)
	}
	if g := recs[0]; g.Reference != ref || g.State != x402.StateUnknown || g.Payer != payer.Address.String() || g.Nonce != p.Payload.Authorization.Nonce ||
		g.Amount != "50000" || g.Operation != "GET /v1/variants/{id}/specs" || g.Resource != "https://api.example.org"+path || !g.At.Equal(t0) || g.Error == "" {
		t.Errorf("record %+v", g)
	}
	// The operator resolves it.
	if got, err := store.Resolve(ref, x402.StateUnsettled, "", "operator"); err != nil || got.State != x402.StateUnsettled {
		t.Fatalf("resolve: %+v %v", got, err)
	}
	if recs, _ := store.Records(false); len(recs) != 0 {
		t.Errorf("resolved, still unknown: %+v", recs)
	}
	// The payment was spent either way: it is not accepted again.
	if o := offerOf(t, e2.get(path, "", "PAYMENT-SIGNATURE", x402test.Header(p))); o.Error != "invalid_exact_evm_nonce_already_used" {
		t.Errorf("replay after an unknown settlement: %+v", o)
	}
}
