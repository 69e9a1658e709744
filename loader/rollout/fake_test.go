package rollout

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader/loadertest"
)

// fakePointer is the fleet's pointer in memory, with Redis's pub/sub
// semantics: a notification reaches only the subscriptions open when it
// is sent.
type fakePointer struct {
	mu   sync.Mutex
	hash string
	err  error // Current and Point fail with it while set
	subs map[chan struct{}]bool
	// unsubscribed, while set, ends every subscription and refuses new
	// ones: a lost connection to the server.
	unsubscribed chan struct{}
}

func newFakePointer() *fakePointer { return &fakePointer{subs: map[chan struct{}]bool{}} }

func (p *fakePointer) Current(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hash, p.err
}

func (p *fakePointer) Point(ctx context.Context, hash string) (string, int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return "", 0, p.err
	}
	previous := p.hash
	p.hash = hash
	for ch := range p.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return previous, int64(len(p.subs)), nil
}

// setSilently changes the pointer with no notification, as when pub/sub
// loses the message.
func (p *fakePointer) setSilently(hash string) {
	p.mu.Lock()
	p.hash = hash
	p.mu.Unlock()
}

func (p *fakePointer) fail(err error) {
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
}

// disconnect ends the subscriptions and refuses new ones until
// reconnect.
func (p *fakePointer) disconnect() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unsubscribed = make(chan struct{})
	close(p.unsubscribed)
}

func (p *fakePointer) reconnect() {
	p.mu.Lock()
	p.unsubscribed = nil
	p.mu.Unlock()
}

var errUnsubscribed = errors.New("subscription lost")

func (p *fakePointer) Watch(ctx context.Context, notify func()) error {
	ch := make(chan struct{}, 1)
	p.mu.Lock()
	lost := p.unsubscribed
	if lost != nil {
		p.mu.Unlock()
		return errUnsubscribed
	}
	p.subs[ch] = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.subs, ch)
		p.mu.Unlock()
	}()
	for {
		p.mu.Lock()
		lost := p.unsubscribed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-lost: // nil (blocks) while connected
			return errUnsubscribed
		case <-ch:
			notify()
		case <-time.After(5 * time.Millisecond): // look at lost again
		}
	}
}

func (p *fakePointer) subscribers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.subs)
}

// countingOrigin counts the fetches of an origin.
type countingOrigin struct {
	Origin
	fetches atomic.Int64
}

func (o *countingOrigin) Fetch(ctx context.Context, hash string, w io.Writer) error {
	o.fetches.Add(1)
	return o.Origin.Fetch(ctx, hash, w)
}

var (
	snapOnce  sync.Once
	snapFiles [2][]byte
	snapErr   error
)

// snapshots returns two small catalogues' snapshot files, A and B,
// written into a temporary directory, with their content hashes.
func snapshots(t *testing.T) (a, b string, hashA, hashB string) {
	t.Helper()
	snapOnce.Do(func() {
		for i, seed := range []uint64{2, 5} {
			if snapFiles[i], snapErr = loadertest.Snapshot(gen.Options{Scale: 0.01, Seed: seed}); snapErr != nil {
				return
			}
		}
	})
	if snapErr != nil {
		t.Fatal(snapErr)
	}
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a.snap"), filepath.Join(dir, "b.snap")
	for i, p := range []string{a, b} {
		if err := os.WriteFile(p, snapFiles[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if hashA, err = FileHash(a); err != nil {
		t.Fatal(err)
	}
	if hashB, err = FileHash(b); err != nil {
		t.Fatal(err)
	}
	return a, b, hashA, hashB
}

// rig is a follower of a fake pointer over a directory origin, with short
// waits, recording what it installs and refuses.
type rig struct {
	t         *testing.T
	pointer   *fakePointer
	origin    *countingOrigin
	originDir Dir
	f         *Follower
	installed chan string
	refused   chan error
}

func newRig(t *testing.T, poll time.Duration) *rig {
	t.Helper()
	return newRigOver(t, poll, nil)
}

// newRigOver is newRig fetching from origin instead of the directory
// (which Publish still stores into), when origin is not nil.
func newRigOver(t *testing.T, poll time.Duration, origin func(Dir) Origin) *rig {
	t.Helper()
	r := &rig{t: t, pointer: newFakePointer(), originDir: Dir(t.TempDir()), installed: make(chan string, 16), refused: make(chan error, 64)}
	r.origin = &countingOrigin{Origin: r.originDir}
	if origin != nil {
		r.origin.Origin = origin(r.originDir)
	}
	var err error
	r.f, err = New(Options{Pointer: r.pointer, Origin: r.origin, Dir: filepath.Join(t.TempDir(), "fetched"), Poll: poll,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 80 * time.Millisecond, Logf: t.Logf,
		Refused: func(hash string, err error) {
			select {
			case r.refused <- err:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// publishAndRun publishes the snapshot file first, whose hash is hash, and
// runs the follower on it.
func (r *rig) publishAndRun(first, hash string) {
	r.t.Helper()
	if _, err := Publish(context.Background(), r.pointer, r.originDir, first); err != nil {
		r.t.Fatal(err)
	}
	r.run(hash)
}

// run starts First and Run; it returns when the first catalogue is
// installed (want is its hash).
func (r *rig) run(want string) {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	r.t.Cleanup(func() { cancel(); <-done })
	c, err := r.f.First(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	if c.Meta.ContentHash != want || r.f.Current() != want {
		r.t.Fatalf("First loaded %s (Current %s), want %s", c.Meta.ContentHash, r.f.Current(), want)
	}
	go func() {
		defer close(done)
		r.f.Run(ctx, func(c *engine.Catalogue) { r.installed <- c.Meta.ContentHash })
	}()
	// Subscribed: a notification now reaches the follower.
	r.waitFor("a subscription", func() bool { return r.pointer.subscribers() == 1 })
}

// waitInstalled waits (10 s at most) for the next install, which must be
// want.
func (r *rig) waitInstalled(want string) {
	r.t.Helper()
	select {
	case got := <-r.installed:
		if got != want {
			r.t.Fatalf("installed %s, want %s", got, want)
		}
		// Current follows the install call.
		r.waitFor("Current "+want, func() bool { return r.f.Current() == want })
	case <-time.After(10 * time.Second):
		r.t.Fatalf("%s not installed within 10 s (serving %s)", want, r.f.Current())
	}
}

// waitRefused waits (10 s at most) for n refusals and returns the last.
func (r *rig) waitRefused(n int) error {
	r.t.Helper()
	var err error
	for i := range n {
		select {
		case err = <-r.refused:
		case <-time.After(10 * time.Second):
			r.t.Fatalf("%d refusals within 10 s, want %d", i, n)
		}
	}
	return err
}

// waitFor polls cond every 5 ms for at most 10 s.
func (r *rig) waitFor(what string, cond func() bool) {
	r.t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.t.Fatalf("no %s within 10 s", what)
}

var errDown = errors.New("store down")
