package x402

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Store is the durable state of payments, a bbolt file: the authorizations
// accepted (so none is accepted twice, across restarts) and the receipts of
// the built-in facilitator.
type Store struct {
	db   *bolt.DB
	now  func() time.Time
	mu   sync.Mutex
	next time.Time // when expired nonces are dropped next
}

var (
	bucketNonces   = []byte("nonces")   // from ‖ nonce → validBefore (8 bytes, big endian)
	bucketReceipts = []byte("receipts") // from ‖ nonce → Receipt JSON
)

// OpenStore opens (creating) the payment state file at path.
func OpenStore(path string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("x402: opening %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketNonces, bucketReceipts} {
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

// record stores a receipt under its authorization unless one is there; it
// reports whether it stored it.
func (s *Store) record(from eip3009.Address, nonce [32]byte, r Receipt) (bool, error) {
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

// settled reports whether an authorization has a receipt.
func (s *Store) settled(from eip3009.Address, nonce [32]byte) bool {
	found := false
	s.db.View(func(tx *bolt.Tx) error {
		found = tx.Bucket(bucketReceipts).Get(nonceKey(from, nonce)) != nil
		return nil
	})
	return found
}

// Receipts returns every receipt of the built-in facilitator, oldest
// authorization key first.
func (s *Store) Receipts() ([]Receipt, error) {
	var out []Receipt
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketReceipts).ForEach(func(_, v []byte) error {
			var r Receipt
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}
