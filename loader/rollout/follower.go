package rollout

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader"
)

// Options configures a Follower. Pointer, Origin and Dir are required;
// SetDefaults fills the rest.
type Options struct {
	Pointer Pointer
	Origin  Origin
	// Dir keeps the fetched snapshots: the one served and the one before
	// (a rollback to it needs no download). Created when missing.
	Dir string
	// Poll is how often the pointer is read besides notifications: the
	// longest a replica that missed a notification lags. Default 5 s.
	Poll time.Duration
	// MinBackoff and MaxBackoff bound the wait before a failed rollout is
	// tried again (doubling from the first to the second), and before a
	// lost subscription is opened again. Defaults 1 s and 1 min.
	MinBackoff, MaxBackoff time.Duration
	// FetchTimeout bounds one download. Default 10 min.
	FetchTimeout time.Duration
	// Load reads a verified snapshot file. Default loader.Load.
	Load func(path string) (*engine.Catalogue, error)
	// Logf logs what happens. Default log.Printf.
	Logf func(format string, args ...any)
	// Installed and Refused, when set, are told of each rollout installed
	// (how long fetching and loading took) and each attempt refused.
	Installed func(hash string, took time.Duration)
	Refused   func(hash string, err error)
}

// SetDefaults fills the zero fields of o.
func (o *Options) SetDefaults() {
	if o.Poll <= 0 {
		o.Poll = 5 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(time.Minute, o.MinBackoff)
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 10 * time.Minute
	}
	if o.Load == nil {
		o.Load = loader.Load
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
}

// Follower keeps a replica on the fleet's current catalogue. First gets
// the catalogue to start with; Run then follows the pointer and installs
// each new catalogue, keeping the one served when a new one cannot be
// fetched, verified or loaded.
type Follower struct {
	o       Options
	wake    chan struct{}
	current atomic.Pointer[string] // hash served; set by First and Run only
}

// New returns a follower of o.Pointer, fetching from o.Origin into o.Dir.
// Temporary files a crash left in o.Dir are removed.
func New(o Options) (*Follower, error) {
	if o.Pointer == nil || o.Origin == nil || o.Dir == "" {
		return nil, errors.New("rollout: a pointer, an origin and a directory are required")
	}
	o.SetDefaults()
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the snapshot directory: %w", err)
	}
	stale, _ := filepath.Glob(filepath.Join(o.Dir, ".fetch-*"))
	for _, p := range stale {
		os.Remove(p)
	}
	f := &Follower{o: o, wake: make(chan struct{}, 1)}
	f.current.Store(new(string))
	return f, nil
}

// Current returns the content hash of the catalogue installed last, ""
// before First returned one.
func (f *Follower) Current() string { return *f.current.Load() }

// Check asks the follower to read the pointer now instead of at the next
// poll (SIGHUP, a notification). It never blocks.
func (f *Follower) Check() {
	select {
	case f.wake <- struct{}{}:
	default: // a check is pending already
	}
}

