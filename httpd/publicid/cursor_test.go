package publicid

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// listBinding is the binding httpd computes for a list: tier, route, path
// parameter or query text, locale.
func listBinding(c *Codec, tier, route string, param []byte, locale string) uint64 {
	return c.BindingHash([]byte(tier), []byte(route), param, []byte(locale))
}

// rawCursor returns the bytes a cursor's text encodes.
func rawCursor(t *testing.T, cur []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(cur, []byte("c_")) {
		t.Fatalf("cursor %q has no c_ prefix", cur)
	}
	raw, err := base64.RawURLEncoding.DecodeString(string(cur[2:]))
	if err != nil {
		t.Fatalf("cursor %q is not base64url: %v", cur, err)
	}
	return raw
}

// assertHidden fails when the cursor's bytes or text contain any of the
// secrets, or a 3-byte window of one (so a shifted or partial copy is
// caught too).
func assertHidden(t *testing.T, what string, cur []byte, secrets ...[]byte) {
	t.Helper()
	raw := rawCursor(t, cur)
	for _, s := range secrets {
		for i := 0; i+3 <= len(s); i++ {
			if w := s[i : i+3]; bytes.Contains(raw, w) {
				t.Fatalf("%s: the cursor's bytes %x contain %x of %x", what, raw, w, s)
			}
		}
		if len(s) >= 4 && bytes.Contains(cur, []byte(base64.RawURLEncoding.EncodeToString(s))[:4]) {
			t.Fatalf("%s: the cursor's text %s contains the base64 of %q", what, cur, s)
		}
	}
}

// TestCursorHidesIDsAndNames is the regression test of the sealed format:
// the list positions httpd puts in cursors (a variant's stable id; a
// model's id and name; a brand's popularity, id and name) appear in no
// byte of the cursor, in either byte order. Under format 1, which carried
// the position in the clear, bytes 1-4 of a variant-list cursor were the
// stable id, and this test failed.
func TestCursorHidesIDsAndNames(t *testing.T) {
	c := codec(t)
	const id = 0x00a1b2c3
	var le, be [4]byte
	binary.LittleEndian.PutUint32(le[:], id)
	binary.BigEndian.PutUint32(be[:], id)
	name := []byte("Passat Variant")

	// A demo key's variant list of a generation: the position is the last
	// variant's stable id.
	variants := listBinding(c, "demo", "gen-variants", binary.LittleEndian.AppendUint32(nil, 0x0abcde), "en")
	cur := c.AppendCursor(nil, variants, le[:])
	assertHidden(t, "variant position", cur, le[:], be[:])
	if raw := rawCursor(t, cur); bytes.Equal(raw[1:5], le[:]) {
		t.Fatal("bytes 1-4 of the cursor are the stable id")
	}

	// A model list: the id and the name.
	models := listBinding(c, "full", "models", []byte("volkswagen"), "de")
	cur = c.AppendCursor(nil, models, append(le[:], name...))
	assertHidden(t, "model position", cur, le[:], be[:], name, []byte("Passat"), []byte("Variant"))

	// A brand list: popularity, id and name.
	pos := binary.LittleEndian.AppendUint16(nil, 977)
	pos = append(pos, le[:]...)
	pos = append(pos, "Volkswagen"...)
	cur = c.AppendCursor(nil, listBinding(c, "full", "brands", nil, "en"), pos)
	assertHidden(t, "brand position", cur, le[:], be[:], []byte("Volkswagen"))

	// A filter list: the variant id. Many ids, so a leak of any one byte
	// order or offset would show.
	filter := listBinding(c, "full", "variants-filter", []byte("fuel_slug=diesel"), "en")
	for v := uint32(1); v <= 2000; v++ {
		var vle, vbe [4]byte
		binary.LittleEndian.PutUint32(vle[:], v*7919+0x100000)
		binary.BigEndian.PutUint32(vbe[:], v*7919+0x100000)
		raw := rawCursor(t, c.AppendCursor(nil, filter, vle[:]))
		if bytes.Contains(raw, vle[:]) || bytes.Contains(raw, vbe[:]) {
			t.Fatalf("the cursor of variant %#x contains its id: %x", v*7919+0x100000, raw)
		}
	}
}

