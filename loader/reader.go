package loader

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
)

// Header is the fixed-size head of a snapshot file.
type Header struct {
	Version          uint32
	CompressedSize   uint64
	UncompressedSize uint64
	Digest           [32]byte // SHA-256 of the uncompressed payload
}

// Identity returns the snapshot identity derived from the digest.
func (h *Header) Identity() string { return hex.EncodeToString(h.Digest[:8]) }

// ParseHeader checks the magic, the version and the declared sizes.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < 8 || string(b[:8]) != magic {
		return h, fmt.Errorf("%w: the file does not start with %q", ErrNotSnapshot, magic)
	}
	if len(b) < headerSize {
		return h, corruptf("header truncated: %d of %d bytes", len(b), headerSize)
	}
	h.Version = binary.LittleEndian.Uint32(b[8:])
	if h.Version < 1 || h.Version > FormatVersion {
		return h, fmt.Errorf("%w: version %d, this reader knows versions 1 to %d", ErrVersion, h.Version, FormatVersion)
	}
	if flags := binary.LittleEndian.Uint32(b[12:]); flags != 0 {
		return h, corruptf("unknown header flags %#x", flags)
	}
	h.CompressedSize = binary.LittleEndian.Uint64(b[16:])
	h.UncompressedSize = binary.LittleEndian.Uint64(b[24:])
	copy(h.Digest[:], b[32:64])
	if h.UncompressedSize > MaxPayload {
		return h, corruptf("declared payload of %d bytes exceeds the limit of %d", h.UncompressedSize, uint64(MaxPayload))
	}
	if rest := uint64(len(b) - headerSize); h.CompressedSize != rest {
		if h.CompressedSize > rest {
			return h, corruptf("truncated: the header declares %d payload bytes, the file has %d", h.CompressedSize, rest)
		}
		return h, corruptf("%d trailing bytes after the payload", rest-h.CompressedSize)
	}
	return h, nil
}

// Decompress checks the header of a whole snapshot file and returns its
// verified, uncompressed payload.
func Decompress(file []byte) (Header, []byte, error) {
	h, err := ParseHeader(file)
	if err != nil {
		return h, nil, err
	}
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(h.UncompressedSize+1), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return h, nil, fmt.Errorf("cannot create zstd decoder: %w", err)
	}
	defer zr.Close()
	payload, err := zr.DecodeAll(file[headerSize:], make([]byte, 0, h.UncompressedSize))
	if err != nil {
		return h, nil, corruptf("cannot decompress payload: %v", err)
	}
	if uint64(len(payload)) != h.UncompressedSize {
		return h, nil, corruptf("payload is %d bytes, the header declares %d", len(payload), h.UncompressedSize)
	}
	if sha256.Sum256(payload) != h.Digest {
		return h, nil, corruptf("payload checksum mismatch")
	}
	return h, payload, nil
}

// Decode parses a verified payload into catalogue columns.
func Decode(h Header, payload []byte) (engine.Columns, error) {
	x := &decoder{dec: dec{b: payload}, size: len(payload)}
	x.c.Meta.Identity = h.Identity()
	x.c.Meta.Version = h.Version
	for i := range sections {
		if x.section(i); x.err != nil {
			return x.c, x.err
		}
	}
	if x.off != len(x.b) {
		x.sec = "END!"
		x.fail("%d bytes after the last section", len(x.b)-x.off)
	}
	// The search aliases are not in the snapshot: they come with the
	// binary's vocabulary, like the labels' fallbacks.
	for _, a := range vocab.Default().Aliases {
		x.c.SearchAliases = append(x.c.SearchAliases, engine.SearchAlias{Alias: a.Alias, BrandSlug: a.Brand})
	}
	return x.c, x.err
}

