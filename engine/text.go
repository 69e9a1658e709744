package engine

import "unsafe"

// Text is an immutable table of strings stored as one byte arena plus
// offsets, so that a column of 100,000 names is two allocations the garbage
// collector never needs to scan. String i is Data[Off[i]:Off[i+1]].
type Text struct {
	Data []byte
	Off  []uint32 // len = number of strings + 1, Off[0] = 0
}

// TextBuilder accumulates strings into a Text.
type TextBuilder struct{ t Text }

// NewTextBuilder returns a builder sized for n strings of about avg bytes.
func NewTextBuilder(n, avg int) *TextBuilder {
	b := &TextBuilder{}
	b.t.Data = make([]byte, 0, n*avg)
	b.t.Off = make([]uint32, 1, n+1)
	return b
}

// Add appends s.
func (b *TextBuilder) Add(s string) {
	b.t.Data = append(b.t.Data, s...)
	b.t.Off = append(b.t.Off, uint32(len(b.t.Data)))
}

// AddBytes appends s.
func (b *TextBuilder) AddBytes(s []byte) {
	b.t.Data = append(b.t.Data, s...)
	b.t.Off = append(b.t.Off, uint32(len(b.t.Data)))
}

// Text returns the table. The builder must not be used afterwards.
func (b *TextBuilder) Text() Text { return b.t }

// TextOf builds a Text from strings.
func TextOf(strs []string) Text {
	n := 0
	for _, s := range strs {
		n += len(s)
	}
	b := NewTextBuilder(len(strs), n/max(1, len(strs))+1)
	for _, s := range strs {
		b.Add(s)
	}
	return b.Text()
}

// Len returns the number of strings.
func (t *Text) Len() int {
	if len(t.Off) == 0 {
		return 0
	}
	return len(t.Off) - 1
}

// Bytes returns string i as a view into the arena. The caller must not
// modify it.
func (t *Text) Bytes(i uint32) []byte { return t.Data[t.Off[i]:t.Off[i+1]:t.Off[i+1]] }

// String returns string i without copying: the result shares the arena's
// memory, which is immutable for the lifetime of the Catalogue.
func (t *Text) String(i uint32) string {
	b := t.Data[t.Off[i]:t.Off[i+1]]
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// valid reports whether the offsets are monotonic and inside the arena.
func (t *Text) valid() bool {
	if len(t.Off) == 0 || t.Off[0] != 0 || int(t.Off[len(t.Off)-1]) != len(t.Data) {
		return false
	}
	for i := 1; i < len(t.Off); i++ {
		if t.Off[i] < t.Off[i-1] {
			return false
		}
	}
	return true
}
