package access

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/vspec/catalogue/httpd/boltfile"
)

// Plan is what a key's holder bought.
type Plan uint8

// Plans.
const (
	PlanDemo  Plan = 1 // the self-serve tier: the 40-car demo set
	PlanApify Plan = 2 // the paid channel, metered and billed by the platform; raw integer ids
	PlanFree  Plan = 3 // legacy and deprecated: only on keys granted by hand before the tier was removed
)

var planNames = map[Plan]string{PlanDemo: "demo", PlanApify: "apify", PlanFree: "free"}

// String returns the plan's name as the API shows it.
func (p Plan) String() string { return planNames[p] }

// ParsePlan parses a plan name.
func ParsePlan(s string) (Plan, bool) { return named(planNames, s) }

// named returns the value whose name in names is s.
func named[V comparable](names map[V]string, s string) (V, bool) {
	for v, n := range names {
		if n == s {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// State is where a key is in its life.
type State uint8

// Key states.
const (
	StatePending State = 1 // not yet active
	StateActive  State = 2
	StateRevoked State = 3
)

var stateNames = map[State]string{StatePending: "not_yet_active", StateActive: "active", StateRevoked: "revoked"}

// String returns the state's name.
func (s State) String() string { return stateNames[s] }

// Hash is the SHA-256 of a key: what is stored instead of the key.
type Hash [32]byte

// HashKey returns the hash of a key as sent by a client.
func HashKey(key []byte) Hash { return sha256.Sum256(key) }

// String returns the hash in hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Key is a stored key. Records are immutable: a change stores a new record.
type Key struct {
	Hash    Hash
	Plan    Plan
	State   State
	Email   string
	Note    string
	Created time.Time
	Changed time.Time

	usage *Usage // shared by every record of the same key
}

// Usage returns the key's call counter.
func (k *Key) Usage() *Usage { return k.usage }

// ResetsAt returns when the month of now ends: the first instant of the
// next month, UTC.
func ResetsAt(now time.Time) time.Time {
	now = now.UTC()
	return time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// Record is the stored form of a Key, stored under its hash: the names of
// its plan and state, its owner and its dates. The admin API shows it too.
type Record struct {
	Plan    string    `json:"plan"`
	State   string    `json:"state"`
	Email   string    `json:"email,omitempty"`
	Note    string    `json:"note,omitempty"`
	Created time.Time `json:"created"`
	Changed time.Time `json:"changed"`
}

// Record returns the stored form of k.
func (k *Key) Record() Record {
	return Record{Plan: k.Plan.String(), State: k.State.String(), Email: k.Email, Note: k.Note, Created: k.Created, Changed: k.Changed}
}

var bucketKeys = []byte("keys")

// ErrLocked is returned by Open when another process (a running server)
// holds the store.
var ErrLocked = errors.New("the state directory is in use by another process")

// ErrNotFound is returned when no key matches a reference.
var ErrNotFound = errors.New("no such key")

// Store is the durable key store with its in-memory index.
type Store struct {
	db    *bolt.DB
	mu    sync.Mutex // serialises writers
	index atomic.Pointer[map[Hash]*Key]
	now   func() time.Time
	seen  *KeyHashes // the hashes of the keys Lookup found lately
}

// FileName is the store's file within the state directory.
const FileName = "access.db"

// Open opens the store in dir, creating it when dir holds no access.db,
// and loads every key into memory. An access.db that is empty (0 bytes)
// or corrupt is an error naming the file and what to do: a store that
// existed is never replaced by a new one.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create state directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// Only a missing file is a new store: an empty or corrupt one is an
	// error naming it (boltfile), never a fresh store minting new keys.
	db, _, err := boltfile.Open(path, &bolt.Options{Timeout: 500 * time.Millisecond})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("cannot open %s: %w (stop the server, or use its admin listener)", path, ErrLocked)
		}
		return nil, err
	}
	s := &Store{db: db, now: time.Now, seen: NewKeyHashes()}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketKeys)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot initialise %s: %w", path, err)
	}
	index := map[Hash]*Key{}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKeys).ForEach(func(k, v []byte) error {
			key, err := decode(k, v)
			if err != nil {
				return err
			}
			key.usage = &Usage{}
			index[key.Hash] = key
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot load keys from %s: %w", path, err)
	}
	s.index.Store(&index)
	return s, nil
}

func decode(k, v []byte) (*Key, error) {
	if len(k) != len(Hash{}) {
		return nil, fmt.Errorf("key record with a %d-byte hash", len(k))
	}
	var r Record
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("key record %x: %w", k[:4], err)
	}
	var h Hash
	copy(h[:], k)
	return FromRecord(h, r)
}