// First returns the fleet's current catalogue, waiting (with backoff and
// Check) until one is published and it has been fetched, verified and
// loaded, or until ctx ends. The replica is not ready before.
func (f *Follower) First(ctx context.Context) (*engine.Catalogue, error) {
	b := backoff{min: f.o.MinBackoff, max: f.o.MaxBackoff}
	waiting := false // for a publication: said once, not every poll
	for {
		hash, err := f.o.Pointer.Current(ctx)
		var wait time.Duration
		switch {
		case err != nil:
			wait = b.next()
			f.o.Logf("rollout: cannot read the fleet's current catalogue, trying again in %s: %v", wait, err)
		case hash == "":
			wait = f.o.Poll
			if !waiting {
				waiting = true
				f.o.Logf("rollout: no catalogue published to the fleet yet (catalogue publish); looking every %s", wait)
			}
		default:
			c, took, err := f.fetchLoadFollowing(ctx, hash)
			switch {
			case err == nil:
				f.current.Store(&hash)
				f.o.Logf("rollout: loaded the fleet's catalogue %s (identity %s) in %s", hash, c.Meta.Identity, took.Round(time.Millisecond))
				if f.o.Installed != nil {
					f.o.Installed(hash, took)
				}
				return c, nil
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case errors.Is(err, errSuperseded):
				f.o.Logf("rollout: %v", err)
				continue
			case errors.Is(err, ErrTooLarge):
				wait = 0 // until a notification or SIGHUP
				f.o.Logf("rollout: cannot start with the fleet's catalogue %s, %s: %v", hash, givenUp, err)
			default:
				wait = b.next()
				f.o.Logf("rollout: cannot start with the fleet's catalogue %s, trying again in %s: %v", hash, wait, err)
			}
			if f.o.Refused != nil {
				f.o.Refused(hash, err)
			}
		}
		var timer <-chan time.Time // nil: wait for a notification or SIGHUP only
		if wait > 0 {
			timer = time.After(wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-f.wake:
		case <-timer:
		}
	}
}

// givenUp says what the follower does about a hash whose file is larger
// than a snapshot can be (ErrTooLarge): the same hash names the same
// bytes, so it is not fetched again by polling or backoff.
const givenUp = "not trying it again until the fleet is pointed elsewhere, a publication is announced or SIGHUP (put the right file in the origin first)"

// Run follows the pointer until ctx ends, calling install with each new
// catalogue (from this goroutine, one at a time). Call it after First.
func (f *Follower) Run(ctx context.Context, install func(*engine.Catalogue)) {
	go f.watch(ctx)
	poll := time.NewTicker(f.o.Poll)
	defer poll.Stop()
	var (
		b         = backoff{min: f.o.MinBackoff, max: f.o.MaxBackoff}
		failed    string           // the hash whose rollout failed last
		retry     <-chan time.Time // when to try failed again
		abandoned string           // the hash given up (ErrTooLarge): tried again only when woken
		readErr   string           // the last pointer read's error, logged once
	)
	for {
		woken := false // by a notification or SIGHUP, not a poll
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
			woken = true
		case <-poll.C:
		case <-retry:
			retry = nil
		}
		want, err := f.o.Pointer.Current(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if err.Error() != readErr { // once per outage, not every poll
				readErr = err.Error()
				f.o.Logf("rollout: cannot read the fleet's current catalogue, still serving %s: %v", f.Current(), err)
			}
			continue
		}
		if readErr != "" {
			readErr = ""
			f.o.Logf("rollout: the fleet's current catalogue is readable again")
		}
		switch {
		case want == "" || want == f.Current():
			failed, retry, abandoned = "", nil, ""
			continue
		case want == failed && retry != nil:
			continue // its backoff has not passed
		case want == abandoned && !woken:
			continue
		}
		if want != failed {
			b.reset()
		}
		abandoned = ""
		c, took, err := f.fetchLoadFollowing(ctx, want)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, errSuperseded):
			f.o.Logf("rollout: %v", err)
			failed, retry = "", nil
			f.Check() // follow the new pointer now
			continue
		case errors.Is(err, ErrTooLarge):
			failed, retry, abandoned = "", nil, want
			f.o.Logf("rollout: refused %s, still serving %s; %s: %v", want, f.Current(), givenUp, err)
		default:
			failed = want
			wait := b.next()
			retry = time.After(wait)
			f.o.Logf("rollout: refused %s, still serving %s; trying again in %s: %v", want, f.Current(), wait, err)
		}
		if err != nil {
			if f.o.Refused != nil {
				f.o.Refused(want, err)
			}
			continue
		}
		previous := f.Current()
		installStart := time.Now()
		install(c)
		f.current.Store(&want)
		failed, retry = "", nil
		f.o.Logf("rollout: now serving %s (identity %s, was %s), fetched and loaded in %s, installed in %s",
			want, c.Meta.Identity, previous, took.Round(time.Millisecond), time.Since(installStart).Round(time.Millisecond))
		if f.o.Installed != nil {
			f.o.Installed(want, took)
		}
		f.prune(want, previous)
	}
}

