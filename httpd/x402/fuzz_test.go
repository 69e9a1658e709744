package x402_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vspec/catalogue/httpd/x402"
)

// FuzzVerify feeds arbitrary PAYMENT-SIGNATURE values through decoding and
// verification: never a panic; a header is decoded only when it is one
// JSON value with nothing but whitespace around it (no trailing bytes); an
// error is either a malformed header or a rejection with a reason, never a
// facilitator failure, and nothing is accepted that its payer did not
// sign.
func FuzzVerify(f *testing.F) {
	fx := newFixture(f, nil)
	p, err := fx.payer.Pay(fx.offer(), fx.now)
	if err != nil {
		f.Fatal(err)
	}
	good, _ := x402.EncodeHeader(p)
	f.Add(good)
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"payload":{"authorization":{"from":"0x0000000000000000000000000000000000000000"}},"accepted":{"scheme":"exact"}}`)))
	f.Add("")
	f.Add("====")
	// The good payment followed by bytes that Decoder.More does not see.
	raw, _ := base64.StdEncoding.DecodeString(good)
	for _, tail := range []string{"}", "]]]", " " + string(raw), "\n", "\x00", " }"} {
		f.Add(base64.StdEncoding.EncodeToString(append(append([]byte(nil), raw...), tail...)))
	}
	f.Fuzz(func(t *testing.T, header string) {
		p, err := x402.DecodePayment([]byte(header))
		if err != nil {
			if !errors.Is(err, x402.ErrMalformed) {
				t.Fatalf("decode error without ErrMalformed: %v", err)
			}
			return
		}
		// Decoded: the whole header is one JSON value and whitespace.
		if raw, err := base64.StdEncoding.DecodeString(header); err != nil || !json.Valid(raw) {
			t.Fatalf("%q decoded, but it is not one JSON value alone (%v): %q", header, err, raw)
		}
		pay, err := fx.gate.Verify(context.Background(), p, price)
		if err == nil {
			// Only a payment signed by its payer passes (the seed, once).
			if !strings.EqualFold(pay.Payer, p.Payload.Authorization.From) {
				t.Fatalf("accepted a payment of %s as %s's", p.Payload.Authorization.From, pay.Payer)
			}
			return
		}
		var rej *x402.Rejection
		if !errors.As(err, &rej) || rej.Reason == "" {
			t.Fatalf("%q: verified or failed without a reason: %v", header, err)
		}
	})
}