// sections are the payload's sections in the order the format fixes (see
// the package doc), each with the method that reads its body. Decode reads
// them in this order and nothing else: a tag that is not the next one here
// (unknown, missing, repeated or out of order) makes the payload corrupt.
var sections = [...]struct {
	tag  string
	read func(*decoder)
}{
	{"META", (*decoder).readMeta},
	{"LOCL", (*decoder).readLocales},
	{"GRUP", (*decoder).readGroups},
	{"ENUM", (*decoder).readEnums},
	{"SPEC", (*decoder).readSpecs},
	{"BRND", (*decoder).readBrands},
	{"MODL", (*decoder).readModels},
	{"GENR", (*decoder).readGenerations},
	{"VARI", (*decoder).readVariants},
	{"VALS", (*decoder).readValues},
	{"TEXT", (*decoder).readTexts},
	{"IMGS", (*decoder).readImages},
	{"DEMO", (*decoder).readDemo},
	{"END!", func(*decoder) {}},
}

// decoder is the state of Decode: the payload cursor, the columns being
// filled, and the counts META declares, which size the later sections.
type decoder struct {
	dec
	size int // bytes in the whole payload
	c    engine.Columns
	n    struct{ brands, models, gens, variants, values, images, texts, locales, groups, specs, enums int }
}

// section reads the header of section i, which must carry its tag, and
// reads the body with the section's method. The method sees the body alone
// (it cannot read into the next section) and must consume all of it.
func (x *decoder) section(i int) {
	tag := sections[i].tag
	x.sec = tag
	if !x.need(12) {
		return
	}
	if got := string(x.b[x.off : x.off+4]); got != tag {
		x.fail("expected section %s, found %q", tag, got)
		return
	}
	x.off += 4
	size := x.u64()
	if size > uint64(len(x.b)-x.off) {
		x.fail("section length %d runs past the end", size)
		return
	}
	end := x.off + int(size)
	payload := x.b
	x.b = x.b[:end] // a section cannot read into the next one
	sections[i].read(x)
	if x.err == nil && x.off != end {
		x.fail("%d unread bytes at the end of the section", end-x.off)
	}
	x.b = payload
}

// labels reads one string per locale into the locales' builders.
func (x *decoder) labels(dst []engine.TextBuilder) {
	for li := range dst {
		dst[li].AddBytes(x.strBytes())
	}
}

// builders returns a text builder per locale, each sized for count strings
// of avg bytes.
func (x *decoder) builders(count, avg int) []engine.TextBuilder {
	bs := make([]engine.TextBuilder, x.n.locales)
	for i := range bs {
		bs[i] = *engine.NewTextBuilder(count, avg)
	}
	return bs
}

// buildTexts returns the tables the builders hold.
func buildTexts(bs []engine.TextBuilder) []engine.Text {
	out := make([]engine.Text, len(bs))
	for i := range bs {
		out[i] = bs[i].Text()
	}
	return out
}

// limit returns v as a count, failing when it exceeds max.
func (x *decoder) limit(what string, v uint32, max int) int {
	if int64(v) > int64(max) {
		x.fail("%s: %d exceeds %d", what, v, max)
		return 0
	}
	return int(v)
}

// readMeta reads META: the snapshot's metadata and the counts of
// everything that follows.
func (x *decoder) readMeta() {
	c, n := &x.c, &x.n
	c.Meta.Seed = x.u64()
	c.Meta.Scale = x.f64()
	c.Meta.SyncedAt = time.Unix(x.i64(), 0).UTC()
	c.Meta.CDNBase = x.str()
	c.Meta.Generator = x.str()
	// Counts are bounded by the payload size, so forged counts cannot
	// trigger huge allocations.
	p := x.size
	n.brands = x.limit("brands", x.u32(), p/8)
	n.models = x.limit("models", x.u32(), p/8)
	n.gens = x.limit("generations", x.u32(), p/8)
	n.variants = x.limit("variants", x.u32(), p/32)
	n.values = x.limit("values", x.u32(), p/3)
	n.images = x.limit("images", x.u32(), p/5)
	n.texts = x.limit("texts", x.u32(), p)
	n.locales = x.limit("locales", x.u32(), 64)
	n.groups = x.limit("groups", x.u32(), 1<<16)
	n.specs = x.limit("specs", x.u32(), 256)
	n.enums = x.limit("enums", x.u32(), 1<<15)
}

// readLocales reads LOCL: the locale codes.
func (x *decoder) readLocales() {
	for i := 0; i < x.n.locales && x.err == nil; i++ {
		x.c.Locales = append(x.c.Locales, x.str())
	}
}

