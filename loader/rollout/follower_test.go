package rollout

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRolloutAndRollback: a published snapshot reaches a running follower
// through the notification; pointing back at the previous one rolls back
// from the copy the follower kept, with no download.
func TestRolloutAndRollback(t *testing.T) {
	a, b, hashA, hashB := snapshots(t)
	r := newRig(t, time.Hour) // no polling: the notification must do it
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	p, err := Publish(ctx, r.pointer, r.originDir, b)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash != hashB || p.Previous != hashA || p.Notified != 1 || p.Variants == 0 || p.Identity == "" {
		t.Errorf("Publish: %+v", p)
	}
	r.waitInstalled(hashB)
	fetches := r.origin.fetches.Load()
	if fetches != 2 {
		t.Errorf("%d fetches for two catalogues", fetches)
	}
	p, err = Repoint(ctx, r.pointer, r.originDir, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash != hashA || p.Previous != hashB {
		t.Errorf("Repoint: %+v", p)
	}
	r.waitInstalled(hashA)
	if n := r.origin.fetches.Load(); n != fetches {
		t.Errorf("the rollback fetched %d times, want none (the previous file is kept)", n-fetches)
	}
	// The follower keeps the current and the previous file only.
	files, _ := filepath.Glob(filepath.Join(r.f.o.Dir, "*"))
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	slices.Sort(files)
	want := []string{ObjectName(hashA), ObjectName(hashB)}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("kept %v, want %v", files, want)
	}
}

// TestRolloutByPolling: a change whose notification was lost is picked up
// by polling.
func TestRolloutByPolling(t *testing.T) {
	a, b, hashA, hashB := snapshots(t)
	r := newRig(t, 30*time.Millisecond)
	ctx := context.Background()
	for _, p := range []string{a, b} {
		if err := r.originDir.Store(ctx, mustHash(t, p), p); err != nil {
			t.Fatal(err)
		}
	}
	r.pointer.setSilently(hashA)
	r.run(hashA)
	r.pointer.setSilently(hashB)
	r.waitInstalled(hashB)
}

