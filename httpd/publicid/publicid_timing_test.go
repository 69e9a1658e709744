package publicid

import "testing"

// Sink keeps benchmark results alive.
var Sink uint64

func BenchmarkAppendToken(b *testing.B) {
	c := codec(b)
	buf := make([]byte, 0, 16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = c.AppendToken(buf[:0], Variant, uint32(i&MaxID)|1)
	}
	Sink += uint64(len(buf))
}

func BenchmarkParse(b *testing.B) {
	c := codec(b)
	tok := []byte(c.Token(Variant, 123456))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		id, _ := c.Parse(Variant, tok)
		Sink += uint64(id)
	}
}

func BenchmarkCursorRoundTrip(b *testing.B) {
	c := codec(b)
	bind := c.BindingHash([]byte("models"), []byte("bmw"), []byte("de"))
	pos := []byte("3 Series Touring\x00\x12\x34")
	buf := make([]byte, 0, 128)
	out := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = c.AppendCursor(buf[:0], bind, pos)
		out, _ = c.OpenCursor(out[:0], buf, bind)
	}
	Sink += uint64(len(out))
}
