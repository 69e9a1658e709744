package x402

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/vspec/catalogue/httpd/boltfile"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Ledger is the payment half of the access state: the authorizations
// accepted, the built-in facilitator's receipts and the payments of
// unknown outcome. Store keeps it in a bbolt file for one process; package
// redisstore keeps it in Redis for a fleet. Every method may fail when the
// store cannot be reached; a paid call is then refused, never served
// unpaid.
type Ledger interface {
	// Claim records the authorization (from, nonce), kept at least until
	// validBefore (Unix seconds) has passed, and reports whether it was
	// new: of any number of concurrent claims exactly one is.
	Claim(from eip3009.Address, nonce [32]byte, validBefore uint64) (bool, error)
	// AddReceipt stores a receipt under its authorization unless one is
	// there; it reports whether it stored it.
	AddReceipt(from eip3009.Address, nonce [32]byte, r Receipt) (bool, error)
	// Settled reports whether an authorization has a receipt.
	Settled(from eip3009.Address, nonce [32]byte) (bool, error)
	// Receipts returns every receipt of the built-in facilitator.
	Receipts() ([]Receipt, error)
	// RecordUnknown records a payment whose settlement has no clear
	// outcome; one already recorded under the reference is kept.
	RecordUnknown(r PaymentRecord) error
	// Records returns the recorded payments, oldest first: those still
	// unknown, or with all every one.
	Records(all bool) ([]PaymentRecord, error)
	// Record returns the payment recorded under a reference (ErrNoRecord).
	Record(ref string) (PaymentRecord, error)
	// Resolve marks a payment of unknown outcome settled or unsettled
	// (see Store.Resolve).
	Resolve(ref, state, transaction, by string) (PaymentRecord, error)
}

var _ Ledger = (*Store)(nil)

// Store is the durable state of payments, a bbolt file: the authorizations
// accepted (so none is accepted twice, across restarts), the receipts of
// the built-in facilitator, and the payments whose settlement had no clear
// outcome, until an operator resolves them.
type Store struct {
	db   *bolt.DB
	now  func() time.Time
	mu   sync.Mutex
	next time.Time // when expired nonces are dropped next
}

var (
	bucketNonces   = []byte("nonces")   // from ‖ nonce → validBefore (8 bytes, big endian)
	bucketReceipts = []byte("receipts") // from ‖ nonce → Receipt JSON
	bucketRecords  = []byte("records")  // reference → PaymentRecord JSON
)

// ErrLocked is wrapped by the error of OpenStore when another process (a
// running catalogued) holds the file: bbolt allows one writer process.
var ErrLocked = errors.New("the payments store is locked by another process")

