package loader

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
)

var update = flag.Bool("update", false, "rewrite the testdata fixture of the current format version")

var (
	smallOnce sync.Once
	smallSet  *dataset.Set
	smallFile []byte
)

// small returns a small generated catalogue (seed 3) and its snapshot
// bytes, made once.
func small(t testing.TB) (*dataset.Set, []byte) {
	t.Helper()
	smallOnce.Do(func() {
		var err error
		if smallSet, smallFile, err = generate(3); err != nil {
			panic(err)
		}
	})
	return smallSet, smallFile
}

// generate generates the catalogue of seed at scale 0.01 and writes it as
// a snapshot.
func generate(seed uint64) (*dataset.Set, []byte, error) {
	s, err := gen.Generate(vocab.Default(), gen.Options{Scale: 0.01, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	err = Write(&buf, s)
	return s, buf.Bytes(), err
}

// TestRoundTrip checks that every column read back equals what was written.
func TestRoundTrip(t *testing.T) {
	s, file := small(t)
	c, err := FromBytes(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.BrandID) != len(s.Brands) || len(c.ModelID) != len(s.Models) || len(c.GenID) != len(s.Generations) || len(c.VarID) != len(s.Variants) {
		t.Fatalf("counts differ")
	}
	if c.Meta.Seed != 3 || c.Meta.Scale != 0.01 || c.Meta.SyncedAt.Unix() != s.SyncedAt || c.Meta.CDNBase != s.CDNBase {
		t.Errorf("meta %+v", c.Meta)
	}
	for i, b := range s.Brands {
		r := uint32(i)
		if c.BrandID[i] != b.ID || c.BrandSlug.String(r) != b.Slug || c.BrandName.String(r) != b.Name ||
			c.BrandPopularity[i] != b.Popularity || c.BrandWikidata.String(r) != b.Wikidata || c.BrandCountry.String(r) != b.Country {
			t.Fatalf("brand %d differs", b.ID)
		}
		for li := range vocab.Locales {
			if c.BrandNames[li].String(r) != b.Names[li] {
				t.Fatalf("brand %d name in %s differs", b.ID, vocab.Locales[li])
			}
		}
	}
	for i, m := range s.Models {
		if c.ModelID[i] != m.ID || c.ModelBrand[i] != m.Brand || c.ModelName.String(uint32(i)) != m.Name || c.ModelSlug.String(uint32(i)) != m.Slug {
			t.Fatalf("model %d differs", m.ID)
		}
	}
	for i, g := range s.Generations {
		r := uint32(i)
		if c.GenID[i] != g.ID || c.GenModel[i] != g.Model || c.GenName.String(r) != g.Name || c.GenSlug.String(r) != g.Slug ||
			c.GenYearStart[i] != g.YearStart || c.GenYearEnd[i] != g.YearEnd {
			t.Fatalf("generation %d differs", g.ID)
		}
	}
	for i, v := range s.Variants {
		r := uint32(i)
		if c.VarID[i] != v.ID || c.VarGen[i] != v.Generation || c.VarName.String(r) != v.Name || c.VarFuel[i] != v.Fuel ||
			c.VarBody[i] != v.Body || c.VarDrive[i] != v.Drive || c.VarTransmission[i] != v.Transmission ||
			c.VarPowerHP[i] != v.PowerHP || c.VarTorqueNM[i] != v.TorqueNM || c.VarTopSpeedKMH[i] != v.TopSpeedKMH ||
			c.VarAccel100[i] != v.Accel100 || c.VarBatteryKWh[i] != v.BatteryKWh || c.VarHasPrice[i] != v.HasPrice ||
			c.VarPriceEUR[i] != v.PriceEUR || c.VarPriceAsOf[i] != v.PriceAsOf || c.VarSyncedAt[i] != v.SyncedAt {
			t.Fatalf("variant %d differs", v.ID)
		}
		first, end := c.VariantSpecs(r)
		if first != v.SpecStart || end != v.SpecEnd {
			t.Fatalf("variant %d spec span differs", v.ID)
		}
		if f, e := c.VariantImages(r); f != v.ImageStart || e != v.ImageEnd {
			t.Fatalf("variant %d image span differs", v.ID)
		}
	}
	if !equal(c.SpecKey, s.SpecKey) || !equal(c.SpecVal, s.SpecVal) || !equal(c.SpecConf, s.SpecConf) {
		t.Fatal("spec values differ")
	}
	if !equal(c.ImageKey, s.ImageKey) || !equal(c.ImageRole, s.ImageRole) || !equal(c.Demo, s.Demo) {
		t.Fatal("images or demo rows differ")
	}
	for i, txt := range s.Texts {
		if c.Texts.String(uint32(i)) != txt {
			t.Fatalf("text %d differs", i)
		}
	}
	v := s.Vocab
	for i, st := range v.Specs {
		cs := c.Specs[i]
		if cs.Key != st.Key || int(cs.Group) != st.Group || uint8(cs.Kind) != uint8(st.Kind) || cs.Scale != st.Scale || int(cs.Enum) != st.Enum || cs.Unit != st.Unit || cs.Module != st.Module {
			t.Fatalf("spec type %s differs: %+v", st.Key, cs)
		}
		for li := range vocab.Locales {
			if c.SpecLabels[li].String(uint32(i)) != st.Labels[li] {
				t.Fatalf("label of %s in %s differs", st.Key, vocab.Locales[li])
			}
		}
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDeterministicBytes(t *testing.T) {
	_, file := small(t)
	_, again, err := generate(3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, file) {
		t.Fatal("the same seed gave two different snapshot files")
	}
}

// TestRefusesCorruptFiles checks that every kind of damage is refused with
// an error naming it, never a panic or a silently different catalogue.
func TestRefusesCorruptFiles(t *testing.T) {
	_, file := small(t)
	clone := func() []byte { return append([]byte(nil), file...) }
	f := func(name string, b []byte, want error, wantText string) {
		t.Helper()
		_, err := FromBytes(b)
		if err == nil {
			t.Errorf("%s: accepted", name)
			return
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: error %q is not %v", name, err, want)
		}
		if !strings.Contains(err.Error(), wantText) {
			t.Errorf("%s: error %q does not say %q", name, err, wantText)
		}
	}
	f("empty", nil, ErrNotSnapshot, "does not start with")
	f("other file", []byte("PK\x03\x04 a zip file"), ErrNotSnapshot, "does not start with")
	b := clone()
	binary.LittleEndian.PutUint32(b[8:], FormatVersion+1)
	f("future version", b, ErrVersion, fmt.Sprintf("version %d", FormatVersion+1))
	b = clone()
	binary.LittleEndian.PutUint32(b[12:], 1)
	f("flags", b, ErrCorrupt, "flags")
	f("header only", file[:40], ErrCorrupt, "header truncated")
	f("truncated payload", file[:len(file)-100], ErrCorrupt, "truncated")
	f("trailing bytes", append(clone(), 0, 0), ErrCorrupt, "trailing bytes")
	b = clone()
	b[len(b)/2] ^= 0x40
	f("flipped payload bit", b, ErrCorrupt, "")
	b = clone()
	b[40] ^= 1
	f("wrong checksum", b, ErrCorrupt, "checksum")
	b = clone()
	binary.LittleEndian.PutUint64(b[24:], uint64(MaxPayload)+1)
	f("huge declared payload", b, ErrCorrupt, "exceeds the limit")
	// Every prefix of the file is refused.
	for n := 0; n < len(file); n += 1 + len(file)/97 {
		if _, err := FromBytes(file[:n]); err == nil {
			t.Fatalf("a prefix of %d bytes was accepted", n)
		}
	}
}

// TestRefusesInconsistentPayloads damages the payload after the checksum,
// as a buggy writer would, and checks that the reader and engine.New catch it.
func TestRefusesInconsistentPayloads(t *testing.T) {
	s, _ := small(t)
	payload := Encode(s)
	h := Header{Version: FormatVersion}
	decode := func(p []byte) error {
		cols, err := Decode(h, p)
		if err != nil {
			return err
		}
		_, err = engine.New(cols)
		return err
	}
	if err := decode(payload); err != nil {
		t.Fatalf("intact payload: %v", err)
	}
	// Swap two variant ids: ids no longer ascend.
	bad := *s
	bad.Variants = append([]dataset.Variant(nil), s.Variants...)
	bad.Variants[3].ID, bad.Variants[4].ID = bad.Variants[4].ID, bad.Variants[3].ID
	if err := decode(Encode(&bad)); !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "ascending") {
		t.Errorf("unsorted ids: %v", err)
	}
	// An out-of-range enum value in a spec.
	bad = *s
	bad.SpecVal = append([]int32(nil), s.SpecVal...)
	fuel := 0
	for j, k := range s.SpecKey {
		if s.Vocab.Specs[k].Key == "fuel_type" {
			fuel = j
			break
		}
	}
	bad.SpecVal[fuel] = 77
	if err := decode(Encode(&bad)); !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "fuel_type") {
		t.Errorf("bad enum value: %v", err)
	}
	// A section tag replaced.
	p := append([]byte(nil), payload...)
	i := bytes.Index(p, []byte("VALS"))
	copy(p[i:], "XXXX")
	if err := decode(p); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "expected section VALS") {
		t.Errorf("renamed section: %v", err)
	}
	// A count forged to be huge must fail without allocating it.
	p = append([]byte(nil), payload...)
	binary.LittleEndian.PutUint32(p[12+8+8+8+1+len(s.CDNBase)+1+len(Generator)+12:], 0x7fffffff) // n_variants
	if err := decode(p); !errors.Is(err, ErrCorrupt) {
		t.Errorf("forged variant count: %v", err)
	}
}

// fixturePath is the checked-in snapshot of a format version.
func fixturePath(version int) string {
	return filepath.Join("testdata", fmt.Sprintf("v%d.snap", version))
}

// TestFixture loads the checked-in snapshot of each format version, so a
// change that breaks reading old files fails here. Run with -update after a
// deliberate change of the generator to refresh the current version's file.
func TestFixture(t *testing.T) {
	if *update {
		s, err := gen.Generate(vocab.Default(), gen.Options{Scale: 0.001, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(fixturePath(FormatVersion), s); err != nil {
			t.Fatal(err)
		}
	}
	for v := 1; v <= FormatVersion; v++ {
		c, err := Load(fixturePath(v))
		if err != nil {
			t.Fatal(err)
		}
		if c.Meta.Version != uint32(v) || len(c.Demo) != 40 || len(c.Specs) != 232 || len(c.Locales) != 20 {
			t.Errorf("fixture v%d: version %d, %d demo rows, %d specs, %d locales", v, c.Meta.Version, len(c.Demo), len(c.Specs), len(c.Locales))
		}
		st, _ := os.Stat(fixturePath(v))
		if st.Size() > 1<<20 {
			t.Errorf("fixture v%d is %d bytes; keep it small", v, st.Size())
		}
		de, _ := c.Locale("de")
		bg, _ := c.Locale("bg")
		hp, _ := c.SpecIndex("power_hp")
		vw, _ := c.BrandBySlug("volkswagen")
		unit, name := c.SpecUnits[de].String(uint32(hp)), c.BrandDisplayName(bg, vw)
		image := string(c.AppendImageURL(nil, "https://cdn", 0))
		switch v {
		case 1: // units were English everywhere, local brand names displayed, images by random key
			if unit != "hp" || name != "Фолксваген" || c.BrandAliases[bg].String(vw) != "Фолксваген" || !strings.Contains(image, "/card/") && !strings.Contains(image, "/hero/") {
				t.Errorf("fixture v1: power in de %q, Volkswagen in bg %q, image %s", unit, name, image)
			}
		default:
			if unit != "PS" || name != "Volkswagen" || c.BrandAliases[bg].String(vw) != "Фолксваген" || !strings.HasSuffix(image, "-1600x900.webp") {
				t.Errorf("fixture v%d: power in de %q, Volkswagen in bg %q (alias %q), image %s", v, unit, name, c.BrandAliases[bg].String(vw), image)
			}
		}
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	s, file := small(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "c.snap")
	if err := WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, file) {
		t.Error("file content differs from Write")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestContentHash: a catalogue read from a file carries the file's
// SHA-256 in hex, what sha256sum prints and what a fleet rolls out by.
func TestContentHash(t *testing.T) {
	_, file := small(t)
	c, err := FromBytes(file)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(file)
	if want := hex.EncodeToString(sum[:]); c.Meta.ContentHash != want {
		t.Errorf("ContentHash %q, want %q", c.Meta.ContentHash, want)
	}
}