// TestCursorFormat: version 2, a 12-byte nonce, the encrypted position and
// a 16-byte tag; deterministic for one list and position; short.
func TestCursorFormat(t *testing.T) {
	c := codec(t)
	bind := listBinding(c, "full", "gen-variants", []byte{1, 2, 3, 4}, "en")
	pos := []byte{9, 8, 7, 6}
	cur := c.AppendCursor(nil, bind, pos)
	raw := rawCursor(t, cur)
	if raw[0] != 2 || len(raw) != 1+12+len(pos)+16 {
		t.Fatalf("cursor bytes %x: want version 2 and %d bytes", raw, 1+12+len(pos)+16)
	}
	if len(cur) != CursorLen(len(pos)) || len(cur) != 46 {
		t.Fatalf("a 4-byte position gives a cursor of %d characters, want CursorLen = 46", len(cur))
	}
	if again := c.AppendCursor(nil, bind, pos); !bytes.Equal(again, cur) {
		t.Fatal("sealing is not deterministic for one list and position")
	}
	// Another position in the same list: another nonce.
	other := rawCursor(t, c.AppendCursor(nil, bind, []byte{9, 8, 7, 5}))
	if bytes.Equal(raw[1:13], other[1:13]) {
		t.Fatal("two positions of one list share a nonce")
	}
	// Appends: what dst holds is kept.
	if got := c.AppendCursor([]byte(`"next":"`), bind, pos); string(got) != `"next":"`+string(cur) {
		t.Fatalf("AppendCursor did not append: %s", got)
	}
	got, ok := c.OpenCursor([]byte("keep"), cur, bind)
	if !ok || string(got) != "keep\x09\x08\x07\x06" {
		t.Fatalf("OpenCursor = %q, %v", got, ok)
	}
	// The longest position seals and opens; a longer one is a bug.
	long := bytes.Repeat([]byte{0xa5}, MaxPosition)
	lc := c.AppendCursor(nil, bind, long)
	if p, ok := c.OpenCursor(nil, lc, bind); !ok || !bytes.Equal(p, long) || len(lc) != CursorLen(MaxPosition) {
		t.Fatal("a cursor of the longest position does not round-trip")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a position over MaxPosition was sealed")
			}
		}()
		c.AppendCursor(nil, bind, append(long, 0))
	}()
	// Empty position.
	ec := c.AppendCursor(nil, bind, nil)
	if p, ok := c.OpenCursor(nil, ec, bind); !ok || len(p) != 0 {
		t.Fatal("a cursor of an empty position does not round-trip")
	}
}

