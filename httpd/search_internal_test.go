package httpd

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendScore checks the memo of formatted scores against
// strconv.AppendFloat: fractions as word_similarity gives them, repeated,
// colliding in the memo, and extreme values.
func TestAppendScore(t *testing.T) {
	var vals []float32
	for d := 1; d <= 60; d++ {
		for n := 0; n <= d; n++ {
			vals = append(vals, float32(n)/float32(d))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		vals = append(vals, math.Float32frombits(r.Uint32()))
	}
	vals = append(vals, -1.17549435e-38, math.SmallestNonzeroFloat32, math.MaxFloat32, float32(math.Inf(1)), float32(math.NaN()), float32(math.Copysign(0, -1)))
	rq := &request{}
	for round := range 3 {
		for _, v := range vals {
			got := rq.appendScore([]byte("x"), v)
			want := strconv.AppendFloat([]byte("x"), float64(v), 'g', -1, 32)
			if string(got) != string(want) {
				t.Fatalf("round %d: %g (%#x): %q, want %q", round, v, math.Float32bits(v), got, want)
			}
		}
	}
}
