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

// BenchmarkParse parses one token again and again: the memo answers.
func BenchmarkParse(b *testing.B) {
	c := codec(b)
	tok := []byte(c.Token(Variant, 123456))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		id, _ := c.Parse(Variant, tok)
		Sink += uint64(id)
	}
}

// BenchmarkParseUnseen parses a token not parsed before each time: the
// permutation's 8 rounds.
func BenchmarkParseUnseen(b *testing.B) {
	c := codec(b)
	toks := make([][]byte, 1<<16)
	for i := range toks {
		toks[i] = []byte(c.Token(Variant, uint32(i+1)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(toks) == 0 && i > 0 {
			b.StopTimer()
			c = codec(b) // an empty memo
			b.StartTimer()
		}
		id, _ := c.Parse(Variant, toks[i%len(toks)])
		Sink += uint64(id)
	}
}

// cursorBench is a brands-list binding as httpd computes it (tier, route,
// path parameter, locale) and a brand position (popularity, id, name).
func cursorBench(b *testing.B) (*Codec, uint64, []byte) {
	c := codec(b)
	bind := c.BindingHash([]byte("full"), []byte("models"), []byte("bmw"), []byte("de"))
	return c, bind, []byte("\x07\x00\x2a\x00\x00\x003 Series Touring")
}

func BenchmarkCursorRoundTrip(b *testing.B) {
	c, bind, pos := cursorBench(b)
	buf := make([]byte, 0, 128)
	out := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = c.AppendCursor(buf[:0], bind, pos)
		out, _ = c.OpenCursor(out[:0], buf, bind)
	}
	Sink += uint64(len(out))
}

func BenchmarkCursorAppend(b *testing.B) {
	c, bind, pos := cursorBench(b)
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = c.AppendCursor(buf[:0], bind, pos)
	}
	Sink += uint64(len(buf))
}

func BenchmarkCursorOpen(b *testing.B) { benchCursorOpen(b, false) }

// BenchmarkCursorOpenForeign opens a cursor of another list: the tag check
// fails.
func BenchmarkCursorOpenForeign(b *testing.B) { benchCursorOpen(b, true) }

// benchCursorOpen opens a cursor of the binding it was made for, or of
// another one when foreign.
func benchCursorOpen(b *testing.B, foreign bool) {
	c, bind, pos := cursorBench(b)
	cur := c.AppendCursor(nil, bind, pos)
	if foreign {
		bind++
	}
	out := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		out, _ = c.OpenCursor(out[:0], cur, bind)
	}
	Sink += uint64(len(out))
}

func BenchmarkCursorBindingHash(b *testing.B) {
	c := codec(b)
	filter := []byte("fuel_slug=diesel AND power_kw>=100 AND power_kw<=250 AND body_type=estate AND gearbox=manual")
	for _, bc := range []struct {
		name  string
		param []byte
	}{{"short", []byte("bmw")}, {"filter", filter}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Sink += c.BindingHash([]byte("full"), []byte("variants-filter"), bc.param, []byte("en"))
			}
		})
	}
}
