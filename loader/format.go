package loader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// FormatVersion is the version the writer produces.
const FormatVersion = 2

// MaxPayload bounds the uncompressed payload a reader accepts (2 GiB), so a
// forged header cannot make it allocate without limit.
const MaxPayload = 2 << 30

const (
	magic      = "VCATSNAP"
	headerSize = 64
)

// Errors a reader returns, wrapped with what exactly is wrong.
var (
	// ErrNotSnapshot: the file does not start with the snapshot magic.
	ErrNotSnapshot = errors.New("not a catalogue snapshot")
	// ErrVersion: the file is a snapshot of a version this reader does not know.
	ErrVersion = errors.New("unsupported snapshot version")
	// ErrCorrupt: the file is truncated, fails its checksum, or its content
	// contradicts itself.
	ErrCorrupt = errors.New("corrupt snapshot")
)

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// enc appends the payload's primitive encodings.
type enc struct{ b []byte }

func (e *enc) u8(v uint8)       { e.b = append(e.b, v) }
func (e *enc) u16(v uint16)     { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *enc) u32(v uint32)     { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) i16(v int16)      { e.u16(uint16(v)) }
func (e *enc) i32(v int32)      { e.u32(uint32(v)) }
func (e *enc) i64(v int64)      { e.u64(uint64(v)) }
func (e *enc) f64(v float64)    { e.u64(math.Float64bits(v)) }
func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) zvarint(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// section writes tag, a length placeholder and the body fn appends, then
// patches the length.
func (e *enc) section(tag string, fn func()) {
	e.b = append(e.b, tag...)
	at := len(e.b)
	e.u64(0)
	fn()
	binary.LittleEndian.PutUint64(e.b[at:], uint64(len(e.b)-at-8))
}

// dec reads the payload with bounds checks. The first error sticks; every
// later read returns zero values, so decoding code can check once per
// section.
type dec struct {
	b   []byte
	off int
	sec string
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = corruptf("section %s, payload byte %d: %s", d.sec, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *dec) need(n int) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || len(d.b)-d.off < n {
		d.fail("truncated: %d bytes needed, %d left", n, len(d.b)-d.off)
		return false
	}
	return true
}

func (d *dec) u8() uint8 {
	if !d.need(1) {
		return 0
	}
	d.off++
	return d.b[d.off-1]
}

func (d *dec) u16() uint16 {
	if !d.need(2) {
		return 0
	}
	d.off += 2
	return binary.LittleEndian.Uint16(d.b[d.off-2:])
}

func (d *dec) u32() uint32 {
	if !d.need(4) {
		return 0
	}
	d.off += 4
	return binary.LittleEndian.Uint32(d.b[d.off-4:])
}

func (d *dec) u64() uint64 {
	if !d.need(8) {
		return 0
	}
	d.off += 8
	return binary.LittleEndian.Uint64(d.b[d.off-8:])
}

func (d *dec) i16() int16   { return int16(d.u16()) }
func (d *dec) i32() int32   { return int32(d.u32()) }
func (d *dec) i64() int64   { return int64(d.u64()) }
func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("malformed uvarint")
		return 0
	}
	d.off += n
	return v
}

// strBytes returns a view of the next string's bytes.
func (d *dec) strBytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)-d.off) {
		d.fail("string of %d bytes runs past the end", n)
		return nil
	}
	if !d.need(int(n)) {
		return nil
	}
	d.off += int(n)
	return d.b[d.off-int(n) : d.off]
}

func (d *dec) str() string { return string(d.strBytes()) }

// count reads a uvarint element count and checks that n elements of at
// least minSize bytes each can still fit, so a forged count cannot make the
// reader allocate more than the payload's size.
func (d *dec) count(what string, minSize int) int {
	n := d.uvarint()
	d.fits(what, n, minSize)
	if d.err != nil {
		return 0
	}
	return int(n)
}

// fits checks that n elements of minSize bytes fit in what is left.
func (d *dec) fits(what string, n uint64, minSize int) bool {
	if d.err != nil {
		return false
	}
	if minSize > 0 && n > uint64(len(d.b)-d.off)/uint64(minSize) {
		d.fail("%s: %d elements cannot fit in %d bytes", what, n, len(d.b)-d.off)
		return false
	}
	return true
}
