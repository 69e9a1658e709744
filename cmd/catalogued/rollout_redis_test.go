//go:build redis

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vspec/catalogue/bench"
	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
	"github.com/vspec/catalogue/loader/loadertest"
	"github.com/vspec/catalogue/loader/rollout"
)

// The fleet tests need a real redis-server (apt-get install -y
// redis-server) and run with the redis build tag:
//
//	go test -tags redis ./cmd/catalogued -run Fleet
//	go test -tags redis ./cmd/catalogued -run '^$' -bench FleetConvergence -benchtime 5x

// fleet is replicas of the catalogued binary following one redis-server
// and one origin directory, on loopback, and the catalogue CLI that
// publishes to them.
type fleet struct {
	tb       testing.TB
	redis    *redistest.Server
	store    string // the -store URL
	origin   string // the origin directory
	cli      string // the catalogue binary
	pointer  *rollout.Redis
	replicas []*replica
}

// replica is one catalogued process of a fleet.
type replica struct {
	addr   string
	mcp    string // the MCP listener
	cmd    *exec.Cmd
	logs   *logWatcher // standard error
	stdout *logWatcher // the keys printed at first start
}

// newFleet starts redis-server and n replicas following it; none has a
// catalogue yet.
func newFleet(tb testing.TB, n int) *fleet {
	tb.Helper()
	cli := catalogue.build(tb)
	bin := binary(tb)
	dir := tb.TempDir()
	f := &fleet{tb: tb, redis: redistest.Start(tb), origin: filepath.Join(dir, "origin"), cli: cli}
	f.store = "redis://" + f.redis.Addr + "/0"
	opt, err := redisstore.ClientOption(f.store)
	if err != nil {
		tb.Fatal(err)
	}
	f.pointer = rollout.NewRedis(opt, 0)
	tb.Cleanup(f.pointer.Close)
	for i := range n {
		r := &replica{addr: freePort(tb), mcp: freePort(tb)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		r.cmd = exec.CommandContext(ctx, bin, "-listen", r.addr, "-store", f.store, "-origin", f.origin, "-rollout.poll", "1s",
			"-state", filepath.Join(dir, fmt.Sprintf("state%d", i)), "-admin.listen", "", "-mcp.listen", r.mcp,
			"-limits.apify", "1000000000,1000000000,1000000000",
			// What is measured here is the swap; a keyed request refused because
			// the access store was late (503, tested in redis_test.go) would be
			// counted as a failure of it on a busy machine, so the deadline is long.
			"-store.timeout", "5s")
		r.cmd.Env = cleanEnv()
		stderr, _ := r.cmd.StderrPipe()
		stdout, _ := r.cmd.StdoutPipe()
		if err := r.cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		r.logs, r.stdout = watch(stderr), watch(stdout)
		tb.Cleanup(func() {
			r.cmd.Process.Signal(syscall.SIGTERM)
			r.cmd.Wait()
			cancel()
			if tb.Failed() {
				tb.Logf("replica %d log:\n%s", i, r.logs.text())
			}
		})
		f.replicas = append(f.replicas, r)
	}
	return f
}

// snapshot writes a small generated catalogue of seed into dir and
// returns its path and content hash.
func snapshot(tb testing.TB, dir string, seed uint64) (string, string) {
	tb.Helper()
	b, err := loadertest.Snapshot(gen.Options{Scale: 0.01, Seed: seed})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("seed%d.snap", seed))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	hash, err := rollout.FileHash(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, hash
}

// publish runs catalogue publish with args and returns its output and
// whether it succeeded.
func (f *fleet) publish(args ...string) (string, bool) {
	f.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.cli, append([]string{"publish", "-store", f.store, "-origin", f.origin}, args...)...)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// probe answers GET path on r: the status and X-Catalogue-Version.
func (r *replica) probe(path string) (int, string, error) {
	res, err := http.Get("http://" + r.addr + path)
	if err != nil {
		return 0, "", err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header.Get("X-Catalogue-Version"), nil
}

// waitProbe polls /readyz until it answers status (the replica's
// background PING of Redis runs every second): at most 10 s, every 20 ms.
// It returns the last answer.
func (r *replica) waitProbe(status int) (int, string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, version, err := r.probe("/readyz")
		if got == status || time.Now().After(deadline) {
			return got, version, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitServing waits until every replica is ready and serves hash, polling
// every 5 ms for at most limit, and returns how long that took.
func (f *fleet) waitServing(hash string, limit time.Duration) time.Duration {
	f.tb.Helper()
	start := time.Now()
	for _, r := range f.replicas {
		for {
			status, version, err := r.probe("/readyz")
			if err == nil && status == 200 && version == hash {
				break
			}
			if time.Since(start) > limit {
				f.tb.Fatalf("replica %s not serving %s within %s: /readyz %d, version %q, %v", r.addr, hash, limit, status, version, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return time.Since(start)
}

// apifyKey is the full-catalogue key the fleet printed at its first start:
// the replicas share one key store in Redis, so only the first replica to
// find it empty creates and prints the first keys.
func (f *fleet) apifyKey(tb testing.TB) string {
	tb.Helper()
	pattern := regexp.MustCompile(`vsc_apify_[0-9a-f]{48}`)
	for range 600 { // 30 s
		for _, r := range f.replicas {
			if k := pattern.FindString(r.stdout.text()); k != "" {
				return k
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("no replica printed an apify key within 30 s")
	return ""
}

// load is a bounded client: two connections per replica, each sending
// keyed and keyless requests in a loop until stopped (at most 5 minutes
// or 500,000 requests), recording failures and the versions seen.
type load struct {
	stop     chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	requests int
	failures []string
	seen     [][]string // per connection: the versions in the order first seen
}

func startLoad(tb testing.TB, f *fleet) *load {
	l := &load{stop: make(chan struct{})}
	key := f.apifyKey(tb)
	paths := []string{"/v1/brands?limit=5", "/v1/search?q=golf&limit=3", "/v1/health"}
	for _, r := range f.replicas {
		for range 2 {
			conn := len(l.seen)
			l.seen = append(l.seen, nil)
			l.wg.Go(func() {
				loop := bench.KeyedLoop{Client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}},
					Addr: r.addr, Key: key, Paths: paths, Max: 500_000, For: 5 * time.Minute,
					Accept: func(status int, version string) bool { return status == 200 && len(version) == 64 }}
				loop.Run(l.stop, func(a bench.Answer) {
					l.mu.Lock()
					defer l.mu.Unlock()
					l.requests++
					if a.Fail != "" {
						l.failures = append(l.failures, r.addr+a.URI+": "+a.Fail)
					}
					if s := l.seen[conn]; a.Version != "" && (len(s) == 0 || s[len(s)-1] != a.Version) {
						l.seen[conn] = append(s, a.Version)
					}
				})
			})
		}
	}
	return l
}

// end stops the load and checks it: no failed request, and each
// connection saw the catalogues in the order they were published, each
// once: no replica went back to an older one, so every swap was clean.
func (l *load) end(tb testing.TB, published []string) {
	tb.Helper()
	close(l.stop)
	l.wg.Wait()
	if len(l.failures) > 0 {
		tb.Errorf("%d of %d requests failed, the first: %s", len(l.failures), l.requests, l.failures[0])
	}
	for i, s := range l.seen {
		if !isSubsequence(s, published) {
			tb.Errorf("connection %d saw the catalogues %v, not in the order published %v", i, short(s), short(published))
		}
	}
	tb.Logf("%d requests under load, %d failed", l.requests, len(l.failures))
}

func isSubsequence(s, of []string) bool {
	j := 0
	for _, v := range s {
		for j < len(of) && of[j] != v {
			j++
		}
		if j == len(of) {
			return false
		}
		j++
	}
	return true
}

func short(hashes []string) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = h[:12]
	}
	return out
}

// TestFleetRollout: two replicas wait, not ready, for the fleet's first
// catalogue; under load from a bounded client a publication converges on
// both with no failed request, so does a rollback; a file corrupted in the
// origin is refused by catalogue publish and, pointed at anyway, by the
// replicas, which keep serving and take it once the origin has it intact.
func TestFleetRollout(t *testing.T) {
	f := newFleet(t, 2)
	dir := t.TempDir()
	a, hashA := snapshot(t, dir, 2)
	b, hashB := snapshot(t, dir, 5)
	c, hashC := snapshot(t, dir, 7)

	// Nothing published: alive, not ready, the API a 503.
	for _, r := range f.replicas {
		r.logs.waitFor(t, "no catalogue published to the fleet yet", 30*time.Second)
		if status, _, err := r.probe("/readyz"); err != nil || status != 503 {
			t.Errorf("/readyz before the first publication: %d %v", status, err)
		}
		if status, _, err := r.probe("/v1/health"); err != nil || status != 503 {
			t.Errorf("/v1/health before the first publication: %d %v", status, err)
		}
	}
	if out, ok := f.publish(a); !ok || !strings.Contains(out, "published "+a+" as "+hashA) {
		t.Fatalf("publish A:\n%s", out)
	}
	f.waitServing(hashA, time.Minute)
	// The MCP surface names the catalogue too (its listener opens just
	// after the API is ready).
	for _, r := range f.replicas {
		r.logs.waitFor(t, "serving MCP at http://"+r.mcp, 30*time.Second)
		res, err := http.Get("http://" + r.mcp + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if v := res.Header.Get("X-Catalogue-Version"); v != hashA {
			t.Errorf("MCP response (%d): X-Catalogue-Version %q, want %q", res.StatusCode, v, hashA)
		}
	}

	l := startLoad(t, f)
	time.Sleep(300 * time.Millisecond) // some requests on A first

	start := time.Now()
	out, ok := f.publish(b)
	if !ok || !strings.Contains(out, "the fleet moves from "+hashA) || !strings.Contains(out, "-hash "+hashA) {
		t.Fatalf("publish B:\n%s", out)
	}
	published := time.Now()
	f.waitServing(hashB, time.Minute)
	t.Logf("B: catalogue publish took %s; every replica served B %s after it returned (under load)",
		published.Sub(start).Round(time.Millisecond), time.Since(published).Round(time.Millisecond))

	// Rollback: the hash publish printed as the previous one.
	if out, ok := f.publish("-hash", hashA); !ok || !strings.Contains(out, "pointed the fleet at "+hashA) {
		t.Fatalf("rollback to A:\n%s", out)
	}
	published = time.Now()
	f.waitServing(hashA, time.Minute)
	t.Logf("rollback to A: every replica served A %s after catalogue publish returned (under load)", time.Since(published).Round(time.Millisecond))

	// C corrupted in the origin: catalogue publish refuses to point at it.
	good, _ := os.ReadFile(c)
	bad := slices.Clone(good)
	bad[len(bad)/2] ^= 0xff
	target := filepath.Join(f.origin, rollout.ObjectName(hashC))
	if err := os.WriteFile(target, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := f.publish("-hash", hashC); ok || !strings.Contains(out, "content hash mismatch") {
		t.Errorf("publish -hash of a corrupt file: ok=%v\n%s", ok, out)
	}
	// Pointed at it anyway (as when the origin is damaged after a
	// publication): refused by every replica, which keep serving A.
	if _, _, err := f.pointer.Point(context.Background(), hashC); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.replicas {
		r.logs.waitFor(t, "rollout: refused "+hashC+", still serving "+hashA, 30*time.Second)
	}
	for _, r := range f.replicas {
		if status, version, err := r.probe("/readyz"); err != nil || status != 200 || version != hashA {
			t.Errorf("after refusing C: /readyz %d, version %s, %v", status, version, err)
		}
	}
	if !strings.Contains(f.replicas[0].logs.text(), "content hash mismatch") {
		t.Errorf("the refusal does not say why:\n%s", f.replicas[0].logs.text())
	}
	// The origin repaired: the replicas take C on their next retry.
	if err := os.WriteFile(target, good, 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitServing(hashC, time.Minute)
	// SIGHUP on a replica of the fleet reads the pointer; it has no
	// -snapshot to reload.
	f.replicas[0].cmd.Process.Signal(syscall.SIGHUP)
	f.replicas[0].logs.waitFor(t, "SIGHUP: reading the fleet's current catalogue now (serving "+hashC+")", 30*time.Second)
	l.end(t, []string{hashA, hashB, hashA, hashC})
}

// TestFleetRedisRestart: while Redis is down the replicas keep their
// catalogue (every response still carries its version) and are not ready
// (/readyz follows Redis, so a load balancer takes them out); Redis
// restarted leaves them on it, ready again, and the next publication,
// announced on the subscription they opened again, reaches them.
func TestFleetRedisRestart(t *testing.T) {
	f := newFleet(t, 2)
	dir := t.TempDir()
	a, hashA := snapshot(t, dir, 2)
	b, hashB := snapshot(t, dir, 5)
	if out, ok := f.publish(a); !ok {
		t.Fatalf("publish A:\n%s", out)
	}
	f.waitServing(hashA, time.Minute)
	f.redis.Stop()
	for _, r := range f.replicas {
		r.logs.waitFor(t, "rollout: cannot read the fleet's current catalogue, still serving "+hashA, 30*time.Second)
		if status, version, err := r.waitProbe(503); err != nil || status != 503 || version != hashA {
			t.Errorf("with Redis down: /readyz %d, version %s, %v; want 503 with the version", status, version, err)
		}
	}
	if out, ok := f.publish(b); ok || !strings.Contains(out, "cannot") {
		t.Errorf("publish with Redis down succeeded or did not say why:\n%s", out)
	}
	f.redis.Restart()
	for _, r := range f.replicas {
		r.logs.waitFor(t, "rollout: the fleet's current catalogue is readable again", 30*time.Second)
		if status, version, err := r.waitProbe(200); err != nil || status != 200 || version != hashA {
			t.Errorf("after Redis restarted: /readyz %d, version %s, %v", status, version, err)
		}
	}
	// Each replica subscribes again (after its backoff, at most a minute).
	for i := 0; ; i++ {
		n, err := f.redis.NumSub(rollout.DefaultChannel)
		if err == nil && n == len(f.replicas) {
			break
		}
		if i == 1800 {
			t.Fatalf("%d of %d replicas subscribed again within 90 s (%v)", n, len(f.replicas), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, ok := f.publish(b)
	// Redis kept the pointer (append-only file, as in production).
	if !ok || !strings.Contains(out, "the fleet moves from "+hashA+": 2 replicas notified") {
		t.Fatalf("publish B after the restart:\n%s", out)
	}
	f.waitServing(hashB, time.Minute)
}

// BenchmarkFleetConvergence measures a rollout's convergence: from the
// pointer set (what catalogue publish does last) to every replica serving
// the new catalogue, fetched from the origin, verified, loaded and
// swapped in; each iteration publishes a catalogue the replicas have not
// seen. ROLLOUT_SCALE sets the catalogues' scale (default 0.01; 1 is the
// full catalogue). Two replicas, no other load.
func BenchmarkFleetConvergence(b *testing.B) {
	scale := 0.01
	if s := os.Getenv("ROLLOUT_SCALE"); s != "" {
		if _, err := fmt.Sscan(s, &scale); err != nil {
			b.Fatalf("ROLLOUT_SCALE=%q: %v", s, err)
		}
	}
	f := newFleet(b, 2)
	dir := b.TempDir()
	files := map[uint64][2]string{}
	file := func(seed uint64) (string, string) {
		if p, ok := files[seed]; ok {
			return p[0], p[1]
		}
		s, err := loadertest.Snapshot(gen.Options{Scale: scale, Seed: seed})
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("seed%d.snap", seed))
		os.WriteFile(path, s, 0o644)
		hash, _ := rollout.FileHash(path)
		files[seed] = [2]string{path, hash}
		return path, hash
	}
	first, hash := file(1000)
	if out, ok := f.publish(first); !ok {
		b.Fatalf("publish:\n%s", out)
	}
	f.waitServing(hash, 5*time.Minute)
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		path, hash := file(uint64(1001 + i))
		if err := rollout.Dir(f.origin).Store(context.Background(), hash, path); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if _, _, err := f.pointer.Point(context.Background(), hash); err != nil {
			b.Fatal(err)
		}
		f.waitServing(hash, 5*time.Minute)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	// Where the time went, as each replica logged it: fetching and
	// loading, the rest being notification, install and this probe.
	for i, r := range f.replicas {
		for _, line := range strings.Split(r.logs.text(), "\n") {
			if m := regexp.MustCompile(`now serving ([0-9a-f]{12}).*fetched and loaded in ([0-9.]+m?s), installed in ([0-9.]+m?s)`).FindStringSubmatch(line); m != nil {
				b.Logf("replica %d: %s fetched and loaded in %s, installed in %s", i, m[1], m[2], m[3])
			}
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "ms-median")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "ms-max")
}