// OpenStore opens (creating) the payment state file at path. A file held
// by another process is an error wrapping ErrLocked after 2 s, not a wait
// without end.
func OpenStore(path string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// Only a missing file is a new store: an empty or corrupt one (the
	// receipts and claimed nonces lost) is an error naming it (boltfile).
	db, _, err := boltfile.Open(path, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("x402: opening %s: %w (is catalogued running? It holds the file while it runs: stop it first)", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("x402: %w", err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketNonces, bucketReceipts, bucketRecords} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	// Batch gathers concurrent writes into one synced transaction; bbolt's
	// default 10 ms wait for company would add 20 ms to every paid call
	// (two writes) when calls are few.
	db.MaxBatchDelay = 500 * time.Microsecond
	return &Store{db: db, now: now}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

func nonceKey(from eip3009.Address, nonce [32]byte) []byte {
	k := make([]byte, 0, 52)
	k = append(k, from[:]...)
	return append(k, nonce[:]...)
}

// Claim records the authorization (from, nonce), kept until validBefore
// (Unix seconds) has passed, and reports whether it was new. Concurrent
// claims are batched into one write.
func (s *Store) Claim(from eip3009.Address, nonce [32]byte, validBefore uint64) (bool, error) {
	s.dropExpired()
	key := nonceKey(from, nonce)
	fresh := false
	err := s.db.Batch(func(tx *bolt.Tx) error {
		fresh = false // Batch may run the function again
		b := tx.Bucket(bucketNonces)
		if b.Get(key) != nil {
			return nil
		}
		fresh = true
		return b.Put(key, binary.BigEndian.AppendUint64(nil, validBefore))
	})
	return fresh, err
}

// dropExpired deletes, at most once an hour, the nonces whose authorization
// expired more than an hour ago: the validity check refuses them anyway.
func (s *Store) dropExpired() {
	now := s.now()
	s.mu.Lock()
	due := !now.Before(s.next)
	if due {
		s.next = now.Add(time.Hour)
	}
	s.mu.Unlock()
	if !due {
		return
	}
	cutoff := uint64(now.Add(-time.Hour).Unix())
	_ = s.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketNonces).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(v) == 8 && binary.BigEndian.Uint64(v) < cutoff {
				if err := c.Delete(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Receipt is a settlement of the built-in facilitator: a record that the
// payer authorized the transfer, not a transfer on any chain.
type Receipt struct {
	Transaction   string        `json:"transaction"`
	Network       string        `json:"network"`
	Asset         string        `json:"asset"`
	Authorization Authorization `json:"authorization"`
	Signature     string        `json:"signature"`
	Resource      string        `json:"resource,omitempty"`
	SettledAt     time.Time     `json:"settled_at"`
}

// AddReceipt stores a receipt under its authorization unless one is there;
// it reports whether it stored it.
func (s *Store) AddReceipt(from eip3009.Address, nonce [32]byte, r Receipt) (bool, error) {
	val, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	key := nonceKey(from, nonce)
	stored := false
	err = s.db.Batch(func(tx *bolt.Tx) error {
		stored = false
		b := tx.Bucket(bucketReceipts)
		if b.Get(key) != nil {
			return nil
		}
		stored = true
		return b.Put(key, val)
	})
	return stored, err
}

// Settled reports whether an authorization has a receipt.
func (s *Store) Settled(from eip3009.Address, nonce [32]byte) (bool, error) {
	found := false
	err := s.db.View(func(tx *bolt.Tx) error {
		found = tx.Bucket(bucketReceipts).Get(nonceKey(from, nonce)) != nil
		return nil
	})
	return found, err
}

// Receipts returns every receipt of the built-in facilitator, oldest
// authorization key first.
func (s *Store) Receipts() ([]Receipt, error) {
	return decodeAll[Receipt](s.db, bucketReceipts, nil)
}

// decodeAll decodes the JSON value of every entry of a bucket as a T, in
// key order, and returns those keep accepts (every one when keep is nil);
// after an error, those decoded before it.
func decodeAll[T any](db *bolt.DB, bucket []byte, keep func(T) bool) ([]T, error) {
	var out []T
	err := db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(_, v []byte) error {
			var r T
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			if keep == nil || keep(r) {
				out = append(out, r)
			}
			return nil
		})
	})
	return out, err
}

// The states of a PaymentRecord.
const (
	// StateUnknown is a payment whose settlement was asked for and not
	// answered clearly (a timeout, a reset connection, a 5xx, an unreadable
	// answer): it may have been taken. The call's answer was withheld.
	StateUnknown = "unsettled-unknown"
	// StateSettled is a payment found settled: it was taken.
	StateSettled = "settled"
	// StateUnsettled is a payment found not settled: nothing was taken.
	StateUnsettled = "unsettled"
)

// PaymentRecord is a payment whose settlement had no clear outcome, kept
// under its reference until it is resolved, and after.
type PaymentRecord struct {
	Reference   string    `json:"reference"`
	State       string    `json:"state"`
	Payer       string    `json:"payer"`
	Nonce       string    `json:"nonce"`
	Amount      string    `json:"amount"` // atomic units
	Asset       string    `json:"asset"`
	Network     string    `json:"network"`
	PayTo       string    `json:"pay_to"`
	ValidBefore string    `json:"valid_before"` // Unix seconds: the authorization cannot be settled after it
	Resource    string    `json:"resource,omitempty"`
	Operation   string    `json:"operation,omitempty"`
	At          time.Time `json:"at"` // when the settlement was asked for
	// Error is the facilitator's failure that left the outcome unknown.
	Error string `json:"facilitator_error"`
	// Set once resolved.
	ResolvedAt  *time.Time `json:"resolved_at,omitempty"`
	ResolvedBy  string     `json:"resolved_by,omitempty"` // "operator", or "facilitator" for a late clear answer
	Transaction string     `json:"transaction,omitempty"`
}

// Reference returns the stable reference of the payment of an
// authorization (payer, nonce): "pay_" and 16 hex digits. An authorization
// is accepted once, so it names one payment.
func Reference(payer, nonce string) string {
	h := sha256.Sum256([]byte(strings.ToLower(payer) + "\x00" + strings.ToLower(nonce)))
	return "pay_" + hex.EncodeToString(h[:8])
}

// ErrNoRecord is wrapped by the error of Resolve for a reference that
// names no recorded payment.
var ErrNoRecord = errors.New("no payment is recorded under this reference")

// ErrResolved is wrapped by the error of Resolve for a payment resolved
// before.
var ErrResolved = errors.New("the payment is already resolved")

// CheckResolution returns the error of a resolution to state with
// transaction that no payment can take; nil when it is well formed.
func CheckResolution(state, transaction string) error {
	if state != StateSettled && state != StateUnsettled {
		return fmt.Errorf("x402: a payment is resolved %s or %s, not %q", StateSettled, StateUnsettled, state)
	}
	if state == StateUnsettled && transaction != "" {
		return fmt.Errorf("x402: a payment resolved %s has no transaction", StateUnsettled)
	}
	return nil
}

// ResolvedError is the error of Resolve for a payment r resolved before.
func ResolvedError(r PaymentRecord) error {
	return fmt.Errorf("%w: %s is %s since %s", ErrResolved, r.Reference, r.State, resolvedAt(r))
}

// RecordUnknown records a payment whose settlement has no clear outcome.
// A payment already recorded under the reference is kept as it is.
func (s *Store) RecordUnknown(r PaymentRecord) error {
	r.State = StateUnknown
	val, err := json.Marshal(r)
	if err != nil {
		return err
	}
	key := []byte(r.Reference)
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRecords)
		if b.Get(key) != nil {
			return nil
		}
		return b.Put(key, val)
	})
}

