//go:build redis

package redisstore_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/redisstore/redistest"
	"github.com/vspec/catalogue/httpd/state"
	"github.com/vspec/catalogue/httpd/state/statetest"
)

// open connects a store to srv's database db.
func open(t *testing.T, srv *redistest.Server, db int) *redisstore.Store {
	t.Helper()
	// A generous deadline: the machine running the tests is shared and
	// busy; the deadline's effect is tested with Redis down.
	return redistest.Open(t, srv.URL(db), redisstore.Options{Timeout: 2 * time.Second})
}

// startOne starts a redis-server and opens one store on it, closed when
// the test ends.
func startOne(t *testing.T) (*redistest.Server, *redisstore.Store) {
	t.Helper()
	srv := redistest.Start(t)
	s := open(t, srv, 0)
	t.Cleanup(func() { s.Close() })
	return srv, s
}

// TestConformance runs the suite the embedded store passes, each case on
// its own database of one real redis-server.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	var db atomic.Int32
	statetest.Run(t, func(t *testing.T) state.Store {
		n := int(db.Add(1))
		if n > 15 {
			t.Fatal("more cases than Redis databases")
		}
		return open(t, srv, n)
	})
}

// TestRevokeSeenByAnotherReplica: a key cached by one replica (looked up
// through its client-side cache) is seen revoked there within a second of
// a revoke made through another client, as the CLI does.
func TestRevokeSeenByAnotherReplica(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv, 0), open(t, srv, 0)
	defer a.Close()
	defer b.Close()
	text, k := statetest.NewKey(t, a, access.PlanApify)
	for range 3 { // cached now
		if got, err := b.Lookup([]byte(text)); err != nil || got.State != access.StateActive {
			t.Fatalf("before: %+v, %v", got, err)
		}
	}
	if _, err := a.SetState(k.Hash.String()[:8], access.StateRevoked); err != nil {
		t.Fatal(err)
	}
	statetest.WaitRevoked(t, b, text) // on the other replica
}

