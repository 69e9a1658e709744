//go:build cluster

package cluster_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vspec/catalogue/bench"
	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/loader/loadertest"
	"github.com/vspec/catalogue/loader/rollout"
)

// snapshotRollout: under load through HAProxy, catalogue publish of a
// second catalogue B converges on all three replicas (each asked
// directly, then through HAProxy) with no failed request and no
// connection seeing B then A; a rollback to A with publish -hash converges
// the same way. The convergence is timed from the pointer being set (its
// notification, received by the test's own subscription) to the last
// replica answering /readyz with the new X-Catalogue-Version.
func (f *fleet) snapshotRollout(t *testing.T) {
	b, err := loadertest.Snapshot(gen.Options{Scale: 0.01, Seed: 5}) // A is seed 2
	if err != nil {
		t.Fatal(err)
	}
	fileB := filepath.Join(f.dir, "b.snap")
	if err := os.WriteFile(fileB, b, 0o644); err != nil {
		t.Fatal(err)
	}
	hashA := f.first
	hashB, err := rollout.FileHash(fileB)
	if err != nil {
		t.Fatal(err)
	}
	if hashA == hashB {
		t.Fatal("A and B are the same file")
	}
	// Every replica serves A before the rollout.
	if took := f.converge(t, hashA, time.Now(), "the check began"); took < 0 {
		return
	}
	pointed := f.watchPointer(t)
	key, _ := f.key(access.PlanFree)

	took := f.rolloutUnderLoad(t, key, hashA, hashB, pointed, func() error {
		out, err := f.publish(fileB)
		if err != nil || !strings.Contains(out, "published "+fileB+" as "+hashB) || !strings.Contains(out, "the fleet moves from "+hashA) {
			return fmt.Errorf("catalogue publish B: %v\n%s", err, out)
		}
		return nil
	})
	if took >= 0 {
		t.Logf("rollout A -> B converged on the three replicas %s after the pointer was set", took.Round(time.Millisecond))
	}

	took = f.rolloutUnderLoad(t, key, hashB, hashA, pointed, func() error {
		out, err := f.publish("-hash", hashA)
		if err != nil || !strings.Contains(out, "pointed the fleet at "+hashA) {
			return fmt.Errorf("catalogue publish -hash A (rollback): %v\n%s", err, out)
		}
		return nil
	})
	if took >= 0 {
		t.Logf("rollback B -> A converged on the three replicas %s after the pointer was set", took.Round(time.Millisecond))
	}
}

