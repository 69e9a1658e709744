package engine

import (
	"bytes"
	"testing"
)

// TestPositionsRoundTrip: every cursor position parses back to the key it
// was written from, and a position of another shape does not parse.
func TestPositionsRoundTrip(t *testing.T) {
	b := BrandKey{Popularity: 513, Name: []byte("Škoda"), ID: 70000}
	if got, ok := ParseBrandKey(b.AppendPosition(nil)); !ok || got.Popularity != b.Popularity || got.ID != b.ID || !bytes.Equal(got.Name, b.Name) {
		t.Errorf("brand: %+v %v", got, ok)
	}
	m := ModelKey{Name: []byte("Golf"), ID: 1 << 23}
	if got, ok := ParseModelKey(m.AppendPosition(nil)); !ok || got.ID != m.ID || !bytes.Equal(got.Name, m.Name) {
		t.Errorf("model: %+v %v", got, ok)
	}
	g := GenerationKey{YearStart: 2019, ID: 42}
	if got, ok := ParseGenerationKey(g.AppendPosition(nil)); !ok || got != g {
		t.Errorf("generation: %+v %v", got, ok)
	}
	if got, ok := ParseIDPosition(AppendIDPosition(nil, 469718)); !ok || got != 469718 {
		t.Errorf("id: %d %v", got, ok)
	}
	s := SearchKey{Key: 0xF3A1 << 48, ID: 9}
	if got, ok := ParseSearchKey(s.AppendPosition(nil)); !ok || got != s || IsOldSearchPosition(s.AppendPosition(nil)) {
		t.Errorf("search: %+v %v", got, ok)
	}
	// A position of the order before ranking: score 0.625, id 9, text.
	old := append([]byte{0, 0, 0x20, 0x3F, 9, 0, 0, 0}, "volkswagen golf 1.5 tsi"...)
	if _, ok := ParseSearchKey(old); ok || !IsOldSearchPosition(old) {
		t.Errorf("an old search position: parsed %v, recognised %v", ok, IsOldSearchPosition(old))
	}
	for _, short := range [][]byte{nil, {1}, {1, 2, 3}} {
		if _, ok := ParseBrandKey(short); ok {
			t.Errorf("brand parsed %v", short)
		}
		if _, ok := ParseModelKey(short); ok {
			t.Errorf("model parsed %v", short)
		}
		if _, ok := ParseSearchKey(short); ok {
			t.Errorf("search parsed %v", short)
		}
	}
	if _, ok := ParseGenerationKey(make([]byte, 7)); ok {
		t.Error("a 7-byte generation position parsed")
	}
	if _, ok := ParseIDPosition(make([]byte, 5)); ok {
		t.Error("a 5-byte id position parsed")
	}
}