// readGroups reads GRUP: the spec groups and their labels.
func (x *decoder) readGroups() {
	c, n := &x.c, &x.n
	if !x.fits("groups", uint64(n.groups), 1+n.locales) {
		return
	}
	lb := x.builders(n.groups, 16)
	for i := 0; i < n.groups && x.err == nil; i++ {
		c.Groups = append(c.Groups, x.str())
		x.labels(lb)
	}
	c.GroupLabels = buildTexts(lb)
}

// readEnums reads ENUM: the enumerations, their slugs and labels.
func (x *decoder) readEnums() {
	c, n := &x.c, &x.n
	if !x.fits("enums", uint64(n.enums), 2) {
		return
	}
	lb := x.builders(64, 12)
	first := uint32(0)
	for i := 0; i < n.enums && x.err == nil; i++ {
		g := engine.EnumGroup{Key: x.str(), First: first}
		nv := x.count("enum values", 1+n.locales)
		if nv > 255 {
			x.fail("enum %q has %d values", g.Key, nv)
		}
		for j := 0; j < nv && x.err == nil; j++ {
			g.Slugs = append(g.Slugs, x.str())
			x.labels(lb)
		}
		first += uint32(nv)
		c.Enums = append(c.Enums, g)
	}
	c.EnumLabels = buildTexts(lb)
}

// readSpecs reads SPEC: the spec dictionary and its labels.
func (x *decoder) readSpecs() {
	c, n := &x.c, &x.n
	if !x.fits("specs", uint64(n.specs), 9+n.locales) {
		return
	}
	lb, units := x.builders(n.specs, 24), x.builders(n.specs, 3)
	for i := 0; i < n.specs && x.err == nil; i++ {
		st := engine.SpecType{Key: x.str(), Group: x.u16(), Kind: engine.Kind(x.u8()), Scale: x.u8(), Enum: x.i16()}
		st.Unit = x.str()
		st.Module = x.str()
		x.labels(lb)
		if x.c.Meta.Version >= 2 {
			x.labels(units)
		} else { // version 1 wrote every unit in English
			for li := range units {
				units[li].Add(st.Unit)
			}
		}
		c.Specs = append(c.Specs, st)
	}
	c.SpecLabels, c.SpecUnits = buildTexts(lb), buildTexts(units)
}

// readBrands reads BRND: the brand rows with their localized names.
func (x *decoder) readBrands() {
	c, n := &x.c, &x.n
	if !x.fits("brands", uint64(n.brands), 10+n.locales) {
		return
	}
	c.BrandID = make([]uint32, n.brands)
	c.BrandPopularity = make([]uint16, n.brands)
	slug, name, wd, country := engine.NewTextBuilder(n.brands, 10), engine.NewTextBuilder(n.brands, 10), engine.NewTextBuilder(n.brands, 8), engine.NewTextBuilder(n.brands, 2)
	lb, aliases := x.builders(n.brands, 2), x.builders(n.brands, 2)
	for i := 0; i < n.brands && x.err == nil; i++ {
		c.BrandID[i] = x.u32()
		slug.AddBytes(x.strBytes())
		name.AddBytes(x.strBytes())
		c.BrandPopularity[i] = x.u16()
		wd.AddBytes(x.strBytes())
		country.AddBytes(x.strBytes())
		names := x.off
		x.labels(lb)
		if x.c.Meta.Version >= 2 {
			x.labels(aliases)
		} else { // version 1: the displayed local names were the aliases
			x.off = names
			x.labels(aliases)
		}
	}
	c.BrandSlug, c.BrandName, c.BrandWikidata, c.BrandCountry = slug.Text(), name.Text(), wd.Text(), country.Text()
	c.BrandNames, c.BrandAliases = buildTexts(lb), buildTexts(aliases)
}

// readModels reads MODL: the model rows.
func (x *decoder) readModels() {
	c, n := &x.c, &x.n
	if !x.fits("models", uint64(n.models), 10) {
		return
	}
	c.ModelID, c.ModelBrand = make([]uint32, n.models), make([]uint32, n.models)
	name, slug := engine.NewTextBuilder(n.models, 10), engine.NewTextBuilder(n.models, 10)
	for i := 0; i < n.models && x.err == nil; i++ {
		c.ModelID[i], c.ModelBrand[i] = x.u32(), x.u32()
		name.AddBytes(x.strBytes())
		slug.AddBytes(x.strBytes())
	}
	c.ModelName, c.ModelSlug = name.Text(), slug.Text()
}

