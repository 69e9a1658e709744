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
	if h.Version != FormatVersion {
		return h, fmt.Errorf("%w: version %d, this reader knows version %d", ErrVersion, h.Version, FormatVersion)
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
	d := &dec{b: payload}
	var c engine.Columns
	c.Meta.Identity = h.Identity()
	c.Meta.Version = h.Version
	var n struct{ brands, models, gens, variants, values, images, texts, locales, groups, specs, enums int }
	section := func(i int, fn func()) {
		tag := sectionOrder[i]
		d.sec = tag
		if !d.need(12) {
			return
		}
		if got := string(d.b[d.off : d.off+4]); got != tag {
			d.fail("expected section %s, found %q", tag, got)
			return
		}
		d.off += 4
		size := d.u64()
		if size > uint64(len(d.b)-d.off) {
			d.fail("section length %d runs past the end", size)
			return
		}
		end := d.off + int(size)
		body := d.b
		d.b = d.b[:end] // a section cannot read into the next one
		fn()
		if d.err == nil && d.off != end {
			d.fail("%d unread bytes at the end of the section", end-d.off)
		}
		d.b = body
	}
	labels := func(dst []engine.TextBuilder) {
		for li := range dst {
			dst[li].AddBytes(d.strBytes())
		}
	}
	builders := func(count, avg int) []engine.TextBuilder {
		bs := make([]engine.TextBuilder, n.locales)
		for i := range bs {
			bs[i] = *engine.NewTextBuilder(count, avg)
		}
		return bs
	}
	texts := func(bs []engine.TextBuilder) []engine.Text {
		out := make([]engine.Text, len(bs))
		for i := range bs {
			out[i] = bs[i].Text()
		}
		return out
	}
	limit := func(what string, v uint32, max int) int {
		if int64(v) > int64(max) {
			d.fail("%s: %d exceeds %d", what, v, max)
			return 0
		}
		return int(v)
	}

	section(0, func() {
		c.Meta.Seed = d.u64()
		c.Meta.Scale = d.f64()
		c.Meta.SyncedAt = time.Unix(d.i64(), 0).UTC()
		c.Meta.CDNBase = d.str()
		c.Meta.Generator = d.str()
		// Counts are bounded by the payload size, so forged counts cannot
		// trigger huge allocations.
		p := len(payload)
		n.brands = limit("brands", d.u32(), p/8)
		n.models = limit("models", d.u32(), p/8)
		n.gens = limit("generations", d.u32(), p/8)
		n.variants = limit("variants", d.u32(), p/32)
		n.values = limit("values", d.u32(), p/3)
		n.images = limit("images", d.u32(), p/5)
		n.texts = limit("texts", d.u32(), p)
		n.locales = limit("locales", d.u32(), 64)
		n.groups = limit("groups", d.u32(), 1<<16)
		n.specs = limit("specs", d.u32(), 256)
		n.enums = limit("enums", d.u32(), 1<<15)
	})
	section(1, func() {
		for i := 0; i < n.locales && d.err == nil; i++ {
			c.Locales = append(c.Locales, d.str())
		}
	})
	section(2, func() {
		if !d.fits("groups", uint64(n.groups), 1+n.locales) {
			return
		}
		lb := builders(n.groups, 16)
		for i := 0; i < n.groups && d.err == nil; i++ {
			c.Groups = append(c.Groups, d.str())
			labels(lb)
		}
		c.GroupLabels = texts(lb)
	})
	section(3, func() {
		if !d.fits("enums", uint64(n.enums), 2) {
			return
		}
		lb := builders(64, 12)
		first := uint32(0)
		for i := 0; i < n.enums && d.err == nil; i++ {
			g := engine.EnumGroup{Key: d.str(), First: first}
			nv := d.count("enum values", 1+n.locales)
			if nv > 255 {
				d.fail("enum %q has %d values", g.Key, nv)
			}
			for j := 0; j < nv && d.err == nil; j++ {
				g.Slugs = append(g.Slugs, d.str())
				labels(lb)
			}
			first += uint32(nv)
			c.Enums = append(c.Enums, g)
		}
		c.EnumLabels = texts(lb)
	})
	section(4, func() {
		if !d.fits("specs", uint64(n.specs), 9+n.locales) {
			return
		}
		lb := builders(n.specs, 24)
		for i := 0; i < n.specs && d.err == nil; i++ {
			st := engine.SpecType{Key: d.str(), Group: d.u16(), Kind: engine.Kind(d.u8()), Scale: d.u8(), Enum: d.i16()}
			st.Unit = d.str()
			st.Module = d.str()
			labels(lb)
			c.Specs = append(c.Specs, st)
		}
		c.SpecLabels = texts(lb)
	})
	section(5, func() {
		if !d.fits("brands", uint64(n.brands), 10+n.locales) {
			return
		}
		c.BrandID = make([]uint32, n.brands)
		c.BrandPopularity = make([]uint16, n.brands)
		slug, name, wd, country := engine.NewTextBuilder(n.brands, 10), engine.NewTextBuilder(n.brands, 10), engine.NewTextBuilder(n.brands, 8), engine.NewTextBuilder(n.brands, 2)
		lb := builders(n.brands, 2)
		for i := 0; i < n.brands && d.err == nil; i++ {
			c.BrandID[i] = d.u32()
			slug.AddBytes(d.strBytes())
			name.AddBytes(d.strBytes())
			c.BrandPopularity[i] = d.u16()
			wd.AddBytes(d.strBytes())
			country.AddBytes(d.strBytes())
			labels(lb)
		}
		c.BrandSlug, c.BrandName, c.BrandWikidata, c.BrandCountry = slug.Text(), name.Text(), wd.Text(), country.Text()
		c.BrandNames = texts(lb)
	})
	section(6, func() {
		if !d.fits("models", uint64(n.models), 10) {
			return
		}
		c.ModelID, c.ModelBrand = make([]uint32, n.models), make([]uint32, n.models)
		name, slug := engine.NewTextBuilder(n.models, 10), engine.NewTextBuilder(n.models, 10)
		for i := 0; i < n.models && d.err == nil; i++ {
			c.ModelID[i], c.ModelBrand[i] = d.u32(), d.u32()
			name.AddBytes(d.strBytes())
			slug.AddBytes(d.strBytes())
		}
		c.ModelName, c.ModelSlug = name.Text(), slug.Text()
	})
	section(7, func() {
		if !d.fits("generations", uint64(n.gens), 14) {
			return
		}
		c.GenID, c.GenModel = make([]uint32, n.gens), make([]uint32, n.gens)
		c.GenYearStart, c.GenYearEnd = make([]uint16, n.gens), make([]uint16, n.gens)
		name, slug := engine.NewTextBuilder(n.gens, 14), engine.NewTextBuilder(n.gens, 14)
		for i := 0; i < n.gens && d.err == nil; i++ {
			c.GenID[i], c.GenModel[i] = d.u32(), d.u32()
			name.AddBytes(d.strBytes())
			slug.AddBytes(d.strBytes())
			c.GenYearStart[i], c.GenYearEnd[i] = d.u16(), d.u16()
		}
		c.GenName, c.GenSlug = name.Text(), slug.Text()
	})
	section(8, func() {
		nv := n.variants
		if !d.fits("variants", uint64(nv), 4+4+1+4+5*4+1+4+4+8+2) {
			return
		}
		u32s := func() []uint32 {
			x := make([]uint32, nv)
			for i := range x {
				x[i] = d.u32()
			}
			return x
		}
		i32s := func() []int32 {
			x := make([]int32, nv)
			for i := range x {
				x[i] = d.i32()
			}
			return x
		}
		u8s := func() []uint8 {
			if !d.need(nv) {
				return make([]uint8, nv)
			}
			x := append([]uint8(nil), d.b[d.off:d.off+nv]...)
			d.off += nv
			return x
		}
		c.VarID = u32s()
		c.VarGen = u32s()
		name := engine.NewTextBuilder(nv, 28)
		for i := 0; i < nv && d.err == nil; i++ {
			name.AddBytes(d.strBytes())
		}
		c.VarName = name.Text()
		c.VarFuel, c.VarBody, c.VarDrive, c.VarTransmission = u8s(), u8s(), u8s(), u8s()
		c.VarPowerHP, c.VarTorqueNM, c.VarTopSpeedKMH, c.VarAccel100, c.VarBatteryKWh = i32s(), i32s(), i32s(), i32s(), i32s()
		hp := u8s()
		c.VarHasPrice = make([]bool, nv)
		for i, b := range hp {
			if b > 1 {
				d.fail("has_price of row %d is %d", i, b)
			}
			c.VarHasPrice[i] = b == 1
		}
		c.VarPriceEUR, c.VarPriceAsOf = i32s(), i32s()
		c.VarSyncedAt = make([]int64, nv)
		for i := range c.VarSyncedAt {
			c.VarSyncedAt[i] = d.i64()
		}
		offsets := func(total int, what string) []uint32 {
			off := make([]uint32, nv+1)
			sum := uint64(0)
			for i := 0; i < nv && d.err == nil; i++ {
				sum += d.uvarint()
				if sum > uint64(total) {
					d.fail("%s counts exceed the %d declared", what, total)
				}
				off[i+1] = uint32(sum)
			}
			if d.err == nil && sum != uint64(total) {
				d.fail("%s counts add up to %d, %d declared", what, sum, total)
			}
			return off
		}
		c.VarSpecOff = offsets(n.values, "spec")
		c.VarImageOff = offsets(n.images, "image")
	})
	section(9, func() {
		if d.err != nil {
			return
		}
		decodeValues(d, &c, n.variants, n.values, n.specs)
	})
	section(10, func() {
		if !d.fits("texts", uint64(n.texts), 1) {
			return
		}
		t := engine.NewTextBuilder(n.texts, 1)
		for i := 0; i < n.texts && d.err == nil; i++ {
			t.AddBytes(d.strBytes())
		}
		c.Texts = t.Text()
	})
	section(11, func() {
		if !d.need(n.images * 5) {
			return
		}
		c.ImageKey = make([]uint32, n.images)
		for i := range c.ImageKey {
			c.ImageKey[i] = d.u32()
		}
		c.ImageRole = append([]uint8(nil), d.b[d.off:d.off+n.images]...)
		d.off += n.images
	})
	section(12, func() {
		cnt := d.count("demo rows", 1)
		for i := 0; i < cnt && d.err == nil; i++ {
			c.Demo = append(c.Demo, uint32(d.uvarint()))
		}
	})
	section(13, func() {})
	if d.err == nil && d.off != len(d.b) {
		d.sec = "END!"
		d.fail("%d bytes after the last section", len(d.b)-d.off)
	}
	return c, d.err
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
func FromBytes(file []byte) (*engine.Catalogue, error) {
	h, payload, err := Decompress(file)
	if err != nil {
		return nil, err
	}
	cols, err := Decode(h, payload)
	if err != nil {
		return nil, err
	}
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
