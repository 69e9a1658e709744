//go:build redis

package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/x402test"
)

// get calls a replica with a key and returns the status, Retry-After and
// the decoded body.
func get(t *testing.T, addr, path, key string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
	req.Header.Set("X-Api-Key", key)
	res, err := client().Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var m map[string]any
	json.Unmarshal(body, &m)
	return res.StatusCode, res.Header.Get("Retry-After"), m
}

// concurrently makes n calls at once, call(i) the i-th returning a status,
// and counts the statuses.
func concurrently(n int, call func(i int) int) map[int]int {
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			code := call(i)
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return codes
}

// TestFleetOnRedis runs two replicas on one real redis-server and checks
// what a client of the fleet sees: one key store, exact limits across
// replicas, tokens of one replica valid on the other, a revoke made with
// the CLI's store honoured everywhere within a second, 503 with
// Retry-After (never 200) while Redis is down, and counts intact after it
// comes back.
func TestFleetOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	url := srv.URL(0)
	// The test's client is the trusted proxy: X-Forwarded-For names the
	// client network.
	args := []string{"-store", url, "-keys.bootstrap=false", "-limits.apify", "6,1000,1000", "-store.timeout", "1s",
		"-x402.perMinute", "3", "-http.trustedProxies", "127.0.0.1/32"}
	a, b := startServer(t, 0, args...), startServer(t, 0, args...)
	replicas := []string{a.addr, b.addr}

	admin := redistest.Open(t, url, redisstore.Options{Timeout: 5 * time.Second})
	defer admin.Close()
	key, k, err := admin.Create(access.PlanApify, access.StateActive, "", "fleet test")
	if err != nil {
		t.Fatal(err)
	}

	// Exact counting across replicas: 6 allowed in the minute, the other
	// 14 of 20 concurrent calls spread over both replicas refused.
	if s := time.Now().Second(); s >= 45 {
		time.Sleep(time.Duration(61-s) * time.Second) // one minute window for the burst
	}
	codes := concurrently(20, func(i int) int {
		code, _, _ := get(t, replicas[i%2], "/v1/brands?limit=1", key)
		return code
	})
	if codes[200] != 6 || codes[429] != 14 {
		t.Fatalf("20 concurrent calls on two replicas with a limit of 6 a minute: %v", codes)
	}
	if used, err := admin.Used(k, access.Month, time.Now()); err != nil || used != 6 {
		t.Errorf("Redis counted %d (%v), want the 6 served", used, err)
	}

	// A token issued by one replica is read by the other (one secret).
	free, _, err := admin.Create(access.PlanFree, access.StateActive, "", "tokens")
	if err != nil {
		t.Fatal(err)
	}
	code, _, m := get(t, a.addr, "/v1/brands/volkswagen/models?limit=1", free)
	if code != 200 {
		t.Fatalf("models on A: %d %v", code, m)
	}
	mid, _ := m["data"].([]any)[0].(map[string]any)["model_id"].(string)
	if code, _, m := get(t, b.addr, "/v1/models/"+mid+"/generations", free); code != 200 || !strings.HasPrefix(mid, "m_") {
		t.Errorf("A's model token %q on B: %d %v", mid, code, m)
	}

	// A revoke through another client holds on both replicas within 1 s.
	if code, _, _ := get(t, b.addr, "/v1/usage", free); code != 200 {
		t.Fatalf("usage before the revoke: %d", code)
	}
	if _, err := admin.SetState(free, access.StateRevoked); err != nil {
		t.Fatal(err)
	}
	for _, r := range replicas {
		deadline := time.Now().Add(time.Second)
		for {
			code, _, _ := get(t, r, "/v1/usage", free)
			if code == 403 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %s still answers %d a second after the revoke", r, code)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// Keyless paid calls are limited per network across the fleet: 3 a
	// minute for the network X-Forwarded-For names, whichever replica is
	// called (a bad payment is refused after the network window, 400).
	paid := func(addr, network, sig string) (int, http.Header) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/search?q=golf&limit=1", nil)
		req.Header.Set("X-Forwarded-For", network)
		if sig != "" {
			req.Header.Set("PAYMENT-SIGNATURE", sig)
		}
		res, err := client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header
	}
	if s := time.Now().Second(); s >= 50 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
	byCode := map[int]int{}
	for i := range 8 {
		code, _ := paid(replicas[i%2], "203.0.113.9", "not-a-payment")
		byCode[code]++
	}
	if byCode[400] != 3 || byCode[429] != 5 {
		t.Errorf("8 keyless calls of one network over two replicas with 3 a minute: %v", byCode)
	}
	if code, _ := paid(b.addr, "203.0.113.10", "not-a-payment"); code != 400 {
		t.Errorf("another network: %d", code)
	}

	// One payment replayed to every replica is accepted once.
	_, h := paid(a.addr, "198.51.100.20", "")
	raw, _ := base64.StdEncoding.DecodeString(h.Get("PAYMENT-REQUIRED"))
	var offer x402.PaymentRequired
	if err := json.Unmarshal(raw, &offer); err != nil {
		t.Fatalf("offer %q: %v", raw, err)
	}
	payer, _ := x402test.NewPayer("")
	pay, err := payer.Pay(offer, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sig := x402test.Header(pay)
	paidCodes := concurrently(2, func(i int) int {
		code, _ := paid(replicas[i], "198.51.100."+strconv.Itoa(21+i), sig)
		return code
	})
	if paidCodes[200] != 1 || paidCodes[402] != 1 {
		t.Errorf("one payment sent to both replicas at once: %v, want one 200 and one 402", paidCodes)
	}

	// Redis down: only 503s with Retry-After, on every replica.
	second, _, err := admin.Create(access.PlanApify, access.StateActive, "", "outage")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replicas {
		if code, _, _ := get(t, r, "/v1/usage", second); code != 200 {
			t.Fatalf("before the outage: %d", code)
		}
	}
	for _, r := range replicas {
		if code, status := readyz(t, r); code != 200 {
			t.Fatalf("/readyz of %s before the outage: %d %s", r, code, status)
		}
	}
	srv.Kill()
	// Each replica's /readyz turns 503 "store unreachable" at its next
	// background PING (every second): within 10 s, polled every 20 ms.
	waitReady(t, replicas, 503, `{"status":"store unreachable"}`)
	for _, r := range replicas {
		for range 3 {
			code, retry, m := get(t, r, "/v1/brands?limit=1", second)
			if code != 503 || retry == "" {
				t.Fatalf("with Redis down, replica %s answered %d (Retry-After %q) %v; want 503 with Retry-After", r, code, retry, m)
			}
		}
	}
	srv.Restart()
	// Back: the count of the two calls served before the outage is intact
	// and the replicas serve again, within 10 s (polled every 50 ms).
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, m := get(t, a.addr, "/v1/usage", second)
		if code == 200 {
			if used := m["data"].(map[string]any)["used"]; used != float64(3) {
				t.Errorf("after the restart /v1/usage says %v used, want 3 (2 before the outage and this one)", used)
			}
			break
		}
		if code != 503 || time.Now().After(deadline) {
			t.Fatalf("after the restart: %d %v", code, m)
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitReady(t, replicas, 200, `{"status":"ready"}`)
}

// readyz returns the status and body of a replica's /readyz.
func readyz(t *testing.T, addr string) (int, string) {
	t.Helper()
	res, err := client().Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatalf("GET /readyz: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// waitReady waits until every replica's /readyz answers code with body:
// at most 10 s, polled every 20 ms.
func waitReady(t *testing.T, replicas []string, code int, body string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, r := range replicas {
		for {
			c, b := readyz(t, r)
			if c == code && b == body {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz of %s answers %d %s, want %d %s", r, c, b, code, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestReplicaOverTLS: a replica reaches a Redis that listens with TLS only
// and requires a password through -store rediss://…?ca=FILE, serves a
// keyed call counted there and is ready; its log never shows the
// password.
func TestReplicaOverTLS(t *testing.T) {
	files := redistest.NewTLS(t)
	srv := redistest.StartWith(t, redistest.Options{Config: redistest.Config + "requirepass s3cret-pass\n", TLS: files})
	url := "rediss://:s3cret-pass@" + srv.Addr + "/0?ca=" + files.CA
	admin := redistest.Open(t, url, redisstore.Options{Timeout: 5 * time.Second})
	defer admin.Close()
	key, k, err := admin.Create(access.PlanApify, access.StateActive, "", "tls")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, 0, "-store", url, "-keys.bootstrap=false", "-store.timeout", "1s")
	if code, _, m := get(t, s.addr, "/v1/brands?limit=1", key); code != 200 {
		t.Fatalf("a keyed call: %d %v", code, m)
	}
	if n, err := admin.Used(k, access.Month, time.Now()); n != 1 || err != nil {
		t.Errorf("counted %d (%v), want 1", n, err)
	}
	if code, body := readyz(t, s.addr); code != 200 {
		t.Errorf("/readyz: %d %s", code, body)
	}
	s.logs.mu.Lock()
	defer s.logs.mu.Unlock()
	for _, l := range s.logs.lines {
		if strings.Contains(l, "s3cret-pass") {
			t.Errorf("the log shows the password: %s", l)
		}
	}
}
