package access

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The self-service demo key flow keeps three buckets beside the keys:
// pending requests by the SHA-256 of their activation token, the state of
// each email address, and the number of requests per network per day.
var (
	bucketRequests = []byte("demo_requests")
	bucketEmails   = []byte("demo_emails")
	bucketNetworks = []byte("demo_networks")
)

// DemoRequest is a recorded request for a demo key.
type DemoRequest struct {
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Company   string    `json:"company"`
	Website   string    `json:"website"`
	Role      string    `json:"role"`
	UseCase   string    `json:"use_case"`
	Network   string    `json:"network"`
	Created   time.Time `json:"created"`
	Used      bool      `json:"used"`
	KeyHash   string    `json:"key_hash,omitempty"` // the key the token minted
	TOSAccept time.Time `json:"tos_accepted"`
}

// Errors of the demo key flow.
var (
	ErrKeyIssued     = errors.New("a key was already issued to this address")
	ErrTooManyToday  = errors.New("too many key requests from this network today")
	ErrTokenUnusable = errors.New("the activation link has expired or is unknown")
	// ErrTokenUsed: the link was opened before and its key issued; the
	// request returned with it names the address.
	ErrTokenUsed = errors.New("the activation link was already used")
)

// HashToken returns the stored form of an activation token.
func HashToken(token string) [32]byte { return sha256.Sum256([]byte("activation:" + token)) }

// RecordDemoRequest stores a request under its token's hash, after
// checking, in the same transaction, that no key was issued to the address
// and that the network has made fewer than perDay requests today (and then
// counting this one). Nothing is stored when it returns an error.
func (s *Store) RecordDemoRequest(tokenHash [32]byte, r DemoRequest, perDay int) error {
	email := strings.ToLower(r.Email)
	day := r.Created.UTC().Format(time.DateOnly)
	return s.db.Update(func(tx *bolt.Tx) error {
		reqs, err := tx.CreateBucketIfNotExists(bucketRequests)
		if err != nil {
			return err
		}
		emails, err := tx.CreateBucketIfNotExists(bucketEmails)
		if err != nil {
			return err
		}
		nets, err := tx.CreateBucketIfNotExists(bucketNetworks)
		if err != nil {
			return err
		}
		if v := emails.Get([]byte(email)); v != nil && string(v) == "issued" {
			return ErrKeyIssued
		}
		netKey := []byte(day + " " + r.Network)
		n := uint32(0)
		if v := nets.Get(netKey); len(v) == 4 {
			n = binary.LittleEndian.Uint32(v)
		}
		if int(n) >= perDay {
			return ErrTooManyToday
		}
		if err := nets.Put(netKey, binary.LittleEndian.AppendUint32(nil, n+1)); err != nil {
			return err
		}
		v, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := reqs.Put(tokenHash[:], v); err != nil {
			return err
		}
		return emails.Put([]byte(email), []byte("pending"))
	})
}

// WithdrawDemoRequest undoes RecordDemoRequest for a request whose
// activation mail could not be sent, in one transaction: the request is
// deleted (its link was never delivered and must not work) and the
// network's count of the request's day goes down by one, so the failure
// costs the requester nothing. An unknown token is a no-op.
func (s *Store) WithdrawDemoRequest(tokenHash [32]byte) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		reqs, nets := tx.Bucket(bucketRequests), tx.Bucket(bucketNetworks)
		if reqs == nil || nets == nil {
			return nil
		}
		v := reqs.Get(tokenHash[:])
		if v == nil {
			return nil
		}
		var r DemoRequest
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		if err := reqs.Delete(tokenHash[:]); err != nil {
			return err
		}
		netKey := []byte(r.Created.UTC().Format(time.DateOnly) + " " + r.Network)
		if c := nets.Get(netKey); len(c) == 4 {
			if n := binary.LittleEndian.Uint32(c); n > 1 {
				return nets.Put(netKey, binary.LittleEndian.AppendUint32(nil, n-1))
			}
			return nets.Delete(netKey)
		}
		return nil
	})
}