// watch keeps a subscription to change notifications open, opening it
// again with backoff when it is lost; each (re)subscription checks the
// pointer, as notifications may have been missed meanwhile.
func (f *Follower) watch(ctx context.Context) {
	b := backoff{min: f.o.MinBackoff, max: f.o.MaxBackoff}
	for ctx.Err() == nil {
		f.Check()
		start := time.Now()
		err := f.o.Pointer.Watch(ctx, f.Check)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > f.o.MaxBackoff { // it had worked for a while
			b.reset()
		}
		wait := b.next()
		f.o.Logf("rollout: no change notifications (polling every %s meanwhile), subscribing again in %s: %v", f.o.Poll, wait, err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// errSuperseded: the fleet was pointed at another catalogue while one was
// fetched or loaded; that one is dropped for the new pointer.
var errSuperseded = errors.New("superseded by a newer pointer")

// fetchLoadFollowing is fetchLoad, reading the pointer meanwhile at every
// notification, SIGHUP and poll: when the fleet is pointed elsewhere (a
// rollback while a fetch stalls or crawls), the fetch is cancelled and
// the error wraps errSuperseded, so the follower turns to the new pointer
// at once instead of after the download's deadline.
func (f *Follower) fetchLoadFollowing(ctx context.Context, hash string) (*engine.Catalogue, time.Duration, error) {
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type result struct {
		c    *engine.Catalogue
		took time.Duration
		err  error
	}
	done := make(chan result, 1)
	go func() {
		c, took, err := f.fetchLoad(fctx, hash)
		done <- result{c, took, err}
	}()
	poll := time.NewTicker(f.o.Poll)
	defer poll.Stop()
	for {
		select {
		case r := <-done:
			if cause := context.Cause(fctx); errors.Is(cause, errSuperseded) {
				return nil, r.took, cause // what was loaded meanwhile, if anything, is not served
			}
			return r.c, r.took, r.err
		case <-f.wake:
		case <-poll.C:
		}
		if want, err := f.o.Pointer.Current(ctx); err == nil && want != "" && want != hash && context.Cause(fctx) == nil {
			cancel(fmt.Errorf("the fetch of %s %w: the fleet is pointed at %q now", hash, errSuperseded, want))
		}
	}
}

// fetchLoad fetches the snapshot of hash into Dir (unless an intact copy
// is there already), verifying its hash, and loads it.
func (f *Follower) fetchLoad(ctx context.Context, hash string) (*engine.Catalogue, time.Duration, error) {
	start := time.Now()
	// The pointer is set by operators' tools: it becomes a file name only
	// when it is a hash as Publish writes it.
	if h, err := ParseHash(hash); err != nil || h != hash {
		return nil, 0, fmt.Errorf("the fleet's current catalogue %q is not a content hash in lower-case hex", hash)
	}
	path := filepath.Join(f.o.Dir, ObjectName(hash))
	if got, err := FileHash(path); err != nil || got != hash {
		fctx, cancel := context.WithTimeout(ctx, f.o.FetchTimeout)
		err := f.fetch(fctx, hash, path)
		cancel()
		if err != nil {
			return nil, time.Since(start), err
		}
	}
	c, err := f.o.Load(path)
	if err != nil {
		os.Remove(path)
		return nil, time.Since(start), err
	}
	if c.Meta.ContentHash != hash {
		return nil, time.Since(start), fmt.Errorf("%w: %s loaded as %s", ErrHashMismatch, path, c.Meta.ContentHash)
	}
	return c, time.Since(start), nil
}

// fetch downloads hash from the origin into a temporary file in Dir and
// renames it to path once its hash is verified.
func (f *Follower) fetch(ctx context.Context, hash, path string) error {
	tmp, err := os.CreateTemp(f.o.Dir, ".fetch-*")
	if err != nil {
		return fmt.Errorf("cannot create a file to fetch into: %w", err)
	}
	defer os.Remove(tmp.Name()) // nothing left to remove after the rename
	err = fetchVerified(ctx, f.o.Origin, hash, tmp)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("cannot write %s: %w", tmp.Name(), cerr)
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// prune removes the fetched snapshots other than keep.
func (f *Follower) prune(keep ...string) {
	files, _ := filepath.Glob(filepath.Join(f.o.Dir, "*.snap"))
	for _, p := range files {
		hash := strings.TrimSuffix(filepath.Base(p), ".snap")
		kept := false
		for _, k := range keep {
			kept = kept || hash == k
		}
		if !kept {
			os.Remove(p)
		}
	}
}

// backoff is a doubling wait between min and max.
type backoff struct {
	min, max, last time.Duration
}

func (b *backoff) next() time.Duration {
	b.last = min(max(2*b.last, b.min), b.max)
	return b.last
}

func (b *backoff) reset() { b.last = 0 }