// Records returns the recorded payments, oldest first: those still
// unknown, or with all every one ever recorded, resolved or not.
func (s *Store) Records(all bool) ([]PaymentRecord, error) {
	out, err := decodeAll(s.db, bucketRecords, func(r PaymentRecord) bool { return all || r.State == StateUnknown })
	slices.SortFunc(out, func(a, b PaymentRecord) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.Reference, b.Reference))
	})
	return out, err
}

// Record returns the payment recorded under a reference.
func (s *Store) Record(ref string) (PaymentRecord, error) {
	var r PaymentRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketRecords).Get([]byte(ref))
		if v == nil {
			return fmt.Errorf("%w: %q", ErrNoRecord, ref)
		}
		return json.Unmarshal(v, &r)
	})
	return r, err
}

// Resolve marks a payment of unknown outcome settled (StateSettled, with
// its transaction when known) or not (StateUnsettled), by whom. A
// reference that names nothing wraps ErrNoRecord; one resolved before
// wraps ErrResolved.
func (s *Store) Resolve(ref, state, transaction, by string) (PaymentRecord, error) {
	var r PaymentRecord
	if err := CheckResolution(state, transaction); err != nil {
		return r, err
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRecords)
		v := b.Get([]byte(ref))
		if v == nil {
			return fmt.Errorf("%w: %q", ErrNoRecord, ref)
		}
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		if r.State != StateUnknown {
			return ResolvedError(r)
		}
		at := s.now().UTC()
		r.State, r.Transaction, r.ResolvedAt, r.ResolvedBy = state, transaction, &at, by
		val, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return b.Put([]byte(ref), val)
	})
	return r, err
}

func resolvedAt(r PaymentRecord) string {
	if r.ResolvedAt == nil {
		return "an unknown time"
	}
	return r.ResolvedAt.Format(time.RFC3339)
}