// RedeemDemoToken burns an activation token and mints its demo key, in one
// transaction: the token is marked used before the key is created, and two
// concurrent redemptions of one token (a double click) mint exactly one
// key, because bbolt runs write transactions one at a time. A token that
// is unknown, used, or older than ttl is ErrTokenUnusable; an address that
// already holds a key is ErrKeyIssued.
func (s *Store) RedeemDemoToken(tokenHash [32]byte, now time.Time, ttl time.Duration) (text string, key *Key, req DemoRequest, err error) {
	s.mu.Lock() // the in-memory index is published after the commit
	defer s.mu.Unlock()
	text, err = NewKeyText(PlanDemo)
	if err != nil {
		return "", nil, req, err
	}
	now = now.UTC()
	key = &Key{Hash: HashKey([]byte(text)), Plan: PlanDemo, State: StateActive, Created: now, Changed: now}
	err = s.db.Update(func(tx *bolt.Tx) error {
		reqs, emails, err := pendingRequest(tx, tokenHash, now, ttl, &req)
		if err != nil {
			return err
		}
		// Burn the token first, in the same transaction as the minting.
		req.Used = true
		req.KeyHash = key.Hash.String()
		nv, err := json.Marshal(req)
		if err != nil {
			return err
		}
		if err := reqs.Put(tokenHash[:], nv); err != nil {
			return err
		}
		email := strings.ToLower(req.Email)
		if st := emails.Get([]byte(email)); st != nil && string(st) == "issued" {
			return ErrKeyIssued
		}
		if err := emails.Put([]byte(email), []byte("issued")); err != nil {
			return err
		}
		key.Email = email
		key.Note = "self-service demo key (" + req.Company + ")"
		rv, err := json.Marshal(key.Record())
		if err != nil {
			return err
		}
		return tx.Bucket(bucketKeys).Put(key.Hash[:], rv)
	})
	if err != nil {
		return "", nil, req, err
	}
	key.usage = &Usage{}
	s.publish(key)
	return text, key, req, nil
}

// PeekDemoToken reads what RedeemDemoToken would find, in a read-only
// transaction: the pending request of a token, or why it cannot be
// redeemed.
func (s *Store) PeekDemoToken(tokenHash [32]byte, now time.Time, ttl time.Duration) (req DemoRequest, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		_, emails, err := pendingRequest(tx, tokenHash, now.UTC(), ttl, &req)
		if err == nil && string(emails.Get([]byte(strings.ToLower(req.Email)))) == "issued" {
			return ErrKeyIssued
		}
		return err
	})
	return req, err
}

// pendingRequest reads the request of a token into req and returns the
// buckets of the requests and the addresses: ErrTokenUnusable when the
// token is unknown or older than ttl at now, ErrTokenUsed (req read) when
// it was redeemed.
func pendingRequest(tx *bolt.Tx, tokenHash [32]byte, now time.Time, ttl time.Duration, req *DemoRequest) (reqs, emails *bolt.Bucket, err error) {
	reqs, emails = tx.Bucket(bucketRequests), tx.Bucket(bucketEmails)
	if reqs == nil || emails == nil {
		return nil, nil, ErrTokenUnusable
	}
	v := reqs.Get(tokenHash[:])
	if v == nil {
		return nil, nil, ErrTokenUnusable
	}
	if err := json.Unmarshal(v, req); err != nil {
		return nil, nil, fmt.Errorf("cannot read key request: %w", err)
	}
	switch {
	case req.Used:
		return nil, nil, ErrTokenUsed
	case now.Sub(req.Created) > ttl:
		return nil, nil, ErrTokenUnusable
	}
	return reqs, emails, nil
}

// publish adds or replaces a key in the in-memory index. The caller holds
// s.mu and has stored the key durably.
func (s *Store) publish(k *Key) {
	old := *s.index.Load()
	next := make(map[Hash]*Key, len(old)+1)
	for h, x := range old {
		next[h] = x
	}
	if prev, ok := old[k.Hash]; ok {
		k.usage = prev.usage
	}
	if k.usage == nil {
		k.usage = &Usage{}
	}
	next[k.Hash] = k
	s.index.Store(&next)
}
