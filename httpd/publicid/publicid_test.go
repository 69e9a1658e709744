package publicid

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func codec(t testing.TB) *Codec {
	t.Helper()
	c, err := New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSipHashVector checks the reference vector of the SipHash paper
// (key 00..0f, message 00..0e).
func TestSipHashVector(t *testing.T) {
	var key [16]byte
	for i := range key {
		key[i] = byte(i)
	}
	msg := make([]byte, 15)
	for i := range msg {
		msg[i] = byte(i)
	}
	if got := sipKeyFrom(key[:]).sum64(msg); got != 0xa129ca6149be45e5 {
		t.Errorf("SipHash-2-4 = %#x, want 0xa129ca6149be45e5", got)
	}
	var m8 [8]byte
	for i := range m8 {
		m8[i] = byte(i + 1)
	}
	k := sipKeyFrom(key[:])
	if k.sum64(m8[:]) != k.sum64Uint64(0x0807060504030201) {
		t.Error("sum64Uint64 disagrees with sum64")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1000; i++ {
		k, m := sipKey{r.Uint64(), r.Uint64()}, r.Uint64()
		binary.LittleEndian.PutUint64(m8[:], m)
		if k.sum64(m8[:]) != k.sum64Uint64(m) {
			t.Fatalf("key %x, message %x: sum64Uint64 disagrees with sum64", k, m)
		}
	}
}

func TestPermutationIsBijective(t *testing.T) {
	c := codec(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		x := r.Uint32()
		if c.unpermute(c.permute(x)) != x || c.permute(c.unpermute(x)) != x {
			t.Fatalf("not a bijection at %#x", x)
		}
	}
	// Injective on a dense range: no two ids share a token.
	seen := make(map[uint32]uint32, 1<<18)
	for id := uint32(1); id <= 1<<18; id++ {
		tok := c.Encode(Variant, id)
		if prev, dup := seen[tok]; dup {
			t.Fatalf("ids %d and %d share token %#x", prev, id, tok)
		}
		seen[tok] = id
	}
}

func TestRoundTripAndKindsSeparated(t *testing.T) {
	c := codec(t)
	kinds := []Kind{Variant, Generation, Model}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300000; i++ {
		id := 1 + r.Uint32N(MaxID)
		for _, k := range kinds {
			tok := c.Token(k, id)
			if got, ok := c.ParseString(k, tok); !ok || got != id {
				t.Fatalf("%s of %d decodes to %d, %v", tok, id, got, ok)
			}
			for _, other := range kinds {
				if other == k {
					continue
				}
				// The same hex under another prefix, and the raw value
				// under another kind, never decode.
				if _, ok := c.ParseString(other, other.Prefix()+tok[2:]); ok {
					t.Fatalf("%s decodes as a %s token", tok, other.Prefix())
				}
			}
		}
	}
}

func TestNeighboursAreUnrelated(t *testing.T) {
	c := codec(t)
	total, n := 0, 0
	for id := uint32(1); id < 50000; id++ {
		a, b := c.Encode(Variant, id), c.Encode(Variant, id+1)
		d := bits.OnesCount32(a ^ b)
		if d < 3 {
			t.Errorf("tokens of %d and %d differ in %d bits", id, id+1, d)
		}
		total += d
		n++
	}
	if avg := float64(total) / float64(n); avg < 15 || avg > 17 {
		t.Errorf("neighbouring tokens differ in %.2f bits on average, want about 16", avg)
	}
}

func TestMalformedTokensRefused(t *testing.T) {
	c := codec(t)
	good := c.Token(Variant, 4242)
	for _, s := range []string{
		"", "v_", "v_1234567", "v_123456789", good[:9], good + "0", "V" + good[1:], "v-" + good[2:],
		"v_" + "ABCDEF01", "v_ 1234567", "v_1234567g", "x_12345678", " " + good, good + "\n",
	} {
		if _, ok := c.ParseString(Variant, s); ok {
			t.Errorf("%q was accepted", s)
		}
	}
	// Most well-formed random tokens do not decode (the tag must match).
	r := rand.New(rand.NewPCG(5, 6))
	accepted := 0
	for i := 0; i < 100000; i++ {
		if _, ok := c.Decode(Variant, r.Uint32()); ok {
			accepted++
		}
	}
	if accepted > 100000/200 {
		t.Errorf("%d of 100000 random tokens decode; the kind tag should reject about 255 of 256", accepted)
	}
}

func TestSecretsDiffer(t *testing.T) {
	a := codec(t)
	b, _ := New([]byte("another secret of at least 32 bytes!"))
	same := 0
	for id := uint32(1); id < 1000; id++ {
		if a.Encode(Model, id) == b.Encode(Model, id) {
			same++
		}
	}
	if same > 2 {
		t.Errorf("%d of 999 tokens equal under two secrets", same)
	}
	if _, err := New([]byte("short")); err == nil {
		t.Error("a short secret was accepted")
	}
}

func TestCursor(t *testing.T) {
	c := codec(t)
	bind := c.BindingHash([]byte("brands"), []byte("en"))
	other := c.BindingHash([]byte("brands"), []byte("de"))
	pos := []byte("position \x00\xff with bytes")
	cur := c.AppendCursor(nil, bind, pos)
	if !bytes.HasPrefix(cur, []byte("c_")) {
		t.Fatalf("cursor %s", cur)
	}
	got, ok := c.OpenCursor(nil, cur, bind)
	if !ok || !bytes.Equal(got, pos) {
		t.Fatalf("OpenCursor = %q, %v", got, ok)
	}
	if _, ok := c.OpenCursor(nil, cur, other); ok {
		t.Error("a cursor opened under another binding")
	}
	for i := 2; i < len(cur); i++ {
		bad := append([]byte(nil), cur...)
		bad[i] ^= 1
		if _, ok := c.OpenCursor(nil, bad, bind); ok && !bytes.Equal(bad, cur) {
			// Flipping a base64 character's low bit may leave the decoded
			// bytes unchanged only for padding bits; the MAC catches the rest.
			if p, _ := c.OpenCursor(nil, bad, bind); !bytes.Equal(p, pos) {
				t.Errorf("tampered cursor %s opened to another position", bad)
			}
		}
	}
	for _, s := range []string{"", "c_", "c_!!!!", "x_" + string(cur[2:]), string(cur[:len(cur)-3])} {
		if _, ok := c.OpenCursor(nil, []byte(s), bind); ok {
			t.Errorf("%q opened", s)
		}
	}
	if c.BindingHash([]byte("ab"), []byte("c")) == c.BindingHash([]byte("a"), []byte("bc")) {
		t.Error("binding parts are not length-prefixed")
	}
}

func TestLoadOrCreateSecret(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOrCreateSecret(dir)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("the secret changed between two starts: %v", err)
	}
	st, _ := os.Stat(filepath.Join(dir, "token.secret"))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("secret file mode %v, want 0600", st.Mode().Perm())
	}
	p := filepath.Join(dir, "given")
	os.WriteFile(p, []byte("  0123456789abcdef0123456789abcdef\n"), 0o600)
	s, err := LoadSecret("file://" + p)
	if err != nil || string(s) != "0123456789abcdef0123456789abcdef" {
		t.Errorf("LoadSecret(file://) = %q, %v", s, err)
	}
	if _, err := LoadSecret("too short"); err == nil {
		t.Error("a short literal secret was accepted")
	}
}

