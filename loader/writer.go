package loader

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

// Generator names the program that wrote a snapshot, recorded in META.
const Generator = "vspec-catalogue/gen v1"

// Encode returns the uncompressed payload of s.
func Encode(s *dataset.Set) []byte {
	v := s.Vocab
	nVals := len(s.SpecKey)
	e := &enc{b: make([]byte, 0, 64<<20)}
	e.section("META", func() {
		e.u64(s.Seed)
		e.f64(s.Scale)
		e.i64(s.SyncedAt)
		e.str(s.CDNBase)
		e.str(Generator)
		for _, n := range []int{len(s.Brands), len(s.Models), len(s.Generations), len(s.Variants), nVals, len(s.ImageKey), len(s.Texts), vocab.NumLocales, len(v.Groups), len(v.Specs), len(v.Enums)} {
			e.u32(uint32(n))
		}
	})
	labels := func(l *vocab.Labels) {
		for i := range l {
			e.str(l[i])
		}
	}
	e.section("LOCL", func() {
		for _, l := range vocab.Locales {
			e.str(l)
		}
	})
	e.section("GRUP", func() {
		for i := range v.Groups {
			e.str(v.Groups[i].Key)
			labels(&v.Groups[i].Labels)
		}
	})
	e.section("ENUM", func() {
		for _, g := range v.Enums {
			e.str(g.Key)
			e.uvarint(uint64(len(g.Values)))
			for i := range g.Values {
				e.str(g.Values[i].Slug)
				labels(&g.Values[i].Labels)
			}
		}
	})
	e.section("SPEC", func() {
		for i := range v.Specs {
			st := &v.Specs[i]
			e.str(st.Key)
			e.u16(uint16(st.Group))
			e.u8(uint8(st.Kind))
			e.u8(st.Scale)
			e.i16(int16(st.Enum))
			e.str(st.Unit)
			e.str(st.Module)
			labels(&st.Labels)
			labels(&st.Units)
		}
	})
	e.section("BRND", func() {
		for i := range s.Brands {
			b := &s.Brands[i]
			e.u32(b.ID)
			e.str(b.Slug)
			e.str(b.Name)
			e.u16(b.Popularity)
			e.str(b.Wikidata)
			e.str(b.Country)
			labels(&b.Names)
			labels(&b.Aliases)
		}
	})
	e.section("MODL", func() {
		for _, m := range s.Models {
			e.named(m.ID, m.Brand, m.Name, m.Slug)
		}
	})
	e.section("GENR", func() {
		for _, g := range s.Generations {
			e.named(g.ID, g.Model, g.Name, g.Slug)
			e.u16(g.YearStart)
			e.u16(g.YearEnd)
		}
	})
	e.section("VARI", func() {
		vs := s.Variants
		columns(vs, e.u32,
			func(x *dataset.Variant) uint32 { return x.ID },
			func(x *dataset.Variant) uint32 { return x.Generation })
		columns(vs, e.str, func(x *dataset.Variant) string { return x.Name })
		columns(vs, e.u8,
			func(x *dataset.Variant) uint8 { return x.Fuel },
			func(x *dataset.Variant) uint8 { return x.Body },
			func(x *dataset.Variant) uint8 { return x.Drive },
			func(x *dataset.Variant) uint8 { return x.Transmission })
		columns(vs, e.i32,
			func(x *dataset.Variant) int32 { return x.PowerHP },
			func(x *dataset.Variant) int32 { return x.TorqueNM },
			func(x *dataset.Variant) int32 { return x.TopSpeedKMH },
			func(x *dataset.Variant) int32 { return x.Accel100 },
			func(x *dataset.Variant) int32 { return x.BatteryKWh })
		columns(vs, e.u8, func(x *dataset.Variant) uint8 {
			if x.HasPrice {
				return 1
			}
			return 0
		})
		columns(vs, e.i32,
			func(x *dataset.Variant) int32 { return x.PriceEUR },
			func(x *dataset.Variant) int32 { return x.PriceAsOf })
		columns(vs, e.i64, func(x *dataset.Variant) int64 { return x.SyncedAt })
		columns(vs, e.uvarint,
			func(x *dataset.Variant) uint64 { return uint64(x.SpecEnd - x.SpecStart) },
			func(x *dataset.Variant) uint64 { return uint64(x.ImageEnd - x.ImageStart) })
	})
	e.section("VALS", func() {
		for r := range s.Variants {
			prev := -1
			for j := s.Variants[r].SpecStart; j < s.Variants[r].SpecEnd; j++ {
				e.u8(uint8(int(s.SpecKey[j]) - prev - 1))
				prev = int(s.SpecKey[j])
			}
		}
		var last [256]int64
		for j, k := range s.SpecKey {
			e.zvarint(int64(s.SpecVal[j]) - last[k])
			last[k] = int64(s.SpecVal[j])
		}
		e.b = append(e.b, s.SpecConf...)
	})
	e.section("TEXT", func() {
		for _, t := range s.Texts {
			e.str(t)
		}
	})
	e.section("IMGS", func() {
		for _, k := range s.ImageKey {
			e.u32(k)
		}
		e.b = append(e.b, s.ImageRole...)
	})
	e.section("DEMO", func() {
		e.uvarint(uint64(len(s.Demo)))
		for _, r := range s.Demo {
			e.uvarint(uint64(r))
		}
	})
	e.section("END!", func() {})
	return e.b
}