// TestCorruptFileRefused: a file in the origin that is not what its hash
// names is refused; the follower keeps serving the old catalogue, retries
// with backoff, and installs the file once the origin has it intact.
func TestCorruptFileRefused(t *testing.T) {
	a, b, hashA, hashB := snapshots(t)
	r := newRig(t, time.Hour)
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	good, _ := os.ReadFile(b)
	bad := slices.Clone(good)
	bad[len(bad)/2] ^= 0xff
	target := filepath.Join(string(r.originDir), ObjectName(hashB))
	if err := os.WriteFile(target, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.pointer.Point(ctx, hashB); err != nil {
		t.Fatal(err)
	}
	err := r.waitRefused(3) // the first attempt and two retries
	if !errors.Is(err, ErrHashMismatch) {
		t.Errorf("refused with %v, want a hash mismatch", err)
	}
	if r.f.Current() != hashA {
		t.Errorf("serving %s after a refused rollout, want %s", r.f.Current(), hashA)
	}
	select {
	case h := <-r.installed:
		t.Fatalf("installed %s from a corrupt file", h)
	default:
	}
	if leftovers, _ := filepath.Glob(filepath.Join(r.f.o.Dir, ".fetch-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if err := os.WriteFile(target, good, 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitInstalled(hashB) // on a retry, with no new notification
}

// TestUnloadableFileRefused: a file that is what its hash names but not a
// catalogue (published around Publish's check) is refused at load.
func TestUnloadableFileRefused(t *testing.T) {
	a, _, hashA, _ := snapshots(t)
	r := newRig(t, time.Hour)
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	junk := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(junk, []byte("VCATSNAP but not a snapshot"), 0o644)
	hashJunk := mustHash(t, junk)
	if err := r.originDir.Store(ctx, hashJunk, junk); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.pointer.Point(ctx, hashJunk); err != nil {
		t.Fatal(err)
	}
	if err := r.waitRefused(1); err == nil || errors.Is(err, ErrHashMismatch) {
		t.Errorf("refused with %v, want a load error", err)
	}
	if r.f.Current() != hashA {
		t.Errorf("serving %s, want %s", r.f.Current(), hashA)
	}
	// A pointer that is not a hash is refused before it names a file.
	r.pointer.Point(ctx, "../../etc/passwd")
	if err := r.waitRefused(1); err == nil {
		t.Error("a pointer that is not a hash was not refused")
	}
}

// TestFirstWaits: a replica waits, not ready, until a catalogue is
// published and while the store cannot be read.
func TestFirstWaits(t *testing.T) {
	a, _, hashA, _ := snapshots(t)
	r := newRig(t, 20*time.Millisecond)
	r.pointer.fail(errDown)
	got := make(chan string, 1)
	go func() {
		c, err := r.f.First(context.Background())
		if err != nil {
			got <- err.Error()
			return
		}
		got <- c.Meta.ContentHash
	}()
	time.Sleep(100 * time.Millisecond) // several attempts against the failing store
	select {
	case h := <-got:
		t.Fatalf("First returned %q while the store was down", h)
	default:
	}
	r.pointer.fail(nil)
	if err := r.originDir.Store(context.Background(), hashA, a); err != nil {
		t.Fatal(err)
	}
	r.pointer.setSilently(hashA)
	select {
	case h := <-got:
		if h != hashA {
			t.Fatalf("First: %s, want %s", h, hashA)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("First did not return within 10 s of the publication")
	}
	// First gives up when its context ends.
	r2 := newRig(t, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r2.f.First(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("First with nothing published and an ending context: %v", err)
	}
}

// TestStoreOutageKeepsServing: while the pointer cannot be read the
// follower keeps its catalogue; it follows again afterwards.
func TestStoreOutageKeepsServing(t *testing.T) {
	a, b, hashA, hashB := snapshots(t)
	r := newRig(t, 20*time.Millisecond)
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	if err := r.originDir.Store(ctx, hashB, b); err != nil {
		t.Fatal(err)
	}
	r.pointer.fail(errDown)
	time.Sleep(100 * time.Millisecond)
	if r.f.Current() != hashA {
		t.Fatalf("serving %s during the outage", r.f.Current())
	}
	r.pointer.fail(nil)
	r.pointer.setSilently(hashB)
	r.waitInstalled(hashB)
}

func mustHash(t *testing.T, path string) string {
	t.Helper()
	h, err := FileHash(path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestLostNotification: a publication announced while the follower's
// subscription was down reaches no one; the follower reads the pointer
// each time it subscribes again (or tries to), with no poll (an hour
// here) needed.
func TestLostNotification(t *testing.T) {
	a, b, hashA, hashB := snapshots(t)
	r := newRig(t, time.Hour)
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	r.pointer.disconnect()
	r.waitFor("the subscription to end", func() bool { return r.pointer.subscribers() == 0 })
	p, err := Publish(ctx, r.pointer, r.originDir, b)
	if err != nil {
		t.Fatal(err)
	}
	if p.Notified != 0 {
		t.Fatalf("the announcement reached %d subscribers while disconnected", p.Notified)
	}
	time.Sleep(50 * time.Millisecond) // failed resubscriptions meanwhile
	r.pointer.reconnect()
	r.waitInstalled(hashB)
}

// originServer is an HTTP origin on loopback serving the files of a
// directory origin, as a CDN in front of it would, except for the hashes
// set to stall (headers and the first 64 KiB, then nothing) or to be
// endless (zeros without end). It counts the requests for each hash and
// reports on gone the hash of each stalled or endless request whose
// client went away.
type originServer struct {
	*httptest.Server
	mu       sync.Mutex
	stall    map[string]bool
	endless  map[string]bool
	requests map[string]int
	started  chan string // the hash of each stalled request, once its first bytes are sent
	gone     chan string
}

func newOriginServer(t *testing.T, files Dir) *originServer {
	s := &originServer{stall: map[string]bool{}, endless: map[string]bool{}, requests: map[string]int{},
		started: make(chan string, 16), gone: make(chan string, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hash := strings.TrimSuffix(path.Base(r.URL.Path), ".snap")
		s.mu.Lock()
		s.requests[hash]++
		stall, endless := s.stall[hash], s.endless[hash]
		s.mu.Unlock()
		switch {
		case stall:
			w.Header().Set("Content-Length", strconv.Itoa(1<<20))
			w.Write(make([]byte, 64<<10))
			w.(http.Flusher).Flush()
			s.started <- hash
			<-r.Context().Done()
			s.gone <- hash
		case endless:
			zeros := make([]byte, 32<<10)
			for {
				if _, err := w.Write(zeros); err != nil {
					s.gone <- hash
					return
				}
			}
		default:
			http.ServeFile(w, r, filepath.Join(string(files), path.Base(r.URL.Path)))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *originServer) set(m map[string]bool, hash string, on bool) {
	s.mu.Lock()
	m[hash] = on
	s.mu.Unlock()
}

func (s *originServer) count(hash string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[hash]
}

// httpRig is a rig whose follower fetches over HTTP from an originServer
// in front of its directory origin, with the default timeouts.
func httpRig(t *testing.T, poll time.Duration) (*rig, *originServer) {
	var srv *originServer
	r := newRigOver(t, poll, func(files Dir) Origin {
		srv = newOriginServer(t, files)
		o, err := ParseOrigin(srv.URL, HTTPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	})
	return r, srv
}

// TestRollbackCancelsStalledFetch: while the follower fetches a new
// catalogue from an origin that has stalled, pointing the fleet back
// (a rollback) cancels that fetch at once; the follower is then free to
// follow the next publication.
//
// Reproduction (before): an HTTP origin sending the headers of B.snap and
// then nothing; catalogue publish B, then the rollback catalogue publish
// -hash A and SIGHUP: the replica stayed in the fetch of B, deaf to the
// pointer, until its 10-minute FetchTimeout (28 s observed before the
// attacker gave up).
func TestRollbackCancelsStalledFetch(t *testing.T) {
	a, b, hashA, hashB := snapshots(t)
	r, srv := httpRig(t, time.Hour) // no polling: the notifications must do it
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	srv.set(srv.stall, hashB, true)
	if err := r.originDir.Store(ctx, hashB, b); err != nil {
		t.Fatal(err)
	}
	r.pointer.Point(ctx, hashB)
	select {
	case <-srv.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no fetch of B within 10 s")
	}
	rollback := time.Now()
	r.pointer.Point(ctx, hashA)
	select {
	case h := <-srv.gone:
		t.Logf("the fetch of %s was cancelled %s after the rollback", h[:8], time.Since(rollback).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the stalled fetch of B was still open 5 s after the rollback")
	}
	if r.f.Current() != hashA {
		t.Errorf("serving %s, want %s", r.f.Current(), hashA)
	}
	// Free again: B, served whole now, is installed when published.
	srv.set(srv.stall, hashB, false)
	r.pointer.Point(ctx, hashB)
	r.waitInstalled(hashB)
}

// TestEndlessBodyGivenUp: a hash whose file in the origin is larger than
// a snapshot can be is refused once and then given up: neither polling
// nor backoff fetches it again; a notification (a publication, SIGHUP)
// tries it once more.
//
// Reproduction (before): <hash>.snap in the origin sending zeros without
// end: the follower downloaded 2 GiB + 1 MiB, refused it and downloaded it
// again after each backoff (1 s doubling to 1 min), for ever.
func TestEndlessBodyGivenUp(t *testing.T) {
	saved := maxFile
	maxFile = 1 << 20 // the snapshots here are about 240 KB
	t.Cleanup(func() { maxFile = saved })
	a, _, hashA, _ := snapshots(t)
	r, srv := httpRig(t, 20*time.Millisecond)
	ctx := context.Background()
	r.publishAndRun(a, hashA)
	endless := strings.Repeat("ef", 32)
	srv.set(srv.endless, endless, true)
	r.pointer.Point(ctx, endless)
	if err := r.waitRefused(1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("refused with %v, want ErrTooLarge", err)
	}
	time.Sleep(300 * time.Millisecond) // 15 polls, the backoff (20-80 ms) several times over
	if n := srv.count(endless); n != 1 {
		t.Errorf("the endless file was fetched %d times, want once", n)
	}
	if r.f.Current() != hashA {
		t.Errorf("serving %s, want %s", r.f.Current(), hashA)
	}
	r.f.Check() // what a notification or SIGHUP does
	r.waitRefused(1)
	time.Sleep(100 * time.Millisecond)
	if n := srv.count(endless); n != 2 {
		t.Errorf("after a notification the endless file was fetched %d times in all, want twice", n)
	}
	if tmp, _ := filepath.Glob(filepath.Join(r.f.o.Dir, ".fetch-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
