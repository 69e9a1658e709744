package x402_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/x402test"
)

const (
	payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	price = 50_000
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type fixture struct {
	gate  *x402.Gate
	store *x402.Store
	payer *x402test.Payer
	now   time.Time
	path  string
}

func newFixture(t testing.TB, f x402.Facilitator) *fixture {
	t.Helper()
	fx := &fixture{now: t0, path: filepath.Join(t.TempDir(), "payments.db")}
	store, err := x402.OpenStore(fx.path, func() time.Time { return fx.now })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	fx.store = store
	if f == nil {
		f = &x402.Local{Store: store, Now: func() time.Time { return fx.now }}
	}
	fx.gate, err = x402.New(x402.Config{PayTo: payTo, Facilitator: f, Nonces: store, Now: func() time.Time { return fx.now }})
	if err != nil {
		t.Fatal(err)
	}
	if fx.payer, err = x402test.NewPayer(""); err != nil {
		t.Fatal(err)
	}
	return fx
}

func (fx *fixture) offer() x402.PaymentRequired {
	return fx.gate.Required(x402.Resource{URL: "http://127.0.0.1/v1/variants/x/specs"}, price, "")
}

func (fx *fixture) pay(t *testing.T) *x402.PaymentPayload {
	t.Helper()
	p, err := fx.payer.Pay(fx.offer(), fx.now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func reason(t *testing.T, err error) string {
	t.Helper()
	var rej *x402.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("want a rejection, got %v", err)
	}
	return rej.Reason
}

func TestOffer(t *testing.T) {
	fx := newFixture(t, nil)
	o := fx.offer()
	a := o.Accepts[0]
	if o.X402Version != 2 || len(o.Accepts) != 1 || a.Scheme != "exact" || a.Network != "eip155:8453" ||
		a.Asset != "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" || a.Amount != "50000" || a.PayTo != payTo ||
		a.MaxTimeoutSeconds != 60 || a.Extra == nil || a.Extra.Name != "USD Coin" || a.Extra.Version != "2" {
		t.Fatalf("offer %+v %+v", o, a)
	}
	h, err := x402.EncodeHeader(o)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil || !strings.Contains(string(raw), `"accepts":[{"scheme":"exact","network":"eip155:8453","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","amount":"50000","payTo":"`+payTo+`","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}]`) {
		t.Fatalf("header JSON %s (%v)", raw, err)
	}
}

// The payload @x402/fetch 2.27.0 sent in the reference, checked at a time
// before its validBefore: the test vector end to end.
func TestReferencePayload(t *testing.T) {
	raw := `{"x402Version":2,"payload":{"authorization":{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","to":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","value":"1000","validAfter":"0","validBefore":"1795297015","nonce":"0x1173c47b83cb5eeb4b881aa154914fb593088cf1bc9a855b6fb1864cd1c97bcf"},"signature":"0x597d8fe0df47e5dc797309cae1c3daf4b6ca57693140801400a575659da622a1329c04ebb47c92c9e3ea105e3302448fdeb93d0e3bb8d28a6297604209909ac51c"},"resource":{"url":"http://127.0.0.1:8402/paid","description":"test","mimeType":"application/json"},"accepted":{"scheme":"exact","network":"eip155:8453","amount":"1000","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}}`
	p, err := x402.DecodePayment([]byte(base64.StdEncoding.EncodeToString([]byte(raw))))
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixture(t, nil)
	fx.now = time.Unix(1795297015-60, 0)
	pay, err := fx.gate.Verify(context.Background(), p, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if pay.Payer != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("payer %s", pay.Payer)
	}
	st := fx.gate.Settle(context.Background(), pay, time.Time{}, x402.Sale{})
	s := st.Response
	if st.Outcome != x402.Settled || !s.Success || !strings.HasPrefix(s.Transaction, "local:0x") || s.Network != "eip155:8453" || s.Payer != pay.Payer {
		t.Fatalf("settlement %+v", s)
	}
	// The same payload a second time is a replay.
	if _, err := fx.gate.Verify(context.Background(), p, 1000); reason(t, err) != "invalid_exact_evm_nonce_already_used" {
		t.Fatal(err)
	}
}

func TestVerifyAndSettle(t *testing.T) {
	fx := newFixture(t, nil)
	p := fx.pay(t)
	pay, err := fx.gate.Verify(context.Background(), p, price)
	if err != nil {
		t.Fatal(err)
	}
	if pay.Payer != fx.payer.Address.String() {
		t.Fatalf("payer %s, want %s", pay.Payer, fx.payer.Address)
	}
	st := fx.gate.Settle(context.Background(), pay, time.Time{}, x402.Sale{})
	s := st.Response
	if st.Outcome != x402.Settled || !s.Success || s.Amount != "50000" {
		t.Fatalf("%+v", s)
	}
	receipts, err := fx.store.Receipts()
	if err != nil || len(receipts) != 1 || receipts[0].Transaction != s.Transaction || receipts[0].Authorization != p.Payload.Authorization {
		t.Fatalf("receipts %+v %v", receipts, err)
	}
	// Settling the same payment again records nothing and fails.
	if again := fx.gate.Settle(context.Background(), pay, time.Time{}, x402.Sale{}); again.Outcome != x402.Refused || again.Response.Success || again.Response.ErrorReason != "invalid_exact_evm_nonce_already_used" {
		t.Fatalf("second settlement %+v", again)
	}
	if receipts, _ := fx.store.Receipts(); len(receipts) != 1 {
		t.Fatalf("%d receipts after a second settlement", len(receipts))
	}
	// The built-in facilitator refuses to verify a settled authorization,
	// as a chain refuses a used nonce.
	v, err := (&x402.Local{Store: fx.store, Now: func() time.Time { return fx.now }}).Verify(context.Background(), p, pay.Requirements)
	if err != nil || v.IsValid || v.InvalidReason != "invalid_exact_evm_nonce_already_used" {
		t.Fatalf("verify after settlement: %+v %v", v, err)
	}
}

func TestReplayAcrossRestart(t *testing.T) {
	fx := newFixture(t, nil)
	p := fx.pay(t)
	if _, err := fx.gate.Verify(context.Background(), p, price); err != nil {
		t.Fatal(err)
	}
	fx.store.Close()
	// The reopened store keeps the fixture's clock: with the real one the
	// recorded nonce would count as expired on any later date.
	store, err := x402.OpenStore(fx.path, func() time.Time { return fx.now })
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	gate, err := x402.New(x402.Config{PayTo: payTo, Facilitator: &x402.Local{Store: store}, Nonces: store, Now: func() time.Time { return fx.now }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gate.Verify(context.Background(), p, price); reason(t, err) != "invalid_exact_evm_nonce_already_used" {
		t.Fatal(err)
	}
}

func TestRejections(t *testing.T) {
	fx := newFixture(t, nil)
	other, _ := x402test.NewPayer("")
	cases := []struct {
		name, reason string
		change       func(p *x402.PaymentPayload)
		amount       int64
	}{
		{"scheme", "unsupported_scheme", func(p *x402.PaymentPayload) { p.Accepted.Scheme = "upto" }, price},
		{"network", "invalid_network", func(p *x402.PaymentPayload) { p.Accepted.Network = "eip155:84532" }, price},
		{"asset", "invalid_payment_requirements", func(p *x402.PaymentPayload) { p.Accepted.Asset = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" }, price},
		{"accepted payTo", "invalid_payment_requirements", func(p *x402.PaymentPayload) { p.Accepted.PayTo = other.Address.String() }, price},
		{"cheaper operation's offer", "invalid_payment_requirements", func(p *x402.PaymentPayload) {}, 100_000},
		{"no EIP-712 domain", "invalid_exact_evm_missing_eip712_domain", func(p *x402.PaymentPayload) { p.Accepted.Extra = nil }, price},
		{"other EIP-712 domain", "invalid_payment_requirements", func(p *x402.PaymentPayload) { p.Accepted.Extra = &x402.Extra{Name: "USDC", Version: "2"} }, price},
		{"bad value", "invalid_payload", func(p *x402.PaymentPayload) { p.Payload.Authorization.Value = "-5" }, price},
		{"bad nonce", "invalid_payload", func(p *x402.PaymentPayload) { p.Payload.Authorization.Nonce = "0x12" }, price},
		{"bad from", "invalid_payload", func(p *x402.PaymentPayload) { p.Payload.Authorization.From = "alice" }, price},
		{"short signature", "invalid_exact_evm_signature", func(p *x402.PaymentPayload) { p.Payload.Signature = p.Payload.Signature[:100] }, price},
		{"signature of another payer", "invalid_exact_evm_signature", func(p *x402.PaymentPayload) { p.Payload.Authorization.From = other.Address.String() }, price},
		{"tampered value", "invalid_exact_evm_payload_authorization_value_mismatch", func(p *x402.PaymentPayload) { p.Payload.Authorization.Value = "50001" }, price},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := fx.pay(t)
			c.change(p)
			_, err := fx.gate.Verify(context.Background(), p, c.amount)
			if got := reason(t, err); got != c.reason {
				t.Fatalf("reason %s, want %s (%v)", got, c.reason, err)
			}
		})
	}
}

// Authorizations signed correctly but wrong in what they authorize.
func TestSignedRejections(t *testing.T) {
	fx := newFixture(t, nil)
	other, _ := x402test.NewPayer("")
	unix := fx.now.Unix()
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	cases := []struct {
		name, reason string
		change       func(a *x402.Authorization)
	}{
		{"to someone else", "invalid_exact_evm_recipient_mismatch", func(a *x402.Authorization) { a.To = other.Address.String() }},
		{"more than the price", "invalid_exact_evm_payload_authorization_value_mismatch", func(a *x402.Authorization) { a.Value = "60000" }},
		{"less than the price", "invalid_exact_evm_payload_authorization_value_mismatch", func(a *x402.Authorization) { a.Value = "49999" }},
		{"not yet valid", "invalid_exact_evm_payload_authorization_valid_after", func(a *x402.Authorization) { a.ValidAfter = itoa(unix + 60) }},
		{"expired", "invalid_exact_evm_payload_authorization_valid_before", func(a *x402.Authorization) { a.ValidBefore = itoa(unix - 1) }},
		{"expiring too soon", "invalid_exact_evm_payload_authorization_valid_before", func(a *x402.Authorization) { a.ValidBefore = itoa(unix + 3) }},
		{"valid for a day", "invalid_exact_evm_payload_authorization_valid_before", func(a *x402.Authorization) { a.ValidBefore = itoa(unix + 86400) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good := fx.pay(t)
			a := good.Payload.Authorization
			c.change(&a)
			p, err := fx.payer.PayAuthorization(fx.offer(), a)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fx.gate.Verify(context.Background(), p, price)
			if got := reason(t, err); got != c.reason {
				t.Fatalf("reason %s, want %s (%v)", got, c.reason, err)
			}
		})
	}
	// The older clients' window (validAfter ten minutes back) and a clock a
	// little ahead are accepted.
	for _, after := range []int64{unix - 600, unix + 3} {
		a := fx.pay(t).Payload.Authorization
		a.ValidAfter = itoa(after)
		p, _ := fx.payer.PayAuthorization(fx.offer(), a)
		if _, err := fx.gate.Verify(context.Background(), p, price); err != nil {
			t.Fatalf("validAfter %d: %v", after-unix, err)
		}
	}
}

func TestDecodePayment(t *testing.T) {
	good := `{"x402Version":2,"payload":{"authorization":{},"signature":""},"accepted":{}}`
	// Whitespace around the object is not data.
	for _, j := range []string{good, good + "\n", " \t" + good + " \r\n "} {
		if _, err := x402.DecodePayment([]byte(base64.StdEncoding.EncodeToString([]byte(j)))); err != nil {
			t.Fatalf("%q: %v", j, err)
		}
	}
	for name, h := range map[string]string{
		"not base64":      "not base64!",
		"URL-safe base64": strings.NewReplacer("+", "-", "/", "_").Replace(base64.StdEncoding.EncodeToString([]byte(good + "\n\n\n?>>>"))),
		"no padding":      base64.RawStdEncoding.EncodeToString([]byte(good + "x")),
		"not JSON":        base64.StdEncoding.EncodeToString([]byte("hello")),
		"a JSON array":    base64.StdEncoding.EncodeToString([]byte("[1,2]")),
		"trailing data":   base64.StdEncoding.EncodeToString([]byte(good + `{}`)),
		"trailing brace":  base64.StdEncoding.EncodeToString([]byte(good + `}`)),
		"trailing ]]]":    base64.StdEncoding.EncodeToString([]byte(good + `]]]`)),
		"two objects":     base64.StdEncoding.EncodeToString([]byte(good + " " + good)),
		"trailing junk":   base64.StdEncoding.EncodeToString([]byte(good + "\n x")),
		"version 1":       base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1}`)),
		"empty object":    base64.StdEncoding.EncodeToString([]byte(`{}`)),
		"too long":        strings.Repeat("A", x402.MaxHeaderBytes+4),
	} {
		_, err := x402.DecodePayment([]byte(h))
		if !errors.Is(err, x402.ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		} else if strings.HasPrefix(name, "trailing") || name == "two objects" {
			if !strings.Contains(err.Error(), "after its JSON object") {
				t.Errorf("%s: the error does not name the trailing data: %v", name, err)
			}
		}
	}
}

// The gate with the HTTP facilitator client, against the built-in
// facilitator served over HTTP on loopback.
func TestHTTPFacilitator(t *testing.T) {
	var fx *fixture
	var seenAuth string
	local := &x402.Local{Now: func() time.Time { return fx.now }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seenAuth = r.Header.Get("Authorization")
		x402.FacilitatorHandler(local).ServeHTTP(w, r)
	}))
	defer srv.Close()
	fx = newFixture(t, &x402.HTTPFacilitator{URL: srv.URL + "/", AuthHeader: "Authorization: Bearer fac-secret"})
	local.Store = fx.store
	ctx := context.Background()
	p := fx.pay(t)
	pay, err := fx.gate.Verify(ctx, p, price)
	if err != nil {
		t.Fatal(err)
	}
	if seenAuth != "Bearer fac-secret" {
		t.Fatalf("the facilitator saw Authorization %q", seenAuth)
	}
	if s := fx.gate.Settle(ctx, pay, time.Time{}, x402.Sale{}).Response; !s.Success || !strings.HasPrefix(s.Transaction, "local:0x") {
		t.Fatalf("%+v", s)
	}
	sup, err := (&x402.HTTPFacilitator{URL: srv.URL}).Supported(ctx)
	if err != nil || len(sup.Kinds) == 0 || sup.Kinds[0].Scheme != "exact" {
		t.Fatalf("%+v %v", sup, err)
	}
	// A facilitator that is down is the server's failure, not the payer's.
	srv.Close()
	_, err = fx.gate.Verify(ctx, fx.pay(t), price)
	if !errors.Is(err, x402.ErrFacilitator) {
		t.Fatalf("facilitator down: %v", err)
	}
}

// A facilitator's refusal reaches the payer with its reason.
func TestFacilitatorRefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"isValid":false,"invalidReason":"insufficient_funds","invalidMessage":"balance 0"}`))
	}))
	defer srv.Close()
	fx := newFixture(t, &x402.HTTPFacilitator{URL: srv.URL})
	_, err := fx.gate.Verify(context.Background(), fx.pay(t), price)
	if reason(t, err) != "insufficient_funds" {
		t.Fatal(err)
	}
}

func TestConfig(t *testing.T) {
	store, err := x402.OpenStore(filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := &x402.Local{Store: store}
	for name, cfg := range map[string]x402.Config{
		"no payTo":        {Facilitator: l, Nonces: store},
		"bad payTo":       {PayTo: "0x12", Facilitator: l, Nonces: store},
		"unknown network": {PayTo: payTo, Network: "eip155:1", Facilitator: l, Nonces: store},
		"not EVM":         {PayTo: payTo, Network: "solana:mainnet", Asset: payTo, AssetName: "x", AssetVersion: "1", Facilitator: l, Nonces: store},
		"no facilitator":  {PayTo: payTo, Nonces: store},
		"short timeout":   {PayTo: payTo, MaxTimeout: time.Second, Facilitator: l, Nonces: store},
	} {
		if _, err := x402.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	g, err := x402.New(x402.Config{PayTo: payTo, Network: x402.NetworkBaseSepolia, Facilitator: l, Nonces: store})
	if err != nil || g.Offer(1).Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" || g.Offer(1).Extra.Name != "USDC" {
		t.Fatalf("%v %+v", err, g.Offer(1))
	}
}
