package httpd

import (
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"
)

// TestBodyCacheFront holds the front of the body cache to ristretto's
// answers: a body stored is found under its key and no other, keys that
// share a slot take it in turn, a body ristretto holds is found after its
// slot was taken, and a key of another install (another epoch) never finds
// an earlier body.
func TestBodyCacheFront(t *testing.T) {
	main, err := newCache[*rendered](1<<20, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	c := newBodyCache(main)
	if newBodyCache(nil) != nil {
		t.Fatal("a body cache without its ristretto cache is not nil")
	}
	body := func(key uint64) *rendered { return &rendered{key: key, body: []byte{byte(key), byte(key >> 40)}} }
	keyOf := func(epoch uint32, row uint32) uint64 { return uint64(epoch)<<40 | cachedImages<<36 | uint64(row) }

	a := body(keyOf(1, 7))
	c.Set(a, 66)
	c.Wait()
	if r, ok := c.Get(a.key); !ok || r != a {
		t.Fatalf("Get of a stored key: %v, %v", r, ok)
	}
	if r, ok := c.Get(keyOf(2, 7)); ok {
		t.Fatalf("the same row of another install found %q", r.body)
	}
	// A second key in a's slot.
	var b *rendered
	for row := uint32(8); row < 1<<20; row++ {
		if k := keyOf(1, row); c.slot(k) == c.slot(a.key) {
			b = body(k)
			break
		}
	}
	if b == nil {
		t.Fatal("no second key in the first key's slot")
	}
	c.Set(b, 66)
	c.Wait()
	for range 3 {
		for _, want := range []*rendered{a, b} {
			if r, ok := c.Get(want.key); !ok || r != want {
				t.Fatalf("Get(%#x) in a shared slot: %v, %v; want %v", want.key, r, ok, want)
			}
			if c.slot(want.key).Load() != want {
				t.Fatalf("a body found in ristretto is not put in front")
			}
		}
	}
	// A key never stored, in a's slot: not found, and a stays in front.
	for row := uint32(1 << 20); row < 1<<22; row++ {
		if k := keyOf(1, row); c.slot(k) == c.slot(a.key) && k != b.key {
			c.Get(a.key)
			if r, ok := c.Get(k); ok {
				t.Fatalf("a key never stored found %v", r)
			}
			if c.slot(k).Load() != a {
				t.Fatal("a miss changed the front")
			}
			break
		}
	}
}

// TestBodyCacheConcurrent stores and reads bodies of shared slots from
// several goroutines (the race detector watches the front): every body
// found is the one of its key.
func TestBodyCacheConcurrent(t *testing.T) {
	main, err := newCache[*rendered](1<<20, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	c := newBodyCache(main)
	var g errgroup.Group
	for w := range 4 {
		g.Go(func() error {
			for i := range 3000 {
				key := uint64(i%(3*hotSlots) + 1)
				if i%4 == w {
					c.Set(&rendered{key: key, body: []byte{byte(key)}}, 65)
				}
				if r, ok := c.Get(key); ok && (r.key != key || r.body[0] != byte(key)) {
					return fmt.Errorf("Get(%d) returned another key's body", key)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}