// TestCursorBinding: each part of a list's binding (route, path parameter,
// query text, locale, tier) changes the binding, and a cursor opens only
// under the binding it was sealed with.
func TestCursorBinding(t *testing.T) {
	c := codec(t)
	gen := binary.LittleEndian.AppendUint32(nil, 4242)
	base := listBinding(c, "full", "gen-variants", gen, "en")
	pos := binary.LittleEndian.AppendUint32(nil, 123456)
	cur := c.AppendCursor(nil, base, pos)
	if p, ok := c.OpenCursor(nil, cur, base); !ok || !bytes.Equal(p, pos) {
		t.Fatal("a cursor does not open for its own list")
	}
	longFilter := []byte("fuel_slug=diesel AND power_kw>=100 AND " + strings.Repeat("body_type=estate OR ", 40))
	others := map[string]uint64{
		"tier demo":          listBinding(c, "demo", "gen-variants", gen, "en"),
		"route":              listBinding(c, "full", "variants-filter", gen, "en"),
		"parameter":          listBinding(c, "full", "gen-variants", binary.LittleEndian.AppendUint32(nil, 4243), "en"),
		"no parameter":       listBinding(c, "full", "gen-variants", nil, "en"),
		"locale":             listBinding(c, "full", "gen-variants", gen, "de"),
		"no tier":            c.BindingHash([]byte("gen-variants"), gen, []byte("en")),
		"parts shifted":      c.BindingHash([]byte("fullgen-variants"), nil, gen, []byte("en")),
		"filter text":        listBinding(c, "full", "variants-filter", []byte("fuel_slug=diesel"), "en"),
		"long filter text":   listBinding(c, "full", "variants-filter", longFilter, "en"),
		"another secret":     0, // filled below
		"binding plus one":   base + 1,
		"binding bit 63 set": base ^ 1<<63,
	}
	c2, _ := New([]byte("a second secret of 32 bytes or more"))
	others["another secret"] = c2.BindingHash([]byte("full"), []byte("gen-variants"), gen, []byte("en"))
	for what, b := range others {
		if b == base {
			t.Errorf("%s: the binding did not change", what)
		}
		if _, ok := c.OpenCursor(nil, cur, b); ok {
			t.Errorf("%s: the cursor opened under another binding", what)
		}
	}
	// Both tiers of one route and position: unrelated cursors, neither
	// opening in the other tier.
	demo := others["tier demo"]
	dc := c.AppendCursor(nil, demo, pos)
	if bytes.Equal(dc, cur) || bytes.Equal(rawCursor(t, dc)[1:13], rawCursor(t, cur)[1:13]) {
		t.Fatal("the same position in the demo and full tier gives related cursors")
	}
	if _, ok := c.OpenCursor(nil, dc, base); ok {
		t.Fatal("a demo-tier cursor opened on the full catalogue's list")
	}
	// A cursor of another codec (another secret) does not open.
	if _, ok := c.OpenCursor(nil, c2.AppendCursor(nil, base, pos), base); ok {
		t.Fatal("a cursor sealed under another secret opened")
	}
}

// TestBindingHashBindsEveryByte: long filter and search texts are bound
// whole (format 1 truncated parts at about 500 bytes, so two filters
// differing only at the end shared cursors), and many parts are too.
func TestBindingHashBindsEveryByte(t *testing.T) {
	c := codec(t)
	seen := map[uint64]string{}
	add := func(what string, parts ...[]byte) {
		t.Helper()
		h := c.BindingHash(parts...)
		if prev, dup := seen[h]; dup {
			t.Fatalf("%s and %s share a binding", prev, what)
		}
		seen[h] = what
	}
	for _, n := range []int{0, 1, 63, 64, 65, 100, 255, 256, 257, 600, 5000, 70000} {
		text := bytes.Repeat([]byte("a"), n)
		add("text of "+strconv.Itoa(n), []byte("full"), []byte("variants-filter"), text, []byte("en"))
		if n == 0 {
			continue
		}
		places := map[int]bool{0: true, n / 2: true, n - 1: true} // first, middle, last
		for at := range places {
			alt := bytes.Clone(text)
			alt[at] = 'b'
			add("text of "+strconv.Itoa(n)+" changed at "+strconv.Itoa(at), []byte("full"), []byte("variants-filter"), alt, []byte("en"))
		}
	}
	// A part that looks like a marker and digest is not a digest.
	long := bytes.Repeat([]byte("x"), inlinePart+1)
	fake := binary.LittleEndian.AppendUint16(nil, 0xffff)
	fake = binary.LittleEndian.AppendUint64(fake, c.long[0].sum64(long))
	fake = binary.LittleEndian.AppendUint64(fake, c.long[1].sum64(long))
	if c.BindingHash(long) == c.BindingHash(fake) {
		t.Error("a digest can be spelled as a short part")
	}
	// Many parts, some long: each still counts, wherever it stands.
	parts := make([][]byte, 40)
	for i := range parts {
		n := 40 + i%30
		if i%7 == 3 {
			n = inlinePart + 50
		}
		parts[i] = bytes.Repeat([]byte{byte('a' + i%26)}, n)
	}
	base := c.BindingHash(parts...)
	for i := range parts {
		alt := make([][]byte, len(parts))
		copy(alt, parts)
		alt[i] = append(bytes.Clone(parts[i][:len(parts[i])-1]), '!')
		if c.BindingHash(alt...) == base {
			t.Fatalf("changing part %d of 40 does not change the binding", i)
		}
	}
	if c.BindingHash(parts...) != base {
		t.Fatal("BindingHash is not deterministic")
	}
}

