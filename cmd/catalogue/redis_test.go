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
)

// TestKeysCommandsOnRedis: keys create, list and revoke work on a fleet's
// Redis while a replica (here, a store client standing for one, with a
// cached lookup) uses it.
func TestKeysCommandsOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	url := srv.URL(2)
	co, _ := redisstore.ClientOption(url)
	replica, err := redisstore.Open(redisstore.Options{Client: co})
	if err != nil {
		t.Fatal(err)
	}
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
	deadline := time.Now().Add(time.Second)
	for {
		k, err := replica.Lookup([]byte(key))
		if err == nil && k.State == access.StateRevoked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second after the revoke the replica sees %+v, %v", k, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := runKeys([]string{"list", "-store", "http://example.org"}, &out); err == nil || !strings.Contains(err.Error(), "redis://") {
		t.Errorf("a bad -store: %v", err)
	}
}
