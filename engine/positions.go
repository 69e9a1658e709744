package engine

import (
	"encoding/binary"
	"math"
)

// Cursor positions: the byte form of each list's sort key, with its encoder
// and decoder side by side, so a list's handler never spells offsets. The
// bytes are sealed by httpd/publicid before they leave the process; these
// forms only need to be exact and compact. Each Parse function accepts
// exactly what its Append wrote (views into pos, no copies) and reports
// false for anything else; a list then starts at its first page.

// AppendPosition appends k as popularity (2 bytes), id (4 bytes) and name.
func (k BrandKey) AppendPosition(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, k.Popularity)
	dst = binary.LittleEndian.AppendUint32(dst, k.ID)
	return append(dst, k.Name...)
}

// ParseBrandKey reads a position written by BrandKey.AppendPosition.
func ParseBrandKey(pos []byte) (BrandKey, bool) {
	if len(pos) < 6 {
		return BrandKey{}, false
	}
	return BrandKey{Popularity: binary.LittleEndian.Uint16(pos), ID: binary.LittleEndian.Uint32(pos[2:]), Name: pos[6:]}, true
}

// AppendPosition appends k as id (4 bytes) and name.
func (k ModelKey) AppendPosition(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, k.ID)
	return append(dst, k.Name...)
}

// ParseModelKey reads a position written by ModelKey.AppendPosition.
func ParseModelKey(pos []byte) (ModelKey, bool) {
	if len(pos) < 4 {
		return ModelKey{}, false
	}
	return ModelKey{ID: binary.LittleEndian.Uint32(pos), Name: pos[4:]}, true
}

// AppendPosition appends k as first year (2 bytes) and id (4 bytes).
func (k GenerationKey) AppendPosition(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, k.YearStart)
	return binary.LittleEndian.AppendUint32(dst, k.ID)
}

// ParseGenerationKey reads a position written by
// GenerationKey.AppendPosition.
func ParseGenerationKey(pos []byte) (GenerationKey, bool) {
	if len(pos) != 6 {
		return GenerationKey{}, false
	}
	return GenerationKey{YearStart: binary.LittleEndian.Uint16(pos), ID: binary.LittleEndian.Uint32(pos[2:])}, true
}

// AppendIDPosition appends the position of a list in stable-id order (a
// generation's variants, the filter): the last row's stable id, 4 bytes.
func AppendIDPosition(dst []byte, id uint32) []byte { return binary.LittleEndian.AppendUint32(dst, id) }

// ParseIDPosition reads a position written by AppendIDPosition.
func ParseIDPosition(pos []byte) (uint32, bool) {
	if len(pos) != 4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(pos), true
}

// SearchKey is a position in a search's results: the last row's score, its
// variant's stable id and its search text (the ranking's tie-breaks).
type SearchKey struct {
	Score float32
	ID    uint32
	Text  string
}

// AppendPosition appends k as score (4 bytes), id (4 bytes) and text.
func (k SearchKey) AppendPosition(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(k.Score))
	dst = binary.LittleEndian.AppendUint32(dst, k.ID)
	return append(dst, k.Text...)
}

// ParseSearchKey reads a position written by SearchKey.AppendPosition. Its
// text is a copy (the ranking compares strings).
func ParseSearchKey(pos []byte) (SearchKey, bool) {
	if len(pos) < 8 {
		return SearchKey{}, false
	}
	return SearchKey{Score: math.Float32frombits(binary.LittleEndian.Uint32(pos)), ID: binary.LittleEndian.Uint32(pos[4:]), Text: string(pos[8:])}, true
}
