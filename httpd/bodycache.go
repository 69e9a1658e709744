package httpd

import (
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"
)

// hotSlots is how many bodies the front of the body cache holds (a power
// of two).
const hotSlots = 1024

// bodyCache is the cache of rendered bodies: ristretto, bounded in bytes
// and admitting by frequency, behind a direct-mapped front holding the
// bodies asked for or stored last, one per slot of the key's hash. A
// popular body is then one atomic load and a compare away, where
// ristretto's lookup (a sharded map under a lock, and the access counted
// for its admission policy) costs 0.1-0.2 µs of a request that costs the
// server 10-13 µs in all (issue 20).
//
// Keys name a body of one catalogue install (bodyKey and pageKey carry the
// view's epoch), so nothing in the front outlives its catalogue as an
// answer; it does hold up to hotSlots bodies beyond ristretto's byte
// budget (at most a few MiB: the largest cached body, a page of specs, is
// under 20 KB), and the bodies of a replaced catalogue until their slots
// are taken.
type bodyCache struct {
	front [hotSlots]atomic.Pointer[rendered]
	main  *ristretto.Cache[uint64, *rendered]
}

// newBodyCache returns the body cache over main, or nil when main is nil
// (the cache is off).
func newBodyCache(main *ristretto.Cache[uint64, *rendered]) *bodyCache {
	if main == nil {
		return nil
	}
	return &bodyCache{main: main}
}

// slot is the front slot of key: the top bits of a multiplicative hash, as
// bodyKey's low bits are a row and a variant's four routes share them.
func (c *bodyCache) slot(key uint64) *atomic.Pointer[rendered] {
	return &c.front[(key*0x9e3779b97f4a7c15)>>(64-10)]
}

// Get returns the body stored under key.
func (c *bodyCache) Get(key uint64) (*rendered, bool) {
	s := c.slot(key)
	if r := s.Load(); r != nil && r.key == key {
		return r, true
	}
	r, ok := c.main.Get(key)
	if ok {
		s.Store(r)
	}
	return r, ok
}

// Set stores r, whose key is set, at the given cost in bytes.
func (c *bodyCache) Set(r *rendered, cost int64) {
	c.main.Set(r.key, r, cost)
	c.slot(r.key).Store(r)
}

// Wait blocks until ristretto has applied every pending Set.
func (c *bodyCache) Wait() { c.main.Wait() }