// readGenerations reads GENR: the generation rows.
func (x *decoder) readGenerations() {
	c, n := &x.c, &x.n
	if !x.fits("generations", uint64(n.gens), 14) {
		return
	}
	c.GenID, c.GenModel = make([]uint32, n.gens), make([]uint32, n.gens)
	c.GenYearStart, c.GenYearEnd = make([]uint16, n.gens), make([]uint16, n.gens)
	name, slug := engine.NewTextBuilder(n.gens, 14), engine.NewTextBuilder(n.gens, 14)
	for i := 0; i < n.gens && x.err == nil; i++ {
		c.GenID[i], c.GenModel[i] = x.u32(), x.u32()
		name.AddBytes(x.strBytes())
		slug.AddBytes(x.strBytes())
		c.GenYearStart[i], c.GenYearEnd[i] = x.u16(), x.u16()
	}
	c.GenName, c.GenSlug = name.Text(), slug.Text()
}

// readVariants reads VARI: the variant columns, and turns the spec and
// image counts into offsets.
func (x *decoder) readVariants() {
	c, nv := &x.c, x.n.variants
	if !x.fits("variants", uint64(nv), 4+4+1+4+5*4+1+4+4+8+2) {
		return
	}
	c.VarID = x.u32s(nv)
	c.VarGen = x.u32s(nv)
	name := engine.NewTextBuilder(nv, 28)
	for i := 0; i < nv && x.err == nil; i++ {
		name.AddBytes(x.strBytes())
	}
	c.VarName = name.Text()
	c.VarFuel, c.VarBody, c.VarDrive, c.VarTransmission = x.u8s(nv), x.u8s(nv), x.u8s(nv), x.u8s(nv)
	c.VarPowerHP, c.VarTorqueNM, c.VarTopSpeedKMH, c.VarAccel100, c.VarBatteryKWh = x.i32s(nv), x.i32s(nv), x.i32s(nv), x.i32s(nv), x.i32s(nv)
	hp := x.u8s(nv)
	c.VarHasPrice = make([]bool, nv)
	for i, b := range hp {
		if b > 1 {
			x.fail("has_price of row %d is %d", i, b)
		}
		c.VarHasPrice[i] = b == 1
	}
	c.VarPriceEUR, c.VarPriceAsOf = x.i32s(nv), x.i32s(nv)
	c.VarSyncedAt = make([]int64, nv)
	for i := range c.VarSyncedAt {
		c.VarSyncedAt[i] = x.i64()
	}
	c.VarSpecOff = x.offsets(nv, x.n.values, "spec")
	c.VarImageOff = x.offsets(nv, x.n.images, "image")
}

func (x *decoder) u32s(n int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = x.u32()
	}
	return v
}

func (x *decoder) i32s(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = x.i32()
	}
	return v
}

func (x *decoder) u8s(n int) []uint8 {
	if !x.need(n) {
		return make([]uint8, n)
	}
	v := append([]uint8(nil), x.b[x.off:x.off+n]...)
	x.off += n
	return v
}

// offsets reads n uvarint counts that must add up to total and returns
// them as n+1 offsets.
func (x *decoder) offsets(n, total int, what string) []uint32 {
	off := make([]uint32, n+1)
	sum := uint64(0)
	for i := 0; i < n && x.err == nil; i++ {
		sum += x.uvarint()
		if sum > uint64(total) {
			x.fail("%s counts exceed the %d declared", what, total)
		}
		off[i+1] = uint32(sum)
	}
	if x.err == nil && sum != uint64(total) {
		x.fail("%s counts add up to %d, %d declared", what, sum, total)
	}
	return off
}

// readValues reads VALS: the spec values (see decodeValues).
func (x *decoder) readValues() {
	if x.err != nil {
		return
	}
	decodeValues(&x.dec, &x.c, x.n.variants, x.n.values, x.n.specs)
}

