//go:build cluster

package cluster_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/keyflow/flowtest"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/x402test"
	"github.com/vspec/catalogue/loader/rollout"
)

// replica is one catalogued process.
type replica struct {
	name   string
	addr   string // 127.0.0.N:PORT
	cmd    *exec.Cmd
	killed bool // by KillReplicaUnderLoad
}

// fleet is the cluster under test.
type fleet struct {
	t        testing.TB
	dir      string
	redis    *redistest.Server
	url      string // -store
	cli      string // the catalogue binary
	replicas []*replica
	lb       string   // HAProxy's frontend over all replicas
	stats    string   // HAProxy's stats socket
	direct   []string // HAProxy's frontends over one replica each
	outbox   string
	origin   string            // the directory the replicas fetch snapshots from (-origin)
	first    string            // the content hash of the catalogue published before the replicas started
	admin    *redisstore.Store // an operator's connection to the store
	source   atomic.Int32      // the next client source address
}

// Limits of the fleet: the apify plan is counted exactly in its minute;
// the free plan's limits never bind (the load runs on it).
const apifyPerMinute = 30

func freePort(t testing.TB, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitLog reads r until a line contains substr, for at most timeout, and
// keeps draining r afterwards.
func waitLog(t testing.TB, r io.Reader, substr string, timeout time.Duration) {
	t.Helper()
	found := make(chan struct{})
	var tail []string
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		done := false
		for sc.Scan() {
			mu.Lock()
			tail = append(tail, sc.Text())
			if len(tail) > 20 {
				tail = tail[1:]
			}
			mu.Unlock()
			if !done && strings.Contains(sc.Text(), substr) {
				done = true
				close(found)
			}
		}
	}()
	select {
	case <-found:
	case <-time.After(timeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no %q within %s; last lines:\n%s", substr, timeout, strings.Join(tail, "\n"))
	}
}

// startFleet starts the fleet, its Redis varied by o (at most one; the
// production configuration by default).
func startFleet(t testing.TB, o ...redistest.Options) *fleet {
	f := &fleet{t: t, dir: t.TempDir()}
	for _, b := range []string{"catalogued", "catalogue"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(f.dir, b), "../../cmd/"+b).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b, err, out)
		}
	}
	replicaBin := filepath.Join(f.dir, "catalogued")
	if other := os.Getenv("BENCH_CATALOGUED"); other != "" { // another commit's, to compare (BenchmarkFleetThroughput)
		replicaBin = other
	}
	f.cli = filepath.Join(f.dir, "catalogue")
	snap := filepath.Join(f.dir, "small.snap")
	if err := os.WriteFile(snap, httpdtest.Snapshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	f.redis = redistest.StartWith(t, append(o, redistest.Options{})[0])
	f.url = f.redis.URL(0)
	// The replicas follow the fleet's catalogue (-origin): the first one
	// is published before they start, so each loads it at start.
	f.origin = filepath.Join(f.dir, "origin")
	if out, err := f.publish(snap); err != nil {
		t.Fatalf("catalogue publish of the first catalogue: %v\n%s", err, out)
	}
	hash, err := rollout.FileHash(snap)
	if err != nil {
		t.Fatal(err)
	}
	f.first = hash
	dns := flowtest.StartDNS(t, map[string]flowtest.Records{"garage-lindqvist.se": {MX: []string{"mx.garage-lindqvist.se"}}})
	f.outbox = filepath.Join(f.dir, "outbox")
	f.lb = freePort(t, "127.0.0.1")

	// The replicas, each on its own loopback address, trusting PROXY
	// headers from HAProxy's source address only.
	for i := range 3 {
		r := &replica{name: "r" + strconv.Itoa(i+1), addr: freePort(t, "127.0.0."+strconv.Itoa(i+2))}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		t.Cleanup(cancel)
		r.cmd = exec.CommandContext(ctx, replicaBin, "-listen", r.addr, "-origin", f.origin, "-state", filepath.Join(f.dir, "state-"+r.name),
			"-admin.listen", "", "-mcp.listen", "", "-store", f.url, "-store.timeout", "1s", "-http.proxyProtocol", "-http.trustedProxies", "127.0.0.1/32",
			"-keys.bootstrap=false", "-limits.apify", fmt.Sprintf("%d,100000,1000000", apifyPerMinute), "-limits.free", "1000000,10000000,100000000",
			"-dns.server", dns.Addr, "-mail.outbox", f.outbox, "-log.access=false", "-http.publicURL", "http://"+f.lb+"/v1")
		stderr, _ := r.cmd.StderrPipe()
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
		waitLog(t, stderr, "serving http://", 90*time.Second)
		f.replicas = append(f.replicas, r)
	}

	// HAProxy: one frontend over all three (round robin, a connection per
	// request in the tests), one per replica for the checks that must
	// reach each; PROXY v2 to the replicas, health checks on /readyz.
	var cfg strings.Builder
	// A refused connection is retried at once on another replica
	// (redispatch), after a turn-around of min(timeout connect, 1 s): so a
	// short connect timeout, on loopback.
	f.stats = filepath.Join(f.dir, "haproxy.sock")
	fmt.Fprintf(&cfg, "global\n  maxconn 4096\n  stats socket %s mode 600 level user\n%s", f.stats, haproxyDefaults)
	server := func(r *replica) string { return haproxyServer(r.name, r.addr) }
	check := haproxyCheck
	// The fleet's frontend sends to the ready replicas; when none is
	// ready (Redis unreachable from all of them), to the live ones, which
	// answer 503 with Retry-After rather than HAProxy closing the
	// connection.
	fmt.Fprintf(&cfg, "frontend all\n  bind %s\n  use_backend all if { nbsrv(all) gt 0 }\n  default_backend live\nbackend all\n  balance roundrobin\n%s", f.lb, check)
	for _, r := range f.replicas {
		cfg.WriteString(server(r))
	}
	cfg.WriteString("backend live\n  balance roundrobin\n  option httpchk GET /livez\n  http-check expect status 200\n")
	for _, r := range f.replicas {
		cfg.WriteString(server(r))
	}
	for _, r := range f.replicas {
		d := freePort(t, "127.0.0.1")
		f.direct = append(f.direct, d)
		fmt.Fprintf(&cfg, "frontend %s\n  bind %s\n  default_backend only-%s\nbackend only-%s\n%s%s", r.name, d, r.name, r.name, check, server(r))
	}
	conf := filepath.Join(f.dir, "haproxy.cfg")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	hp := exec.Command("haproxy", "-db", "-f", conf)
	hp.Stdout, hp.Stderr = io.Discard, io.Discard
	if err := hp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hp.Process.Kill(); hp.Wait() })

	admin := redistest.Open(t, f.url, redisstore.Options{Timeout: 5 * time.Second})
	t.Cleanup(func() { admin.Close() })
	f.admin = admin

	// Ready when every frontend answers /readyz through its health-checked
	// backend: at most 20 s (200 tries), every 100 ms.
	deadline := time.Now().Add(20 * time.Second)
	for _, fe := range append([]string{f.lb}, f.direct...) {
		for try := 0; ; try++ {
			code, _, _ := f.call(fe, "GET", "/readyz", "", nil)
			if code == 200 {
				break
			}
			if try == 200 || time.Now().After(deadline) {
				t.Fatalf("HAProxy frontend %s not ready: %d", fe, code)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return f
}

// haproxyDefaults are the defaults of the harness's HAProxy: TCP, a
// refused connection retried at once on another server (a short connect
// timeout, on loopback), connections to the replicas from 127.0.0.1 (their
// trusted proxy).
const haproxyDefaults = "defaults\n  mode tcp\n  timeout connect 200ms\n  timeout client 30s\n  timeout server 30s\n  retries 2\n  option redispatch 1\n  source 127.0.0.1\n"

// haproxyCheck is the health check of a backend of replicas.
const haproxyCheck = "  option httpchk GET /readyz\n  http-check expect status 200\n"

// haproxyServer is a replica's line in a backend: PROXY v2, on the health
// checks too, checked every 200 ms.
func haproxyServer(name, addr string) string {
	return fmt.Sprintf("  server %s %s send-proxy-v2 check check-send-proxy inter 200ms fall 2 rise 2\n", name, addr)
}

// publish runs catalogue publish on the fleet's store and origin with
// args (a snapshot file, or -hash HEX), for at most two minutes.
func (f *fleet) publish(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, f.cli, append([]string{"publish", "-store", f.url, "-origin", f.origin}, args...)...).CombinedOutput()
	return string(out), err
}

// nextSource is a client address no other call has used: 127.0.1.1,
// 127.0.1.2, … (never 127.0.0.1, the trusted proxy's).
func (f *fleet) nextSource() *net.TCPAddr {
	n := f.source.Add(1)
	return &net.TCPAddr{IP: net.IPv4(127, 0, byte(1+n/250), byte(1+n%250))}
}

// call sends one request on a new connection from a fresh client address
// (127.0.1.N: a network of its own) and returns the status, the headers
// and the body.
func (f *fleet) call(fe, method, path, key string, hdr map[string]string) (int, http.Header, []byte) {
	tr := &http.Transport{DisableKeepAlives: true, DialContext: (&net.Dialer{LocalAddr: f.nextSource(), Timeout: 2 * time.Second}).DialContext}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	req, _ := http.NewRequest(method, "http://"+fe+path, nil)
	if method == "POST" {
		req.Body = io.NopCloser(strings.NewReader(hdr["body"]))
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	for k, v := range hdr {
		if k != "body" {
			req.Header.Set(k, v)
		}
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, body
}

// concurrently runs n calls at once and returns them by status.
func concurrently(n int, call func(i int) (int, http.Header)) (map[int]int, []http.Header) {
	var mu sync.Mutex
	codes := map[int]int{}
	headers := make([]http.Header, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, h := call(i)
			mu.Lock()
			codes[code]++
			headers[i] = h
			mu.Unlock()
		}()
	}
	wg.Wait()
	return codes, headers
}

// freshMinute waits for the next minute when this one ends within 15 s, so
// that a burst counted in the minute window stays in one window.
func freshMinute() {
	if s := time.Now().Second(); s >= 45 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
}

func (f *fleet) key(p access.Plan) (string, *access.Key) {
	f.t.Helper()
	text, k, err := f.admin.Create(p, access.StateActive, "", "cluster test")
	if err != nil {
		f.t.Fatal(err)
	}
	return text, k
}

func TestCluster(t *testing.T) {
	f := startFleet(t)
	t.Run("ExactCountingAcrossReplicas", f.exactCounting)
	t.Run("FiftyConcurrentClicks", f.concurrentClicks)
	t.Run("PaymentReplayedToEveryReplica", f.paymentReplay)
	t.Run("RevokePropagation", f.revoke)
	t.Run("SnapshotRollout", f.snapshotRollout) // before the kill: it needs all three replicas
	t.Run("KillReplicaUnderLoad", f.killReplica)
	t.Run("RedisStoppedAndRestarted", f.redisOutage)
}

// exactCounting: 100 concurrent calls of one key through HAProxy, spread
// over the three replicas, with 30 allowed a minute: exactly 30 served.
func (f *fleet) exactCounting(t *testing.T) {
	key, k := f.key(access.PlanApify)
	freshMinute()
	codes, headers := concurrently(100, func(int) (int, http.Header) {
		code, h, _ := f.call(f.lb, "GET", "/v1/brands?limit=1", key, nil)
		return code, h
	})
	if codes[200] != apifyPerMinute || codes[429] != 100-apifyPerMinute {
		t.Fatalf("100 concurrent calls through HAProxy with %d a minute allowed: %v", apifyPerMinute, codes)
	}
	// X-Request-Id starts with a random prefix per process: the calls were
	// answered by every replica.
	processes := map[string]bool{}
	for _, h := range headers {
		if id := h.Get("X-Request-Id"); len(id) >= 8 {
			processes[id[:8]] = true
		}
	}
	if len(processes) != 3 {
		t.Errorf("answered by %d replicas, want 3 (round robin)", len(processes))
	}
	if used, err := f.admin.Used(k, access.Minute, time.Now()); err != nil || used != apifyPerMinute {
		t.Errorf("Redis counted %d (%v), want %d", used, err, apifyPerMinute)
	}
}

// concurrentClicks: an activation link confirmed 50 times at once, through
// HAProxy onto all replicas, mints one key.
func (f *fleet) concurrentClicks(t *testing.T) {
	body := `{"email":"ada@garage-lindqvist.se","name":"Ada","company":"Garage Lindqvist AB","website":"garage-lindqvist.se","role":"Developer","use_case":"Spec sheets on our used-car listings.","accept_tos":true}`
	if code, _, b := f.call(f.lb, "POST", "/v1/keys/demo", "", map[string]string{"body": body}); code != 202 {
		t.Fatalf("key request: %d %s", code, b)
	}
	token := flowtest.VerifyToken(t, f.outbox)
	// Mail scanners open the link first, on any replica: it stays usable.
	opened, _ := concurrently(10, func(int) (int, http.Header) {
		code, h, _ := f.call(f.lb, "GET", "/v1/keys/demo/verify?t="+token, "", map[string]string{"Accept": "application/json"})
		return code, h
	})
	if opened[200] != 10 {
		t.Errorf("10 openings of the link: %v, want ten 200", opened)
	}
	codes, _ := concurrently(50, func(int) (int, http.Header) {
		code, h, _ := f.call(f.lb, "POST", "/v1/keys/demo/verify?t="+token, "", map[string]string{"Accept": "application/json"})
		return code, h
	})
	if codes[200] != 1 || codes[409] != 49 {
		t.Errorf("50 concurrent clicks: %v, want one 200 and 49 409", codes)
	}
	keys, err := f.admin.List()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range keys {
		if k.Email == "ada@garage-lindqvist.se" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d keys for the address, want 1", n)
	}
}

// paymentReplay: one signed payment sent at once to every replica is
// accepted once.
func (f *fleet) paymentReplay(t *testing.T) {
	code, h, _ := f.call(f.lb, "GET", "/v1/search?q=golf&limit=1", "", nil)
	if code != 402 {
		t.Fatalf("keyless search: %d, want 402", code)
	}
	raw, _ := base64.StdEncoding.DecodeString(h.Get("PAYMENT-REQUIRED"))
	var offer x402.PaymentRequired
	if err := json.Unmarshal(raw, &offer); err != nil {
		t.Fatal(err)
	}
	payer, _ := x402test.NewPayer("")
	pay, err := payer.Pay(offer, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sig := x402test.Header(pay)
	codes, _ := concurrently(len(f.direct), func(i int) (int, http.Header) {
		code, h, _ := f.call(f.direct[i], "GET", "/v1/search?q=golf&limit=1", "", map[string]string{"PAYMENT-SIGNATURE": sig})
		return code, h
	})
	if codes[200] != 1 || codes[402] != len(f.direct)-1 {
		t.Errorf("one payment sent to %d replicas at once: %v, want one 200", len(f.direct), codes)
	}
	receipts, err := f.admin.Receipts()
	if err != nil || len(receipts) != 1 {
		t.Errorf("%d receipts (%v), want 1", len(receipts), err)
	}
}

// revoke: a key every replica has cached is refused by all of them within
// a second of `catalogue keys revoke -store`.
func (f *fleet) revoke(t *testing.T) {
	key, k := f.key(access.PlanFree)
	for _, d := range f.direct {
		if code, _, b := f.call(d, "GET", "/v1/brands?limit=1", key, nil); code != 200 {
			t.Fatalf("before the revoke: %d %s", code, b)
		}
	}
	if out, err := exec.Command(f.cli, "keys", "revoke", "-store", f.url, k.Hash.String()[:12]).CombinedOutput(); err != nil {
		t.Fatalf("catalogue keys revoke: %v\n%s", err, out)
	}
	revoked := time.Now()
	for i, d := range f.direct {
		for try := 0; ; try++ {
			code, _, _ := f.call(d, "GET", "/v1/brands?limit=1", key, nil)
			if code == 403 {
				break
			}
			if try == 200 || time.Since(revoked) > time.Second { // 200 tries take over a second
				t.Fatalf("replica %s still answers %d a second after the revoke", f.replicas[i].name, code)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// killReplica: under load through HAProxy, one replica is killed with
// SIGKILL. HAProxy routes around it; every call that was answered 200 was
// counted (the counts may be higher: a call counted by the killed replica
// whose answer never left).
func (f *fleet) killReplica(t *testing.T) {
	key, k := f.key(access.PlanFree)
	var served, failed, afterKill atomic.Int64
	var killed atomic.Bool
	var wg sync.WaitGroup
	stop := time.Now().Add(4 * time.Second)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000 && time.Now().Before(stop); i++ {
				code, _, _ := f.call(f.lb, "GET", "/v1/brands?limit=1", key, nil)
				switch {
				case code == 200:
					served.Add(1)
					if killed.Load() {
						afterKill.Add(1)
					}
				default:
					failed.Add(1)
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	victim := f.replicas[1]
	victim.cmd.Process.Kill()
	victim.killed = true
	killedAt := time.Now()
	killed.Store(true)
	wg.Wait()
	t.Logf("load ran %s after the kill", time.Since(killedAt).Round(time.Millisecond))
	used, err := f.admin.Used(k, access.Month, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("under load: %d served (%d after the kill), %d failed (the connections HAProxy had sent to %s before its health check failed), %d counted",
		served.Load(), afterKill.Load(), failed.Load(), victim.name, used)
	if used < served.Load() {
		t.Errorf("%d calls served but %d counted: a served call went uncounted", served.Load(), used)
	}
	if afterKill.Load() == 0 {
		t.Error("nothing was served after the kill: HAProxy did not route around the dead replica")
	}
	// The survivors are healthy; HAProxy has marked the victim down.
	for range 10 {
		if code, _, b := f.call(f.lb, "GET", "/v1/brands?limit=1", key, nil); code != 200 {
			t.Errorf("after the kill settled: %d %s", code, b)
		}
	}
}

// redisOutage: while Redis is stopped every keyed call through HAProxy is a
// 503 with Retry-After; restarted, the fleet serves again and the counts
// made before are intact.
func (f *fleet) redisOutage(t *testing.T) {
	key, k := f.key(access.PlanApify)
	for range 5 {
		if code, _, b := f.call(f.lb, "GET", "/v1/brands?limit=1", key, nil); code != 200 {
			t.Fatalf("before the outage: %d %s", code, b)
		}
	}
	f.redis.Stop()
	// Every replica's /readyz turns 503 (its background PING fails), so
	// HAProxy's checks take all three out of the ready backend.
	f.waitStates(t, "all", "DOWN")
	codes := map[int]int{}
	for range 12 {
		code, h, _ := f.call(f.lb, "GET", "/v1/brands?limit=1", key, nil)
		codes[code]++
		if code == 503 && h.Get("Retry-After") == "" {
			t.Error("a 503 without Retry-After")
		}
	}
	if codes[503] != 12 {
		t.Errorf("with Redis stopped: %v, want only 503", codes)
	}
	f.redis.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for try := 0; ; try++ {
		code, _, b := f.call(f.lb, "GET", "/v1/brands?limit=1", key, nil)
		if code == 200 {
			break
		}
		if code != 503 || try == 200 || time.Now().After(deadline) {
			t.Fatalf("after the restart: %d %s", code, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if used, err := f.admin.Used(k, access.Month, time.Now()); err != nil || used != 6 {
		t.Errorf("after the restart %d counted (%v), want 6: 5 before the outage, 1 after", used, err)
	}
	f.waitStates(t, "all", "UP")
}

// waitStates waits until HAProxy's health checks put every replica of
// backend that was not killed in state (UP or DOWN), read from its stats
// socket: at most 10 s, polled every 50 ms.
func (f *fleet) waitStates(t *testing.T, backend, state string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		states, err := f.states(backend)
		all := err == nil
		for _, r := range f.replicas {
			if !r.killed && !strings.HasPrefix(states[r.name], state) {
				all = false
			}
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %s: %v (%v), want every replica %s", backend, states, err, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// states returns the state of each server of backend (UP, DOWN, UP 1/2,
// …) from HAProxy's "show stat".
func (f *fleet) states(backend string) (map[string]string, error) {
	c, err := net.DialTimeout("unix", f.stats, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "show stat\n"); err != nil {
		return nil, err
	}
	out, err := io.ReadAll(c)
	if err != nil {
		return nil, err
	}
	states := map[string]string{}
	status := -1
	for _, line := range strings.Split(string(out), "\n") {
		cols := strings.Split(line, ",")
		if strings.HasPrefix(line, "# ") {
			for i, c := range cols {
				if c == "status" {
					status = i
				}
			}
			continue
		}
		if status < 0 || len(cols) <= status || cols[0] != backend || cols[1] == "BACKEND" || cols[1] == "FRONTEND" {
			continue
		}
		states[cols[1]] = cols[status]
	}
	return states, nil
}
