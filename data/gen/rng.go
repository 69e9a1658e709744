package gen

import (
	"math"
	"math/rand/v2"
)

// rng is a small helper around a reseedable PCG stream.
type rng struct {
	pcg *rand.PCG
	r   *rand.Rand
}

func newRNG() *rng {
	p := rand.NewPCG(0, 0)
	return &rng{pcg: p, r: rand.New(p)}
}

// seed restarts the stream for one entity.
func (g *rng) seed(seed uint64, id uint64, salt uint64) {
	g.pcg.Seed(mix(seed^salt), mix(id+0x9e3779b97f4a7c15*salt))
}

func mix(x uint64) uint64 { // splitmix64 finalizer
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (g *rng) float() float64                 { return g.r.Float64() }
func (g *rng) intn(n int) int                 { return g.r.IntN(n) }
func (g *rng) chance(p float64) bool          { return g.r.Float64() < p }
func (g *rng) between(lo, hi float64) float64 { return lo + (hi-lo)*g.r.Float64() }

// normal returns a normally distributed value clamped to ±3 sigma.
func (g *rng) normal(mean, sd float64) float64 {
	v := g.r.NormFloat64()
	v = math.Max(-3, math.Min(3, v))
	return mean + sd*v
}

func pick[T any](g *rng, xs []T) T { return xs[g.r.IntN(len(xs))] }

// weighted picks an index with probability proportional to its weight.
func (g *rng) weighted(w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	t := g.r.Float64() * total
	for i, x := range w {
		if t < x {
			return i
		}
		t -= x
	}
	return len(w) - 1
}

func roundTo(v, step float64) float64 { return math.Round(v/step) * step }

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
