package trigram

import (
	"math/rand/v2"
	"testing"
)

// TestRuns checks the run-encoded postings against plain ones: every
// window of a bitset gets the same bits, the same answer to anyRuns, and
// runsSpan the first and last ord.
func TestRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		var ords []uint32
		o := uint32(r.IntN(200))
		for n := r.IntN(300); len(ords) < n; {
			ords = append(ords, o)
			if r.IntN(3) == 0 {
				o += 1 + uint32(r.IntN(130))
			} else {
				o++
			}
		}
		if len(ords) == 0 {
			continue
		}
		runs := appendRuns(nil, ords)
		if len(runs) > len(ords) {
			t.Fatalf("%d entries for %d ords", len(runs), len(ords))
		}
		if f, l := runsSpan(runs); f != ords[0] || l != ords[len(ords)-1] {
			t.Fatalf("span %d..%d, want %d..%d", f, l, ords[0], ords[len(ords)-1])
		}
		words := int(ords[len(ords)-1]>>6) + 2
		for lo := 0; lo < words; lo += 1 + r.IntN(3) {
			n := 1 + r.IntN(words-lo)
			got, want := make([]uint64, n), make([]uint64, n)
			orRuns(got, lo, runs)
			for _, o := range ords {
				if w := int(o>>6) - lo; w >= 0 && w < n {
					want[w] |= 1 << (o & 63)
				}
			}
			for w := range want {
				if got[w] != want[w] {
					t.Fatalf("window %d+%d word %d: %x, want %x", lo, n, w, got[w], want[w])
				}
			}
			probe := make([]uint64, n)
			probe[r.IntN(n)] = 1 << r.IntN(64)
			wantAny := false
			for w := range probe {
				wantAny = wantAny || probe[w]&want[w] != 0
			}
			if anyRuns(probe, lo, runs) != wantAny {
				t.Fatalf("anyRuns: %v, want %v", !wantAny, wantAny)
			}
		}
	}
}