// named writes the fields that model and generation rows begin with: the
// row's id, its parent's id, its name and its slug.
func (e *enc) named(id, parent uint32, name, slug string) {
	e.u32(id)
	e.u32(parent)
	e.str(name)
	e.str(slug)
}

// columns writes each field of every variant with put, one column after
// another: VARI stores the variants column by column.
func columns[T any](vs []dataset.Variant, put func(T), fields ...func(*dataset.Variant) T) {
	for _, field := range fields {
		for i := range vs {
			put(field(&vs[i]))
		}
	}
}

// Write writes s as a snapshot to w. The output is a function of s alone.
func Write(w io.Writer, s *dataset.Set) error {
	payload := Encode(s)
	if len(payload) > MaxPayload {
		return fmt.Errorf("cannot write snapshot: payload of %d bytes exceeds %d", len(payload), MaxPayload)
	}
	// One goroutine and fixed options: the frame is reproducible.
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		return fmt.Errorf("cannot create zstd encoder: %w", err)
	}
	compressed := zw.EncodeAll(payload, make([]byte, 0, len(payload)/3))
	zw.Close()
	sum := sha256.Sum256(payload)
	var h [headerSize]byte
	copy(h[:8], magic)
	binary.LittleEndian.PutUint32(h[8:], FormatVersion)
	binary.LittleEndian.PutUint64(h[16:], uint64(len(compressed)))
	binary.LittleEndian.PutUint64(h[24:], uint64(len(payload)))
	copy(h[32:], sum[:])
	if _, err := w.Write(h[:]); err != nil {
		return fmt.Errorf("cannot write snapshot header: %w", err)
	}
	if _, err := io.Copy(w, bytes.NewReader(compressed)); err != nil {
		return fmt.Errorf("cannot write snapshot payload: %w", err)
	}
	return nil
}

// WriteFile writes s to path atomically: into a temporary file in the same
// directory, synced, then renamed over path, so a server reloading path
// never sees a half-written file.
func WriteFile(path string, s *dataset.Set) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".snapshot-*")
	if err != nil {
		return fmt.Errorf("cannot create temporary snapshot in %s: %w", dir, err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("cannot set the mode of %s: %w", f.Name(), err)
	}
	if err := Write(f, s); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("cannot sync %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot close %s: %w", f.Name(), err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("cannot move snapshot to %s: %w", path, err)
	}
	return nil
}