// FromRecord returns the key of hash h stored as r.
func FromRecord(h Hash, r Record) (*Key, error) {
	key := &Key{Hash: h, Email: r.Email, Note: r.Note, Created: r.Created, Changed: r.Changed}
	var ok bool
	if key.Plan, ok = ParsePlan(r.Plan); !ok {
		return nil, fmt.Errorf("key record %x: unknown plan %q", h[:4], r.Plan)
	}
	if key.State, ok = named(stateNames, r.State); !ok {
		return nil, fmt.Errorf("key record %x: unknown state %q", h[:4], r.State)
	}
	return key, nil
}

// NormalizeEmail is the form an email address is stored in.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Close closes the database file.
func (s *Store) Close() error { return s.db.Close() }

// KeyPrefix starts every key; the plan's name and an underscore follow it.
const KeyPrefix = "vsc_"

// NewKeyText returns a fresh key of a plan: "vsc_<plan>_" and 48 lowercase
// hex digits from the system's random source.
func NewKeyText(p Plan) (string, error) {
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("cannot draw a key: %w", err)
	}
	return KeyPrefix + p.String() + "_" + hex.EncodeToString(raw[:]), nil
}

// Create stores a new key and returns it; the text is never stored.
func (s *Store) Create(p Plan, state State, email, note string) (text string, key *Key, err error) {
	if _, ok := planNames[p]; !ok {
		return "", nil, fmt.Errorf("unknown plan %d", p)
	}
	text, err = NewKeyText(p)
	if err != nil {
		return "", nil, err
	}
	now := s.now().UTC()
	key = &Key{Hash: HashKey([]byte(text)), Plan: p, State: state, Email: NormalizeEmail(email), Note: note, Created: now, Changed: now, usage: &Usage{}}
	if err := s.put(key); err != nil {
		return "", nil, err
	}
	return text, key, nil
}

// SetState changes the state of the key ref names (see Find).
func (s *Store) SetState(ref string, state State) (*Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, err := s.find(ref)
	if err != nil {
		return nil, err
	}
	k := *old
	k.State = state
	k.Changed = s.now().UTC()
	if err := s.putLocked(&k); err != nil {
		return nil, err
	}
	return &k, nil
}

func (s *Store) put(k *Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putLocked(k)
}

// putLocked writes the record durably, then publishes a new index.
func (s *Store) putLocked(k *Key) error {
	v, err := json.Marshal(k.Record())
	if err != nil {
		return err
	}
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketKeys).Put(k.Hash[:], v) }); err != nil {
		return fmt.Errorf("cannot store key: %w", err)
	}
	s.publish(k)
	return nil
}

// Find returns the key a reference names: the key text itself, or at least
// 8 hex digits of the start of its hash.
func (s *Store) Find(ref string) (*Key, error) { return s.find(ref) }

func (s *Store) find(ref string) (*Key, error) {
	idx := *s.index.Load()
	if h, ok := RefHash(ref); ok {
		if k, ok := idx[h]; ok {
			return k, nil
		}
		return nil, ErrNotFound
	}
	keys := make([]*Key, 0, len(idx))
	for _, k := range idx {
		keys = append(keys, k)
	}
	return FindPrefix(keys, ref)
}

// RefHash returns the hash of a reference that is a key's text.
func RefHash(ref string) (Hash, bool) {
	if strings.HasPrefix(ref, KeyPrefix) {
		return HashKey([]byte(ref)), true
	}
	return Hash{}, false
}

// FindPrefix returns the one key of keys whose hash starts with the hex
// digits ref (at least 8).
func FindPrefix(keys []*Key, ref string) (*Key, error) {
	ref = strings.ToLower(ref)
	if len(ref) < 8 {
		return nil, fmt.Errorf("a hash prefix needs at least 8 hex digits, got %q", ref)
	}
	var found *Key
	for _, k := range keys {
		if strings.HasPrefix(k.Hash.String(), ref) {
			if found != nil {
				return nil, fmt.Errorf("hash prefix %q names more than one key", ref)
			}
			found = k
		}
	}
	if found == nil {
		return nil, ErrNotFound
	}
	return found, nil
}

// List returns every key, oldest first.
func (s *Store) List() ([]*Key, error) {
	idx := *s.index.Load()
	out := make([]*Key, 0, len(idx))
	for _, k := range idx {
		out = append(out, k)
	}
	SortKeys(out)
	return out, nil
}

// SortKeys sorts keys oldest first (then by hash).
func SortKeys(keys []*Key) {
	sort.Slice(keys, func(i, j int) bool {
		if !keys[i].Created.Equal(keys[j].Created) {
			return keys[i].Created.Before(keys[j].Created)
		}
		return strings.Compare(keys[i].Hash.String(), keys[j].Hash.String()) < 0
	})
}
