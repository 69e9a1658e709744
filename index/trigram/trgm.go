package trigram

import (
	"fmt"
	"hash/crc32"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Trigram is a pg_trgm trigram key: the three bytes pg_trgm stores for one
// trigram, packed big-end first (b0<<16 | b1<<8 | b2), which is the number
// show_trgm prints as 0x...... for a hashed trigram. A trigram of three
// single-byte (ASCII) characters is those three bytes; any other trigram is
// the three low bytes, in little-endian memory order, of the legacy CRC32 of
// its UTF-8 bytes (compact_trigram). Only the low 24 bits are used.
type Trigram uint32

// String returns the trigram as show_trgm displays it: its three characters
// when each byte is an ASCII letter, digit or space, otherwise 0x and six hex
// digits.
func (t Trigram) String() string {
	b := [3]byte{byte(t >> 16), byte(t >> 8), byte(t)}
	for _, c := range b {
		if !isPrintableTrgmChar(c) {
			return fmt.Sprintf("0x%06x", uint32(t)&0xffffff)
		}
	}
	return string(b[:])
}

// isPrintableTrgmChar is trgm.h's ISPRINTABLECHAR in a UTF8 database.
func isPrintableTrgmChar(c byte) bool {
	return c == ' ' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lessPG orders trigrams as pg_trgm's CMPTRGM does on x86-64 (PostgreSQL 15:
// each byte compared as a signed char). It is only used to print sets in
// PostgreSQL's order; the index itself orders keys as plain integers.
func lessPG(a, b Trigram) int {
	for shift := 16; shift >= 0; shift -= 8 {
		x, y := int8(byte(a>>shift)), int8(byte(b>>shift))
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Padding of a word, as trgm.h's LPADDING and RPADDING.
const (
	lPadding = 2
	rPadding = 1
)

// isWordChar is pg_trgm's ISWORDCHR (t_isalpha || t_isdigit, KEEPONLYALNUM)
// in a UTF8 database whose LC_CTYPE is C.UTF-8 or another libc UTF-8 locale:
// a single-byte character is an ASCII letter or digit; a multibyte one is
// what glibc's iswalpha/iswdigit accept, which is Unicode letters, decimal
// digits, letter numbers and Other_Alphabetic marks. Invalid UTF-8, which
// PostgreSQL would have refused, is a separator.
func isWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Nl, r) ||
		unicode.Is(unicode.Other_Alphabetic, r)
}

// compactTrigram ports compact_trigram: three bytes are kept as they are,
// anything longer is hashed with the legacy CRC32 (INIT/COMP/FIN_LEGACY_CRC32,
// which runs the reflected IEEE table in the non-reflected direction) and the
// trigram is the CRC's first three bytes in memory (little-endian).
func compactTrigram(b []byte) Trigram {
	if len(b) == 3 {
		return Trigram(uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]))
	}
	crc := uint32(0xffffffff)
	for _, c := range b {
		crc = crc32.IEEETable[byte(crc>>24)^c] ^ crc<<8
	}
	crc ^= 0xffffffff
	return Trigram(crc&0xff<<16 | crc>>8&0xff<<8 | crc>>16&0xff)
}

// appendTrigrams appends to dst the ordered trigram sequence of s, duplicates
// kept, in word order; it ports generate_trgm_only with make_trigrams (no
// bounds). Words are maximal runs of isWordChar; each word is lower-cased one
// rune at a time (towlower in PostgreSQL, unicode.ToLower here), padded as
// "  word " and cut into every window of three characters. buf is scratch
// space for the padded word; the grown buffer is returned for reuse.
func appendTrigrams(dst []Trigram, s string, buf []byte) ([]Trigram, []byte) {
	dst, _, buf = appendWordTrigrams(dst, nil, false, s, buf)
	return dst, buf
}

// appendWordTrigrams is appendTrigrams that also appends to lens, when
// withLens is set, the number of trigrams of each word in turn.
func appendWordTrigrams(dst []Trigram, lens []uint32, withLens bool, s string, buf []byte) ([]Trigram, []uint32, []byte) {
	i := 0
	for i < len(s) {
		// find_word: skip separators.
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if !isWordChar(r) {
			i += n
			continue
		}
		buf = append(buf[:0], ' ', ' ')
		for i < len(s) {
			r, n = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(s[i:])
			}
			if !isWordChar(r) {
				break
			}
			if r < utf8.RuneSelf {
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
				buf = append(buf, byte(r))
			} else {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			i += n
		}
		buf = append(buf, ' ')
		before := len(dst)
		dst = makeTrigrams(dst, buf)
		if withLens {
			lens = append(lens, uint32(len(dst)-before))
		}
	}
	return dst, lens, buf
}