// watchPointer subscribes to the fleet's rollout channel, as a replica
// does, and returns when each notification arrived: the moment the
// pointer was set (SET and PUBLISH run in one script), give or take a
// loopback round trip. It returns once the subscription is registered.
func (f *fleet) watchPointer(t *testing.T) <-chan time.Time {
	co, err := redisstore.ClientOption(f.url)
	if err != nil {
		t.Fatal(err)
	}
	w := rollout.NewRedis(co, 0)
	ctx, cancel := context.WithCancel(context.Background())
	pointed := make(chan time.Time, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Watch(ctx, func() {
			select {
			case pointed <- time.Now():
			default:
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done; w.Close() })
	// Subscribed: the three replicas and this watcher; at most 10 s.
	for i := 0; ; i++ {
		n, err := f.redis.NumSub(rollout.DefaultChannel)
		if err == nil && n == len(f.replicas)+1 {
			return pointed
		}
		if i == 200 {
			t.Fatalf("%d subscribers to %s after 10 s (%v), want %d", n, rollout.DefaultChannel, err, len(f.replicas)+1)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rolloutUnderLoad runs publish (which moves the fleet from one catalogue
// to another) under load through HAProxy, waits for every replica to
// serve to, checks the load saw no failure and no connection going back
// from to to from, and returns the convergence time.
func (f *fleet) rolloutUnderLoad(t *testing.T, key, from, to string, pointed <-chan time.Time, publish func() error) time.Duration {
	t.Helper()
	l := f.startRolloutLoad(key, from, to)
	time.Sleep(300 * time.Millisecond) // requests on the old catalogue first
	if err := publish(); err != nil {
		l.end()
		t.Fatal(err)
	}
	var at time.Time
	select {
	case at = <-pointed:
	case <-time.After(5 * time.Second):
		l.end()
		t.Fatal("no notification of the new pointer within 5 s of catalogue publish returning")
	}
	took := f.converge(t, to, at, "the pointer was set")
	time.Sleep(300 * time.Millisecond) // requests on the new catalogue, through HAProxy
	l.end()
	l.check(t, from, to)
	return took
}

// converge waits until every replica, asked directly, answers /readyz 200
// with X-Catalogue-Version hash (each polled every 5 ms, for at most a
// minute) and returns how long after since (which is when label) the
// last one did; then checks
// that HAProxy's frontends answer with hash too: two rounds of the round
// robin and each replica's own frontend. It returns -1 after a failure.
func (f *fleet) converge(t *testing.T, hash string, since time.Time, label string) time.Duration {
	t.Helper()
	served := make([]time.Time, len(f.replicas))
	last := make([]string, len(f.replicas))
	var wg sync.WaitGroup
	for i, r := range f.replicas {
		wg.Go(func() {
			deadline := time.Now().Add(time.Minute)
			for n := 0; n < 12_000 && time.Now().Before(deadline); n++ {
				code, h, body := f.call(r.addr, "GET", "/readyz", "", nil)
				if code == 200 && h.Get("X-Catalogue-Version") == hash {
					served[i] = time.Now()
					return
				}
				last[i] = fmt.Sprintf("%d, version %q: %.200s", code, h.Get("X-Catalogue-Version"), body)
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	var latest time.Time
	for i, s := range served {
		if s.IsZero() {
			t.Errorf("replica %s does not serve %s within a minute: last /readyz %s", f.replicas[i].name, hash[:12], last[i])
			return -1
		}
		t.Logf("replica %s serves %s %s after %s", f.replicas[i].name, hash[:12], s.Sub(since).Round(time.Millisecond), label)
		if s.After(latest) {
			latest = s
		}
	}
	for _, fe := range append([]string{f.lb, f.lb, f.lb, f.lb, f.lb, f.lb}, f.direct...) {
		if code, h, body := f.call(fe, "GET", "/v1/health", "", nil); code != 200 || h.Get("X-Catalogue-Version") != hash {
			t.Errorf("through HAProxy %s after convergence: %d, version %q, want %s: %.200s", fe, code, h.Get("X-Catalogue-Version"), hash[:12], body)
			return -1
		}
	}
	return latest.Sub(since)
}

// rolloutLoad is a bounded client through HAProxy: 6 goroutines, each
// with one keep-alive connection at a time from an address of its own
// (so HAProxy, in TCP mode, keeps each connection on one replica), sending
// keyed requests until stopped (at most 2 minutes or 100,000 requests
// each). It counts every response and records, per TCP connection, the
// catalogue versions in the order first seen.
type rolloutLoad struct {
	stop chan struct{}
	wg   sync.WaitGroup

	mu        sync.Mutex
	requests  int
	failed    int             // non-2xx answers, transport errors, missing or unknown versions
	failures  []string        // the first few
	versions  map[string]int  // responses per X-Catalogue-Version
	conns     [][]string      // per connection: the versions in the order first seen
	reconnect int             // connections opened after a goroutine's first
	processes map[string]bool // the X-Request-Id prefixes seen: one per replica process
}

func (f *fleet) startRolloutLoad(key, from, to string) *rolloutLoad {
	l := &rolloutLoad{stop: make(chan struct{}), versions: map[string]int{}, processes: map[string]bool{}}
	paths := []string{"/v1/brands?limit=5", "/v1/search?q=golf&limit=3", "/v1/health"}
	for range 6 {
		src := f.nextSource()
		l.wg.Go(func() {
			tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1,
				DialContext: (&net.Dialer{LocalAddr: src, Timeout: 2 * time.Second}).DialContext}
			defer tr.CloseIdleConnections()
			conn := -1 // this goroutine's current connection in l.conns
			trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
				if conn < 0 || !info.Reused {
					l.mu.Lock()
					if conn >= 0 {
						l.reconnect++
					}
					conn = len(l.conns)
					l.conns = append(l.conns, nil)
					l.mu.Unlock()
				}
			}}
			loop := bench.KeyedLoop{Client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Ctx: httptrace.WithClientTrace(context.Background(), trace),
				Addr: f.lb, Key: key, Paths: paths, Max: 100_000, For: 2 * time.Minute,
				Accept: func(status int, version string) bool { return status/100 == 2 && (version == from || version == to) }}
			loop.Run(l.stop, func(a bench.Answer) {
				process := ""
				if id := a.Header.Get("X-Request-Id"); len(id) >= 8 {
					process = id[:8]
				}
				l.mu.Lock()
				defer l.mu.Unlock()
				l.requests++
				if process != "" {
					l.processes[process] = true
				}
				if a.Fail != "" {
					l.failed++
					if len(l.failures) < 5 {
						l.failures = append(l.failures, a.URI+": "+a.Fail)
					}
				} else {
					l.versions[a.Version]++
					if conn >= 0 {
						if s := l.conns[conn]; len(s) == 0 || s[len(s)-1] != a.Version {
							l.conns[conn] = append(s, a.Version)
						}
					}
				}
			})
		})
	}
	return l
}

func (l *rolloutLoad) end() {
	close(l.stop)
	l.wg.Wait()
}

// check: no request failed, both catalogues were served during the load,
// and every connection saw from, then to, or one of them: never to then
// from, which would be a replica swapping back or a half-done swap.
func (l *rolloutLoad) check(t *testing.T, from, to string) {
	t.Helper()
	t.Logf("through HAProxy during the rollout %s -> %s: %d requests, %d failed, %d answered from %s and %d from %s, on %d connections (%d reopened)",
		from[:12], to[:12], l.requests, l.failed, l.versions[from], from[:12], l.versions[to], to[:12], len(l.conns), l.reconnect)
	if l.failed > 0 {
		t.Errorf("%d of %d requests failed during the rollout; the first: %s", l.failed, l.requests, strings.Join(l.failures, "; "))
	}
	if len(l.processes) != 3 {
		t.Errorf("the load was answered by %d replica processes, want 3 (round robin)", len(l.processes))
	}
	if l.versions[from] == 0 || l.versions[to] == 0 {
		t.Errorf("the load did not span the rollout: %d answered from the old catalogue, %d from the new", l.versions[from], l.versions[to])
	}
	// A connection that saw both catalogues saw its replica swap mid-
	// connection: the case the order check is about.
	swapped := 0
	for i, s := range l.conns {
		if len(s) == 2 && s[0] == from && s[1] == to {
			swapped++
		}
		if len(s) > 2 || (len(s) == 2 && (s[0] != from || s[1] != to)) || (len(s) == 1 && s[0] != from && s[0] != to) {
			short := make([]string, len(s))
			for j, v := range s {
				short[j] = v[:12]
			}
			t.Errorf("connection %d saw the catalogues %v in that order, during a rollout from %s to %s", i, short, from[:12], to[:12])
		}
	}
	t.Logf("%d of %d connections saw their replica swap from %s to %s", swapped, len(l.conns), from[:12], to[:12])
	if swapped == 0 {
		t.Error("no connection lasted across a swap: the order of catalogues a connection sees was not tested")
	}
}