// TestCursorTampering: changing, dropping or adding any byte of a cursor,
// or any character of its text, makes it fail to open; so do cursors of
// the old format and malformed text.
func TestCursorTampering(t *testing.T) {
	c := codec(t)
	bind := listBinding(c, "full", "models", []byte("skoda"), "cs")
	pos := append(binary.LittleEndian.AppendUint32(nil, 77), "Octavia Combi"...)
	cur := c.AppendCursor(nil, bind, pos)
	raw := rawCursor(t, cur)
	enc := func(b []byte) []byte { return []byte("c_" + base64.RawURLEncoding.EncodeToString(b)) }
	mustFail := func(what string, s []byte) {
		t.Helper()
		if p, ok := c.OpenCursor(nil, s, bind); ok {
			t.Fatalf("%s: %q opened to %q", what, s, p)
		}
	}
	// Every bit of every byte.
	for i := range raw {
		for bit := 0; bit < 8; bit++ {
			bad := bytes.Clone(raw)
			bad[i] ^= 1 << bit
			mustFail("byte "+strconv.Itoa(i)+" flipped", enc(bad))
		}
	}
	// Every character of the text, replaced by every other character of
	// the alphabet (the encoding is strict: padding bits must be zero).
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range cur {
		for j := 0; j < len(alphabet); j++ {
			if cur[i] == alphabet[j] {
				continue
			}
			bad := bytes.Clone(cur)
			bad[i] = alphabet[j]
			mustFail("character "+strconv.Itoa(i)+" replaced", bad)
		}
	}
	// Truncated, extended, spliced.
	for n := 0; n < len(raw); n++ {
		mustFail("truncated raw", enc(raw[:n]))
	}
	for n := 0; n < len(cur); n++ {
		mustFail("truncated text", cur[:n])
	}
	mustFail("a byte added", enc(append(bytes.Clone(raw), 0)))
	mustFail("a character added", append(bytes.Clone(cur), 'A'))
	mustFail("a line break inserted", append(append(bytes.Clone(cur[:10]), '\n'), cur[10:]...))
	mustFail("a CR at the end", append(bytes.Clone(cur), '\r'))
	mustFail("padded", append(bytes.Clone(cur), '='))
	mustFail("standard alphabet", []byte("c_"+base64.RawStdEncoding.EncodeToString(raw)))
	other := rawCursor(t, c.AppendCursor(nil, bind, append(binary.LittleEndian.AppendUint32(nil, 78), "Octavia"...)))
	mustFail("another cursor's nonce", enc(append(append([]byte{2}, other[1:13]...), raw[13:]...)))
	mustFail("another cursor's tag", enc(append(bytes.Clone(raw[:len(raw)-16]), other[len(other)-16:]...)))
	// Old and future versions, the same sealed body.
	for _, v := range []byte{0, 1, 3, 0xff} {
		bad := bytes.Clone(raw)
		bad[0] = v
		mustFail("version "+strconv.Itoa(int(v)), enc(bad))
	}
	// A format-1 cursor: version 1, the position in the clear, an 8-byte MAC.
	old := append(append([]byte{1}, pos...), 1, 2, 3, 4, 5, 6, 7, 8)
	mustFail("format 1", enc(old))
	for _, s := range []string{"", "c", "c_", "c_A", "C_" + string(cur[2:]), "x_" + string(cur[2:]), " " + string(cur), "c_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"} {
		mustFail("malformed", []byte(s))
	}
	mustFail("too long", append([]byte("c_"), bytes.Repeat([]byte("A"), CursorLen(MaxPosition))...))
	// The untouched cursor still opens.
	if p, ok := c.OpenCursor(nil, cur, bind); !ok || !bytes.Equal(p, pos) {
		t.Fatal("the cursor no longer opens")
	}
}