// makeTrigrams ports make_trigrams for a padded word w: one trigram per
// window of three characters (not bytes).
func makeTrigrams(dst []Trigram, w []byte) []Trigram {
	// The two leading pads are one byte each.
	p0, p2 := 0, lPadding
	p1 := 1
	for p2 < len(w) {
		n := 1
		if w[p2] >= utf8.RuneSelf {
			_, n = utf8.DecodeRune(w[p2:])
		}
		end := p2 + n
		dst = append(dst, compactTrigram(w[p0:end]))
		p0, p1, p2 = p1, p2, end
	}
	return dst
}

// sortUnique sorts t and removes duplicates, as generate_trgm does (with an
// integer order instead of CMPTRGM's, which changes nothing but the order).
func sortUnique(t []Trigram) []Trigram {
	slices.Sort(t)
	return slices.Compact(t)
}

// Trigrams appends to dst the set of trigrams of s (generate_trgm: sorted as
// integers, duplicates removed) and returns it.
func Trigrams(dst []Trigram, s string) []Trigram {
	start := len(dst)
	dst, _ = appendTrigrams(dst, s, nil)
	return append(dst[:start], sortUnique(dst[start:])...)
}

// ShowTrgm returns what PostgreSQL's show_trgm(s) returns on x86-64: the
// trigram set of s in pg_trgm's order, each as Trigram.String prints it.
func ShowTrgm(s string) []string {
	t := Trigrams(nil, s)
	slices.SortFunc(t, lessPG)
	out := make([]string, len(t))
	for i, x := range t {
		out[i] = x.String()
	}
	return out
}

// calcSML is trgm.h's CALCSML with DIVUNION: count / (len1 + len2 - count),
// in float4 arithmetic.
func calcSML(count, len1, len2 int) float32 {
	return float32(count) / float32(len1+len2-count)
}

// iterateWordSimilarity ports iterate_word_similarity (trgm_op.c) for plain
// word_similarity (flags = 0: neither WORD_SIMILARITY_STRICT nor
// WORD_SIMILARITY_CHECK_ONLY). seq is the text's ordered trigram sequence as
// ids; found[id] says whether the trigram is in the query; lastpos has an
// entry per id, all -1 on entry and all -1 again on return (the function
// restores the entries it touched); ulen1 is the number of distinct query
// trigrams. The extent search is greedy, exactly as in C: lower never moves
// back, so the result may be below the exhaustive maximum.
//
// A caller may pass only seq[first:last+1], where first and last are the
// first and the last positions whose trigram is found: before the first found
// trigram the C loop counts nothing, and after the last one it never computes
// a similarity again, so the result is the same.
func iterateWordSimilarity(seq []uint32, found []bool, lastpos []int32, ulen1 int) float32 {
	var (
		ulen2, count   int
		upper, lower   = -1, -1
		smlrCur, smlrM float32
	)
	for i, trgindex := range seq {
		// Update last position of this trigram.
		if lower >= 0 || found[trgindex] {
			if lastpos[trgindex] < 0 {
				ulen2++
				if found[trgindex] {
					count++
				}
			}
			lastpos[trgindex] = int32(i)
		}
		// Adjust the upper bound if the trigram is in the query.
		if !found[trgindex] {
			continue
		}
		upper = i
		if lower == -1 {
			lower = i
			ulen2 = 1
		}
		smlrCur = calcSML(count, ulen1, ulen2)

		// Also try to adjust the lower bound for greater similarity.
		tmpCount, tmpUlen2, prevLower := count, ulen2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			smlrTmp := calcSML(tmpCount, ulen1, tmpUlen2)
			if smlrTmp > smlrCur {
				smlrCur = smlrTmp
				ulen2 = tmpUlen2
				lower = tmpLower
				count = tmpCount
			}
			tmpTrgindex := seq[tmpLower]
			if lastpos[tmpTrgindex] == int32(tmpLower) {
				tmpUlen2--
				if found[tmpTrgindex] {
					tmpCount--
				}
			}
		}
		if smlrCur > smlrM {
			smlrM = smlrCur
		}
		for tmpLower := prevLower; tmpLower < lower; tmpLower++ {
			tmpTrgindex := seq[tmpLower]
			if lastpos[tmpTrgindex] == int32(tmpLower) {
				lastpos[tmpTrgindex] = -1
			}
		}
	}
	for _, t := range seq {
		lastpos[t] = -1
	}
	return smlrM
}