// readTexts reads TEXT: the dictionary of text spec values.
func (x *decoder) readTexts() {
	n := x.n.texts
	if !x.fits("texts", uint64(n), 1) {
		return
	}
	t := engine.NewTextBuilder(n, 1)
	for i := 0; i < n && x.err == nil; i++ {
		t.AddBytes(x.strBytes())
	}
	x.c.Texts = t.Text()
}

// readImages reads IMGS: the image keys and roles.
func (x *decoder) readImages() {
	c, n := &x.c, x.n.images
	if !x.need(n * 5) {
		return
	}
	c.ImageKey = x.u32s(n)
	c.ImageRole = append([]uint8(nil), x.b[x.off:x.off+n]...)
	x.off += n
}

// readDemo reads DEMO: the variant rows of the demo set.
func (x *decoder) readDemo() {
	cnt := x.count("demo rows", 1)
	for i := 0; i < cnt && x.err == nil; i++ {
		x.c.Demo = append(x.c.Demo, uint32(x.uvarint()))
	}
}

// Read reads a whole snapshot from r and builds the catalogue.
func Read(r io.Reader) (*engine.Catalogue, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("cannot read snapshot: %w", err)
	}
	return FromBytes(buf.Bytes())
}

// FromBytes builds the catalogue from the bytes of a snapshot file. Any
// inconsistency, including one engine.New finds, is reported as ErrCorrupt.
// The catalogue's Meta.ContentHash is the SHA-256 of file.
func FromBytes(file []byte) (*engine.Catalogue, error) {
	h, payload, err := Decompress(file)
	if err != nil {
		return nil, err
	}
	cols, err := Decode(h, payload)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(file)
	cols.Meta.ContentHash = hex.EncodeToString(sum[:])
	cat, err := engine.New(cols)
	if err != nil {
		if errors.Is(err, engine.ErrInvalid) {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil, err
	}
	return cat, nil
}

// Load reads the snapshot file at path and builds the catalogue.
func Load(path string) (*engine.Catalogue, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read snapshot: %w", err)
	}
	cat, err := FromBytes(b)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return cat, nil
}

// decodeValues reads the VALS section into the value columns. It is the
// hot loop of loading (16 million values): it works on a local cursor and
// takes the one-byte varint path inline.
func decodeValues(d *dec, c *engine.Columns, nv, total, nSpecs int) {
	if !d.need(2 * total) {
		return
	}
	b := d.b
	keys := b[d.off : d.off+total]
	c.SpecKey, c.SpecVal, c.SpecConf = make([]uint8, total), make([]int32, total), make([]uint8, total)
	for r := 0; r < nv; r++ {
		k := -1
		for j := c.VarSpecOff[r]; j < c.VarSpecOff[r+1]; j++ {
			k += 1 + int(keys[j])
			if k >= nSpecs {
				d.off += int(j)
				d.fail("variant row %d: spec key %d out of range", r, k)
				return
			}
			c.SpecKey[j] = uint8(k)
		}
	}
	off := d.off + total
	var last [256]int64
	for j, k := range c.SpecKey {
		ux, n := uvarintAt(b, off)
		if n <= 0 {
			d.off = off
			d.fail("malformed value %d", j)
			return
		}
		off += n
		v := last[k] + (int64(ux>>1) ^ -int64(ux&1)) // zig-zag
		if v < -1<<31 || v > 1<<31-1 {
			d.off = off
			d.fail("value %d overflows int32", j)
			return
		}
		last[k] = v
		c.SpecVal[j] = int32(v)
	}
	if len(b)-off < total {
		d.off = off
		d.fail("confidences truncated")
		return
	}
	copy(c.SpecConf, b[off:off+total])
	d.off = off + total
}

// uvarintAt decodes an unsigned varint at b[off:], with the one-byte case
// inline. It returns n <= 0 on malformed or truncated input.
func uvarintAt(b []byte, off int) (uint64, int) {
	if off < len(b) && b[off] < 0x80 {
		return uint64(b[off]), 1
	}
	if off >= len(b) {
		return 0, 0
	}
	return binary.Uvarint(b[off:])
}
