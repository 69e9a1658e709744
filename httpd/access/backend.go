package access

import (
	"errors"
	"time"
)

// Backend is where the access state lives: the keys, their metering
// windows, the per-network windows and the self-service demo key flow.
// There are two: the embedded bbolt Store (one process, the default) and
// the Redis store of package redisstore (a fleet of replicas sharing one
// Redis). The payment state of package x402 is the other half of the
// access state; package state joins the two.
//
// Every method that returns an error may fail because the store is
// unreachable or slow; such an error wraps ErrUnavailable and the caller
// refuses the request with 503 rather than serve it unchecked or
// uncounted.
type Backend interface {
	// Lookup returns the key a client sent; ErrNotFound when none matches.
	// It is on every keyed request's path: the bbolt store answers from
	// memory, the Redis store from a cache its server invalidates.
	Lookup(key []byte) (*Key, error)
	// Reserve counts one call of k at now in all three windows against
	// limits, atomically: when a window is full it counts nothing and
	// returns ok false and the full window.
	Reserve(k *Key, now time.Time, limits *Limits) (t Ticket, full Window, ok bool, err error)
	// Used returns the calls of k counted in the window w of now.
	Used(k *Key, w Window, now time.Time) (int64, error)
	// NetworkLimiter returns the per-minute window of the networks of a
	// scope (one name per caller kind: "paid", "mcp"), shared by every
	// process of the store.
	NetworkLimiter(scope string, perMinute int64) NetworkCounter

	// Create stores a new key and returns it; the text is never stored.
	Create(p Plan, state State, email, note string) (text string, key *Key, err error)
	// SetState changes the state of the key ref names (see Find).
	SetState(ref string, state State) (*Key, error)
	// Find returns the key a reference names: the key text itself, or at
	// least 8 hex digits of the start of its hash.
	Find(ref string) (*Key, error)
	// List returns every key, oldest first.
	List() ([]*Key, error)

	// RecordDemoRequest stores a demo key request under its activation
	// token's hash, unless a key was issued to the address
	// (ErrKeyIssued) or the network made perDay requests today
	// (ErrTooManyToday, nothing counted).
	RecordDemoRequest(tokenHash [32]byte, r DemoRequest, perDay int) error
	// WithdrawDemoRequest deletes a request whose mail could not be sent
	// and gives its network's count back.
	WithdrawDemoRequest(tokenHash [32]byte) error
	// RedeemDemoToken burns an activation token and mints its demo key:
	// of any number of concurrent redemptions exactly one gets the key.
	// ErrTokenUnusable, ErrTokenUsed (with the request) or ErrKeyIssued
	// otherwise.
	RedeemDemoToken(tokenHash [32]byte, now time.Time, ttl time.Duration) (text string, key *Key, req DemoRequest, err error)
	// PeekDemoToken reports what RedeemDemoToken would answer at now,
	// changing nothing (an opened link is not a confirmed one): the
	// pending request, or ErrTokenUnusable, ErrTokenUsed (with the
	// request) or ErrKeyIssued.
	PeekDemoToken(tokenHash [32]byte, now time.Time, ttl time.Duration) (DemoRequest, error)

	// Close releases the store.
	Close() error
}

// NetworkCounter limits calls per network per minute (see
// NetworkLimiter).
type NetworkCounter interface {
	// Allow counts one call of network at now; when the network has used
	// its minute it counts nothing and returns false with the time until
	// the minute ends.
	Allow(network string, now time.Time) (ok bool, wait time.Duration, err error)
	// Limit returns the calls allowed per network per minute.
	Limit() int64
}

// ErrUnavailable is wrapped by the errors of a store that cannot be
// reached in time: the request is refused with 503 and Retry-After.
var ErrUnavailable = errors.New("the access store is unavailable")

// releaser takes back a reservation of a shared store (see Ticket).
type releaser interface {
	release(t Ticket) // by value: a pointer would move every Ticket to the heap
}

// NewTicket returns a reservation of a store outside this package:
// counts are the windows' counts with this call, wins the numbers of the
// windows it was counted in, and rel what Release calls.
func NewTicket(k *Key, wins [NumWindows]uint32, counts [NumWindows]int64, rel func(k *Key, wins [NumWindows]uint32)) Ticket {
	return Ticket{key: k, wins: wins, Used: counts, rel: funcReleaser(rel)}
}

type funcReleaser func(k *Key, wins [NumWindows]uint32)

func (f funcReleaser) release(t Ticket) { f(t.key, t.wins) }

// Lookup returns the stored key a client sent, without touching the disk.
func (s *Store) Lookup(key []byte) (*Key, error) {
	return s.seen.Find(key, s.byHash)
}

// byHash returns the stored key of a hash.
func (s *Store) byHash(h Hash) (*Key, error) {
	k, ok := (*s.index.Load())[h]
	if !ok {
		return nil, ErrNotFound
	}
	return k, nil
}

// Reserve counts one call on the key's in-memory counters (see
// Usage.Reserve); the meter persists them.
func (s *Store) Reserve(k *Key, now time.Time, limits *Limits) (Ticket, Window, bool, error) {
	t, full, ok := k.usage.Reserve(now, limits)
	return t, full, ok, nil
}

// Used returns the calls of k counted in the window w of now.
func (s *Store) Used(k *Key, w Window, now time.Time) (int64, error) {
	return k.usage.Used(w, now), nil
}

// NetworkLimiter returns an in-memory limiter: one process has all the
// traffic of its networks.
func (s *Store) NetworkLimiter(scope string, perMinute int64) NetworkCounter {
	return NewNetworkLimiter(perMinute)
}

var _ Backend = (*Store)(nil)