// WordSimilarity returns pg_trgm's word_similarity(q, t): the greatest
// similarity between the trigram set of q and a contiguous extent of the
// ordered trigrams of t, as found by pg_trgm's greedy search, in float32. It
// ports calc_word_similarity; q and t are used as given (the caller folds
// them if it wants folding; pg_trgm lower-cases each word itself). It
// allocates and is meant for tests and one-off scoring; Index.Search scores
// with the same loop without allocating.
func WordSimilarity(q, t string) float32 {
	qt, buf := appendTrigrams(nil, q, nil)
	qt = sortUnique(qt)
	if len(qt) == 0 {
		return 0
	}
	tt, _ := appendTrigrams(nil, t, buf)
	if len(tt) == 0 {
		return 0
	}
	// calc_word_similarity enumerates the merged trigrams; ids into the set
	// of t play the same role here.
	set := sortUnique(slices.Clone(tt))
	seq := make([]uint32, len(tt))
	found := make([]bool, len(set))
	lastpos := make([]int32, len(set))
	for i := range lastpos {
		lastpos[i] = -1
	}
	for i, x := range tt {
		j, _ := slices.BinarySearch(set, x)
		seq[i] = uint32(j)
	}
	for j, x := range set {
		_, found[j] = slices.BinarySearch(qt, x)
	}
	return iterateWordSimilarity(seq, found, lastpos, len(qt))
}

// Similarity returns pg_trgm's similarity(a, b) (cnt_sml): shared trigrams
// over the union of both trigram sets, in float32; 0 when either set is
// empty.
func Similarity(a, b string) float32 {
	ta := Trigrams(nil, a)
	tb := Trigrams(nil, b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	count, i, j := 0, 0, 0
	for i < len(ta) && j < len(tb) {
		switch {
		case ta[i] < tb[j]:
			i++
		case ta[i] > tb[j]:
			j++
		default:
			count++
			i++
			j++
		}
	}
	return calcSML(count, len(ta), len(tb))
}

// maxExactDen bounds the denominators for which iterateWordSimilarityInt is
// exact: two different fractions a/b and c/d in [0, 1] differ by at least
// 1/(b*d), more than the 2^-24 that float32 rounding can close when b and d
// are below 4096, so comparing the fractions by cross-multiplication gives
// the same answer as comparing their float4 values, and equal fractions give
// equal floats.
const maxExactDen = 4096

// iterateWordSimilarityFrac is iterateWordSimilarity (a port of
// iterate_word_similarity) with each float4 similarity kept as its exact
// fraction and compared by cross-multiplication, which is several times
// faster than dividing. The caller guarantees ulen1+len(seq) < maxExactDen,
// which bounds every denominator ulen1+ulen2-count. It returns the fraction
// of the result: float32(num)/float32(den) is the float4 that
// iterate_word_similarity returns (0/1 when nothing is found).
func iterateWordSimilarityFrac(seq []uint32, found []bool, lastpos []int32, ulen1 int) (num, den int) {
	var (
		ulen2, count int
		upper, lower = -1, -1
		maxN, maxD   = 0, 1 // smlr_max = 0
	)
	for i, trgindex := range seq {
		if lower >= 0 || found[trgindex] {
			if lastpos[trgindex] < 0 {
				ulen2++
				if found[trgindex] {
					count++
				}
			}
			lastpos[trgindex] = int32(i)
		}
		if !found[trgindex] {
			continue
		}
		upper = i
		if lower == -1 {
			lower = i
			ulen2 = 1
		}
		curN, curD := count, ulen1+ulen2-count

		tmpCount, tmpUlen2, prevLower := count, ulen2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			if tmpD := ulen1 + tmpUlen2 - tmpCount; tmpCount*curD > curN*tmpD {
				curN, curD = tmpCount, tmpD
				ulen2 = tmpUlen2
				lower = tmpLower
				count = tmpCount
			}
			tmpTrgindex := seq[tmpLower]
			if lastpos[tmpTrgindex] == int32(tmpLower) {
				tmpUlen2--
				if found[tmpTrgindex] {
					tmpCount--
				}
			}
		}
		if curN*maxD > maxN*curD {
			maxN, maxD = curN, curD
		}
		for tmpLower := prevLower; tmpLower < lower; tmpLower++ {
			tmpTrgindex := seq[tmpLower]
			if lastpos[tmpTrgindex] == int32(tmpLower) {
				lastpos[tmpTrgindex] = -1
			}
		}
	}
	for _, t := range seq {
		lastpos[t] = -1
	}
	return maxN, maxD
}
