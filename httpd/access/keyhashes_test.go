package access

import (
	"fmt"
	"sync"
	"testing"

	"github.com/dchest/siphash"
)

// TestKeyHashes: Find hands find the SHA-256 of the key it is given,
// whether remembered or not, for keys that differ by one byte, for keys
// whose tags share a slot and from many goroutines; only keys find found
// are remembered.
func TestKeyHashes(t *testing.T) {
	m := NewKeyHashes()
	known := map[Hash]*Key{}
	var keys [][]byte
	for i := range 3 * keyHashSlots { // more keys than slots: some share one
		k := []byte(fmt.Sprintf("vsc_test_%040d", i))
		keys = append(keys, k)
		known[HashKey(k)] = &Key{Hash: HashKey(k)}
	}
	find := func(h Hash) (*Key, error) {
		if k, ok := known[h]; ok {
			return k, nil
		}
		return nil, ErrNotFound
	}
	check := func(key []byte, wantFound bool) {
		t.Helper()
		k, err := m.Find(key, find)
		switch {
		case wantFound && (err != nil || k.Hash != HashKey(key)):
			t.Fatalf("%s: %v, %v", key, k, err)
		case !wantFound && err != ErrNotFound:
			t.Fatalf("%s: found %v, %v", key, k, err)
		}
	}
	for round := range 3 { // the first round remembers, the next ones find them again
		for _, k := range keys {
			check(k, true)
			other := append([]byte(nil), k...)
			other[len(other)-1] ^= 1 << (round % 7) // one byte off: another key, unknown or another known one
			_, isKnown := known[HashKey(other)]
			check(other, isKnown)
		}
	}
	remembered := 0
	for i := range m.slots {
		if e := m.slots[i].Load(); e != nil {
			remembered++
			if _, ok := known[e.hash]; !ok {
				t.Fatalf("slot %d remembers a hash find did not find", i)
			}
		}
	}
	if remembered < keyHashSlots/2 {
		t.Errorf("%d of %d slots remember a key after %d keys", remembered, keyHashSlots, len(keys))
	}
	unknown := []byte("vsc_test_unknown")
	check(unknown, false)
	if e := m.slots[m.slotOf(unknown)].Load(); e != nil && e.hash == HashKey(unknown) {
		t.Error("an unknown key was remembered")
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(keys); i += 8 {
				if k, err := m.Find(keys[i], find); err != nil || k.Hash != HashKey(keys[i]) {
					t.Errorf("goroutine %d, %s: %v, %v", g, keys[i], k, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestKeyHashesPerProcess: two KeyHashes have different SipHash keys, so
// a tag learnt from one process says nothing of another's.
func TestKeyHashesPerProcess(t *testing.T) {
	a, b := NewKeyHashes(), NewKeyHashes()
	if a.k0 == b.k0 && a.k1 == b.k1 {
		t.Fatal("two KeyHashes share their SipHash key")
	}
}

// slotOf returns the index of key's slot.
func (m *KeyHashes) slotOf(key []byte) uint64 {
	a, _ := siphash.Hash128(m.k0, m.k1, key)
	return a % keyHashSlots
}
