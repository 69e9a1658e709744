package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/x402test"
)

// unknownPayments records n payments of unknown outcome in state the way
// the server does: verified, served, and settled through a facilitator on
// loopback HTTP that does not answer in time. It returns their references
// and the store, still open as a running server holds it.
func unknownPayments(t *testing.T, state string, n int) ([]string, *x402.Store) {
	t.Helper()
	fac := x402test.HangingFacilitator(t, http.StatusGatewayTimeout)
	t0 := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	clock := t0
	store, err := x402.OpenStore(filepath.Join(state, "payments.db"), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	gate, err := x402.New(x402.Config{PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", Facilitator: fac,
		Nonces: store, Now: func() time.Time { return clock }, SettleTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	payer, _ := x402test.NewPayer("")
	var refs []string
	for i := 0; i < n; i++ {
		clock = t0.Add(time.Duration(i) * time.Minute)
		offer := gate.Required(x402.Resource{URL: "https://api.example.org/v1/search?q=golf"}, 5000, "")
		p, err := payer.Pay(offer, clock)
		if err != nil {
			t.Fatal(err)
		}
		pay, err := gate.Verify(context.Background(), p, 5000)
		if err != nil {
			t.Fatal(err)
		}
		s := gate.Settle(context.Background(), pay, time.Time{}, x402.Sale{Resource: offer.Resource.URL, Operation: "GET /v1/search"})
		if s.Outcome != x402.Unknown {
			t.Fatalf("settlement %+v", s)
		}
		refs = append(refs, s.Reference)
	}
	return refs, store
}

func TestPaymentsCommands(t *testing.T) {
	state := t.TempDir()
	refs, store := unknownPayments(t, state, 2)
	var out bytes.Buffer

	// While the server holds the file, the commands say so, and return.
	err := runPayments([]string{"list", "-state", state}, &out)
	if err == nil || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), "catalogued") {
		t.Fatalf("list while the store is held: %v", err)
	}
	store.Close() // the server stopped

	out.Reset()
	if err := runPayments([]string{"list", "-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"REFERENCE", "NONCE", refs[0], refs[1], "unsettled-unknown", "0.005", "GET /v1/search", "2026-03-14T09:26:53Z", "did not answer within"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if err := runPayments([]string{"resolve", "-state", state, refs[0], "settled", "-tx", "0xfeed"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), refs[0]) || !strings.Contains(out.String(), "is now settled, transaction 0xfeed") {
		t.Errorf("resolve: %s", out.String())
	}
	out.Reset()
	if err := runPayments([]string{"resolve", refs[1], "unsettled", "-state", state}, &out); err != nil || !strings.Contains(out.String(), "is now unsettled") {
		t.Fatalf("resolve unsettled: %v %s", err, out.String())
	}

	// Resolved payments leave the default list, and stay in -all.
	out.Reset()
	if err := runPayments([]string{"list", "-state", state}, &out); err != nil || !strings.Contains(out.String(), "no payment of unknown outcome") {
		t.Errorf("list after resolving: %v %s", err, out.String())
	}
	out.Reset()
	if err := runPayments([]string{"list", "-state", state, "-all", "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	var recs []x402.PaymentRecord
	if err := json.Unmarshal(out.Bytes(), &recs); err != nil || len(recs) != 2 {
		t.Fatalf("list -all -json: %v\n%s", err, out.String())
	}
	if recs[0].Reference != refs[0] || recs[0].State != "settled" || recs[0].Transaction != "0xfeed" || recs[0].ResolvedBy != "operator" || recs[0].ResolvedAt == nil ||
		recs[1].Reference != refs[1] || recs[1].State != "unsettled" || recs[1].Amount != "5000" || recs[1].Nonce == "" || recs[1].Payer == "" {
		t.Errorf("records %+v", recs)
	}
	out.Reset()
	if err := runPayments([]string{"list", "-state", state, "-all"}, &out); err != nil || !strings.Contains(out.String(), "0xfeed") {
		t.Errorf("list -all: %v %s", err, out.String())
	}

	// Clear errors.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"resolve", "-state", state, refs[0], "unsettled"}, "already resolved"},
		{[]string{"resolve", "-state", state, "pay_0000000000000000", "settled"}, "no payment is recorded under"},
		{[]string{"resolve", "-state", state, refs[0], "maybe"}, "settled or unsettled"},
		{[]string{"resolve", "-state", state, refs[0], "unsettled", "-tx", "0x1"}, "an unsettled one has none"},
		{[]string{"resolve", "-state", state, refs[0]}, "needs a payment reference and its outcome"},
		{[]string{"list", "-state", filepath.Join(state, "nowhere")}, "does not exist"},
		{[]string{"list", "-state", state, "extra"}, "takes no arguments"},
		{[]string{"purge", "-state", state}, "unknown payments command"},
		{nil, "usage:"},
	} {
		err := runPayments(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "nowhere")); err == nil {
		t.Error("list created a state directory")
	}
}