func FuzzParse(f *testing.F) {
	c := codec(f)
	f.Add("v_00000000")
	f.Add(c.Token(Variant, 77))
	f.Fuzz(func(t *testing.T, s string) {
		if id, ok := c.ParseString(Variant, s); ok && c.Token(Variant, id) != s {
			t.Fatalf("%q decodes to %d, whose token is %s", s, id, c.Token(Variant, id))
		}
	})
}

// FuzzOpenCursor: no input crashes OpenCursor, and a cursor that opens is
// exactly the one AppendCursor makes of its position (one text per
// cursor: nothing else opens, not even a respelling of a real cursor).
func FuzzOpenCursor(f *testing.F) {
	c := codec(f)
	const bind = 1
	f.Add(string(c.AppendCursor(nil, bind, []byte("abc"))))
	f.Add(string(c.AppendCursor(nil, bind, nil)))
	f.Add(string(c.AppendCursor(nil, bind, []byte{0x2a, 0, 0, 0})))
	f.Add(string(c.AppendCursor(nil, bind, append([]byte{0xd1, 3, 7, 0, 0, 0}, "Volkswagen"...))))
	f.Add(string(c.AppendCursor(nil, bind, bytes.Repeat([]byte{0xff}, MaxPosition))))
	f.Add(string(c.AppendCursor(nil, 2, []byte("another list"))))
	f.Add("c_" + base64.RawURLEncoding.EncodeToString([]byte{1, 0x2a, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})) // format 1
	f.Add("c_")
	f.Add("c_\n\r====")
	f.Fuzz(func(t *testing.T, s string) {
		pos, ok := c.OpenCursor(nil, []byte(s), bind)
		if !ok {
			return
		}
		if again := c.AppendCursor(nil, bind, pos); string(again) != s {
			t.Fatalf("%q opened to %x, whose cursor is %s", s, pos, again)
		}
	})
}

// TestCursorRevealsNothing: a cursor's bytes carry neither the ids nor the
// names of its position, in any byte order (the old format carried the
// position in the clear: bytes 1-4 of a variant-list cursor were the stable
// id), and one position gives unrelated cursors in two lists.
func TestCursorRevealsNothing(t *testing.T) {
	c := codec(t)
	const id = 0x00a1b2c3
	name := []byte("Volkswagen Golf")
	var le, be [4]byte
	binary.LittleEndian.PutUint32(le[:], id)
	binary.BigEndian.PutUint32(be[:], id)
	pos := append(append(le[:], name...), be[:]...)
	bind := c.BindingHash([]byte("gen-variants"), []byte("en"))
	cur := c.AppendCursor(nil, bind, pos)
	raw, err := base64.RawURLEncoding.DecodeString(string(cur[2:]))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range [][]byte{le[:], be[:], le[:3], be[1:], name[:4], []byte("Golf")} {
		if bytes.Contains(raw, secret) {
			t.Fatalf("the cursor's bytes contain %q: %x", secret, raw)
		}
	}
	if bytes.Contains(cur, []byte(base64.RawURLEncoding.EncodeToString(le[:]))[:4]) {
		t.Fatalf("the cursor's text contains the id's base64")
	}
	other := c.AppendCursor(nil, c.BindingHash([]byte("demo/gen-variants"), []byte("en")), pos)
	if bytes.Equal(cur, other) || bytes.Equal(cur[2:14], other[2:14]) {
		t.Fatal("the same position in two lists (full and demo tier) gives related cursors")
	}
	if again := c.AppendCursor(nil, bind, pos); !bytes.Equal(again, cur) {
		t.Fatal("sealing is not deterministic for one list and position")
	}
	// An old-format (version 1, MAC'd plaintext) cursor does not open.
	old := append([]byte{1}, pos...)
	old = append(old, make([]byte, 8)...)
	if _, ok := c.OpenCursor(nil, []byte("c_"+base64.RawURLEncoding.EncodeToString(old)), bind); ok {
		t.Fatal("an old-format cursor opened")
	}
}