// TestRedisDownThenRestarted: with Redis stopped every store call fails
// with ErrUnavailable within its deadline (never a key served as unknown
// or a call counted as allowed); restarted, the store reconnects and the
// counts made before are intact (append-only file, fsync always).
func TestRedisDownThenRestarted(t *testing.T) {
	srv, s := startOne(t)
	text, k := statetest.NewKey(t, s, access.PlanApify)
	lim := access.Limits{1000, 1000, 1000}
	for range 17 {
		if _, _, ok, err := s.Reserve(k, time.Now(), &lim); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	srv.Kill()
	if _, err := s.Lookup([]byte(text + "other")); !errors.Is(err, access.ErrUnavailable) {
		t.Errorf("Lookup with Redis down: %v, want ErrUnavailable", err)
	}
	if _, _, ok, err := s.Reserve(k, time.Now(), &lim); ok || !errors.Is(err, access.ErrUnavailable) {
		t.Errorf("Reserve with Redis down: ok %v, %v; want ErrUnavailable", ok, err)
	}
	if ok, _, err := s.NetworkLimiter("paid", 60).Allow("192.0.2.1", time.Now()); ok || !errors.Is(err, access.ErrUnavailable) {
		t.Errorf("Allow with Redis down: ok %v, %v", ok, err)
	}
	from, nonce := [20]byte{1}, [32]byte{2}
	if ok, err := s.Claim(from, nonce, uint64(time.Now().Add(time.Minute).Unix())); ok || !errors.Is(err, access.ErrUnavailable) {
		t.Errorf("Claim with Redis down: ok %v, %v", ok, err)
	}
	srv.Restart()
	// The client reconnects on the next calls: at most 5 s, every 20 ms.
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := s.Used(k, access.Month, time.Now())
		if err == nil {
			if got != 17 {
				t.Fatalf("%d calls counted after a kill -9 and restart of Redis, want 17", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 5 s after the restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, err := s.Lookup([]byte(text)); err != nil || got.Hash != k.Hash {
		t.Errorf("the key after the restart: %v, %v", got, err)
	}
}

// TestSharedSecret: the first replica's secret is every replica's.
func TestSharedSecret(t *testing.T) {
	srv := redistest.Start(t)
	a, b := open(t, srv, 0), open(t, srv, 0)
	defer a.Close()
	defer b.Close()
	sa, err := a.SharedSecret(32)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.SharedSecret(32)
	if err != nil || string(sa) != string(sb) || len(sa) != 64 {
		t.Errorf("secrets %q and %q (%v)", sa, sb, err)
	}
}

// TestWindowsOnServerClock: the windows a call is counted in, computed in
// Lua from Redis' TIME, are the ones Go computes for now.
func TestWindowsOnServerClock(t *testing.T) {
	_, s := startOne(t)
	_, k, _ := s.Create(access.PlanApify, access.StateActive, "", "")
	lim := access.Limits{10, 10, 10}
	before := time.Now()
	tk, _, _, err := s.Reserve(k, time.Now(), &lim)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	got := tk.Windows()
	for w := access.Minute; w <= access.Month; w++ {
		if got[w] != w.Index(before) && got[w] != w.Index(after) {
			t.Errorf("%s window %d, want %d", w, got[w], w.Index(before))
		}
	}
}

// TestWindowLua: the Lua window arithmetic agrees with Go's on month
// ends, leap days and centuries.
func TestWindowLua(t *testing.T) {
	_, s := startOne(t)
	var times []time.Time
	for _, y := range []int{1971, 1999, 2000, 2024, 2025, 2026, 2100, 2104} {
		for m := time.January; m <= time.December; m++ {
			first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			times = append(times, first, first.Add(-time.Second), first.Add(36*time.Hour+17*time.Second))
		}
	}
	for _, at := range times {
		for w := access.Minute; w <= access.Month; w++ {
			id, end, err := redisstore.WindowAt(s, w, at.Unix())
			if err != nil {
				t.Fatal(err)
			}
			if id != int64(w.Index(at)) || end != w.End(at).Unix() {
				t.Errorf("%s of %s: Lua says %d ending %s, Go %d ending %s", w, at, id, time.Unix(end, 0).UTC(), w.Index(at), w.End(at))
			}
		}
	}
}

// TestAuthThroughURL: a Redis that requires a password is reached with
// the password in the -store URL, and refused without it.
func TestAuthThroughURL(t *testing.T) {
	srv := redistest.StartWith(t, redistest.Options{Config: redistest.Config + "requirepass s3cret-pass\n"})
	s, err := redistest.Dial("redis://:s3cret-pass@"+srv.Addr+"/1", redisstore.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("with the password: %v", err)
	}
	defer s.Close()
	if _, _, err := s.Create(access.PlanDemo, access.StateActive, "", ""); err != nil {
		t.Error(err)
	}
	if s2, err := redistest.Dial("redis://"+srv.Addr+"/1", redisstore.Options{Timeout: 2 * time.Second}); err == nil {
		s2.Close()
		t.Error("connected without the password")
	}
}

// TestMeterAcrossWindows: the metering script, fed a clock that crosses
// minutes, days, month ends (a leap February and a year end included) and
// goes back, counts in the windows Go computes for each second and
// restarts each count when its window changes, as one counter per window
// would; the month's bounds it keeps in the hash are redone when the
// clock leaves them, and the hash expires an hour after the month ends.
// (Dates in the future: an expiry in the past would delete the hash.)
func TestMeterAcrossWindows(t *testing.T) {
	_, s := startOne(t)
	_, k := statetest.NewKey(t, s, access.PlanApify)
	lim := access.Limits{1000, 1000, 1000}
	at := func(y int, m time.Month, d, hh, mm, ss int) time.Time {
		return time.Date(y, m, d, hh, mm, ss, 0, time.UTC)
	}
	times := []time.Time{
		at(2096, 2, 28, 23, 59, 10), at(2096, 2, 28, 23, 59, 50), at(2096, 2, 29, 0, 0, 0), at(2096, 2, 29, 23, 59, 59),
		at(2096, 3, 1, 0, 0, 0), at(2096, 3, 1, 0, 0, 1), at(2096, 2, 29, 12, 0, 0), // the clock goes back a day
		at(2096, 3, 31, 23, 59, 59), at(2096, 12, 31, 23, 59, 59), at(2097, 1, 1, 0, 0, 0), at(2097, 1, 1, 0, 0, 30),
		at(2097, 1, 1, 0, 1, 0), at(2097, 1, 31, 23, 0, 0),
	}
	var last [access.NumWindows]uint32
	var count [access.NumWindows]int64
	for i, now := range times {
		tk, _, ok, err := redisstore.ReserveAt(s, k, now.Unix(), &lim)
		if err != nil || !ok {
			t.Fatalf("%s: ok %v, %v", now, ok, err)
		}
		for w := access.Minute; w <= access.Month; w++ {
			id := w.Index(now)
			if i == 0 || id != last[w] {
				count[w] = 0
			}
			last[w] = id
			count[w]++
			if got := tk.Windows()[w]; got != id || tk.Used[w] != count[w] {
				t.Errorf("%s: %s window %d count %d, want %d count %d", now, w, got, tk.Used[w], id, count[w])
			}
		}
		exp, err := redisstore.UsageExpiry(s, k)
		if want := access.Month.End(now).Add(time.Hour).UnixMilli(); err != nil || exp != want {
			t.Errorf("%s: the windows expire at %d (%v), want %d", now, exp, err, want)
		}
	}
	// A full window counts nothing, whichever it is.
	for w, l := range []access.Limits{{1, 1000, 1000}, {1000, 1, 1000}, {1000, 1000, 1}} {
		_, k, _ := s.Create(access.PlanApify, access.StateActive, "", "")
		now := at(2097, 6, 30, 23, 59, 59).Unix()
		if _, _, ok, err := redisstore.ReserveAt(s, k, now, &l); !ok || err != nil {
			t.Fatalf("first call: %v %v", ok, err)
		}
		if _, full, ok, err := redisstore.ReserveAt(s, k, now, &l); ok || err != nil || full != access.Window(w) {
			t.Errorf("limits %v, second call: ok %v, full %s, %v", l, ok, full, err)
		}
	}
}

// TestReachable: the store's background PING sees Redis stopped (an error
// wrapping ErrUnavailable) and restarted (nil again), with no call made by
// the test meanwhile; the probe's result is read without a round trip.
func TestReachable(t *testing.T) {
	srv := redistest.Start(t)
	s := redistest.Open(t, srv.URL(0), redisstore.Options{Timeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
	defer s.Close()
	if err := s.Reachable(); err != nil {
		t.Fatalf("reachable at start: %v", err)
	}
	// wait polls Reachable until it agrees with want: at most 10 s, every
	// 10 ms.
	wait := func(want bool) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := s.Reachable()
			if (err == nil) == want || time.Now().After(deadline) {
				return err
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	srv.Stop()
	if err := wait(false); !errors.Is(err, access.ErrUnavailable) {
		t.Fatalf("Redis stopped: Reachable says %v, want ErrUnavailable", err)
	}
	srv.Restart()
	if err := wait(true); err != nil {
		t.Fatalf("Redis restarted: Reachable still says %v", err)
	}
	srv.Kill()
	if err := wait(false); err == nil {
		t.Fatal("Redis killed: still reachable")
	}
	srv.Restart()
	if err := wait(true); err != nil {
		t.Fatalf("Redis restarted after a kill: %v", err)
	}
}

// TestTLSThroughURL: a Redis that listens with TLS only (and requires a
// password) is reached with rediss:// and the authority of its certificate
// in ca=; without ca= (the system's authorities), with another authority,
// or without TLS the connection is refused, and no error shows the
// password.
func TestTLSThroughURL(t *testing.T) {
	files := redistest.NewTLS(t)
	srv := redistest.StartWith(t, redistest.Options{Config: redistest.Config + "requirepass s3cret-pass\n", TLS: files})
	base := "rediss://:s3cret-pass@" + srv.Addr + "/1"
	s, err := redistest.Dial(base+"?ca="+files.CA, redisstore.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("with TLS and its authority: %v", err)
	}
	defer s.Close()
	text, k := statetest.NewKey(t, s, access.PlanApify)
	if got, err := s.Lookup([]byte(text)); err != nil || got.Hash != k.Hash {
		t.Fatalf("lookup over TLS: %v %v", got, err)
	}
	lim := access.Limits{10, 10, 10}
	if _, _, ok, err := s.Reserve(k, time.Now(), &lim); !ok || err != nil {
		t.Fatalf("reserve over TLS: %v %v", ok, err)
	}
	if n, err := s.Used(k, access.Month, time.Now()); n != 1 || err != nil {
		t.Errorf("used over TLS: %d %v", n, err)
	}
	other := redistest.NewTLS(t)
	for _, url := range []string{base, base + "?ca=" + other.CA, "redis://:s3cret-pass@" + srv.Addr + "/1"} {
		s2, err := redistest.Dial(url, redisstore.Options{Timeout: time.Second})
		if err == nil {
			s2.Close()
		}
		switch {
		case err == nil:
			t.Errorf("%s: connected", redisstore.RedactedURL(url))
		case strings.Contains(err.Error(), "s3cret-pass"):
			t.Errorf("%s: the error shows the password: %v", redisstore.RedactedURL(url), err)
		default:
			t.Logf("%s: refused: %v", redisstore.RedactedURL(url), err)
		}
	}
}

// TestClusterRefused: a Redis Cluster node is refused at Open with an
// error saying so (the scripts write keys of several hash slots).
func TestClusterRefused(t *testing.T) {
	srv := redistest.StartWith(t, redistest.Options{Config: redistest.Config + "cluster-enabled yes\n"})
	s, err := redistest.Dial(srv.URL(0), redisstore.Options{Timeout: 2 * time.Second})
	if err == nil {
		s.Close()
		t.Fatal("a Redis Cluster node was accepted")
	}
	if !strings.Contains(err.Error(), "Redis Cluster") {
		t.Errorf("the error does not say why: %v", err)
	}
}
