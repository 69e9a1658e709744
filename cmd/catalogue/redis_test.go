//go:build redis

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
	"github.com/vspec/catalogue/httpd/state/statetest"
	"github.com/vspec/catalogue/httpd/x402"
)

// TestKeysCommandsOnRedis: keys create, list and revoke work on a fleet's
// Redis while a replica (here, a store client standing for one, with a
// cached lookup) uses it.
func TestKeysCommandsOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	url := srv.URL(2)
	replica := redistest.Open(t, url, redisstore.Options{})
	defer replica.Close()
	var out bytes.Buffer
	if err := runKeys([]string{"create", "-store", url, "-plan", "apify", "-email", "a@example.org"}, &out); err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out.String()[strings.LastIndexByte(strings.TrimSpace(out.String()), '\n'):])
	if k, err := replica.Lookup([]byte(key)); err != nil || k.State != access.StateActive || k.Email != "a@example.org" {
		t.Fatalf("the replica sees %+v, %v", k, err)
	}
	out.Reset()
	t.Setenv("CATALOGUED_STORE", url) // the replicas' environment variable works too
	if err := runKeys([]string{"list"}, &out); err != nil || !strings.Contains(out.String(), "a@example.org") {
		t.Fatalf("list: %v\n%s", err, out.String())
	}
	if err := runKeys([]string{"revoke", key}, &out); err != nil || !strings.Contains(out.String(), "revoked") {
		t.Fatalf("revoke: %v\n%s", err, out.String())
	}
	statetest.WaitRevoked(t, replica, key)
	if err := runKeys([]string{"list", "-store", "http://example.org"}, &out); err == nil || !strings.Contains(err.Error(), "redis://") {
		t.Errorf("a bad -store: %v", err)
	}
}

// TestPaymentsCommandsOnRedis: payments list and resolve work on a
// fleet's Redis while it runs.
func TestPaymentsCommandsOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	url := srv.URL(3)
	replica := redistest.Open(t, url, redisstore.Options{})
	defer replica.Close()
	rec := x402.PaymentRecord{Reference: x402.Reference("0xabc", "0x01"), Payer: "0xabc", Nonce: "0x01", Amount: "10000", Operation: "search",
		At: time.Now().UTC(), Error: "timeout"}
	if err := replica.RecordUnknown(rec); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runPayments([]string{"list", "-store", url}, &out); err != nil || !strings.Contains(out.String(), rec.Reference) {
		t.Fatalf("list: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := runPayments([]string{"resolve", "-store", url, rec.Reference, "settled", "-tx", "0xfeed"}, &out); err != nil || !strings.Contains(out.String(), "settled") {
		t.Fatalf("resolve: %v\n%s", err, out.String())
	}
	if got, err := replica.Record(rec.Reference); err != nil || got.State != x402.StateSettled || got.Transaction != "0xfeed" {
		t.Errorf("the replica sees %+v, %v", got, err)
	}
}
