package engine

import "sync/atomic"

// Holder holds the catalogue being served and swaps it atomically. A request
// calls Load once and uses that catalogue to its end, so a reload never mixes
// two snapshots in one response.
type Holder struct {
	p atomic.Pointer[Catalogue]
}

// NewHolder returns a Holder serving c.
func NewHolder(c *Catalogue) *Holder {
	h := &Holder{}
	h.p.Store(c)
	return h
}

// Load returns the current catalogue. It never returns nil once a catalogue
// has been stored.
func (h *Holder) Load() *Catalogue { return h.p.Load() }

// Swap installs c and returns the catalogue it replaces. Requests already
// holding the old catalogue finish on it; the garbage collector frees it
// after the last one returns.
func (h *Holder) Swap(c *Catalogue) (old *Catalogue) { return h.p.Swap(c) }
