package engine

import (
	"encoding/binary"
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

// SearchKey is a position in a search's results: the last row's rank key
// and its variant's stable id.
type SearchKey struct {
	Key uint64
	ID  uint32
}

// searchKeyMagic starts a search position. Its fourth byte, 0xFF, can never
// start a position of the order before ranking (a float32 score in [0, 1],
// little-endian, whose fourth byte is at most 0x3F), so such a cursor is
// recognised (IsOldSearchPosition) instead of misread.
var searchKeyMagic = [4]byte{'r', 'k', '1', 0xFF}

// AppendPosition appends k as the magic, the key (8 bytes) and the id (4).
func (k SearchKey) AppendPosition(dst []byte) []byte {
	dst = append(dst, searchKeyMagic[:]...)
	dst = binary.LittleEndian.AppendUint64(dst, k.Key)
	return binary.LittleEndian.AppendUint32(dst, k.ID)
}

// ParseSearchKey reads a position written by SearchKey.AppendPosition.
func ParseSearchKey(pos []byte) (SearchKey, bool) {
	if len(pos) != 16 || [4]byte(pos[:4]) != searchKeyMagic {
		return SearchKey{}, false
	}
	return SearchKey{Key: binary.LittleEndian.Uint64(pos[4:]), ID: binary.LittleEndian.Uint32(pos[12:])}, true
}

// IsOldSearchPosition tells whether pos is a search position of the order
// before ranking: a score, an id and a text.
func IsOldSearchPosition(pos []byte) bool {
	return len(pos) >= 8 && pos[3] != 0xFF
}
