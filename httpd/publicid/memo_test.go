package publicid

import (
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"
)

// decodeUncached is Decode without the memo: the permutation alone.
func decodeUncached(c *Codec, kind Kind, token uint32) (uint32, bool) {
	x := c.unpermute(token)
	if Kind(x>>24) != kind || x&MaxID == 0 {
		return 0, false
	}
	return x & MaxID, true
}

// TestDecodeMemo holds the remembered decodes to the permutation: first
// and repeated decodes, every kind asked of a remembered token, tokens
// sharing a slot in turn, and made-up tokens, which are not remembered.
func TestDecodeMemo(t *testing.T) {
	c := codec(t)
	kinds := []Kind{Variant, Generation, Model}
	check := func(kind Kind, token uint32) {
		t.Helper()
		id, ok := c.Decode(kind, token)
		wantID, wantOK := decodeUncached(c, kind, token)
		if id != wantID || ok != wantOK {
			t.Fatalf("Decode(%#x, %#x) = %d, %v; the permutation gives %d, %v", kind, token, id, ok, wantID, wantOK)
		}
	}
	// Real tokens, decoded twice (a miss, then a hit), as every kind.
	for id := uint32(1); id <= 3*memoSlots; id += 7 {
		for _, k := range kinds {
			tok := c.Encode(k, id)
			for range 2 {
				for _, asked := range kinds {
					check(asked, tok)
				}
			}
			if got, ok := c.Decode(k, tok); !ok || got != id {
				t.Fatalf("token of %#x %d decodes to %d, %v", k, id, got, ok)
			}
		}
	}
	// Two tokens of one slot, in turn: each evicts the other.
	a := c.Encode(Variant, 1)
	var b uint32
	for id := uint32(2); ; id++ {
		if b = c.Encode(Variant, id); b&(memoSlots-1) == a&(memoSlots-1) {
			break
		}
		if id > 1<<20 {
			t.Fatal("no second token in the first token's slot")
		}
	}
	for range 4 {
		check(Variant, a)
		check(Variant, b)
	}
	// A made-up token leaves the slot as it was.
	check(Variant, a)
	before := c.memo[a&(memoSlots-1)].Load()
	for v := uint32(0); v < 64; v++ {
		bad := a&(memoSlots-1) | v<<12
		if _, ok := decodeUncached(c, Variant, bad); ok {
			continue
		}
		check(Variant, bad)
		if after := c.memo[a&(memoSlots-1)].Load(); after != before {
			t.Fatalf("decoding the made-up token %#x changed its slot from %#x to %#x", bad, before, after)
		}
	}
	// Token 0 and an empty slot.
	fresh := codec(t)
	for _, k := range kinds {
		id, ok := fresh.Decode(k, 0)
		wantID, wantOK := decodeUncached(fresh, k, 0)
		if id != wantID || ok != wantOK {
			t.Fatalf("Decode(%#x, 0) = %d, %v; want %d, %v", k, id, ok, wantID, wantOK)
		}
	}
}

// TestDecodeMemoConcurrent decodes tokens that share slots from several
// goroutines (the race detector watches the memo).
func TestDecodeMemoConcurrent(t *testing.T) {
	c := codec(t)
	var g errgroup.Group
	for w := range 4 {
		g.Go(func() error {
			for i := range 5000 {
				id := uint32(1 + (i*4+w)%(2*memoSlots))
				if got, ok := c.Decode(Variant, c.Encode(Variant, id)); !ok || got != id {
					return fmt.Errorf("the token of %d decoded to %d, %v under concurrent use", id, got, ok)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}
