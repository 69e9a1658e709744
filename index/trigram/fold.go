package trigram

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold lower-cases s and removes diacritics, so that "skoda" finds "Škoda"
// and "citroen" finds "Citroën". It is applied to the indexed texts and to
// the queries alike.
//
// Each character is lower-cased (unicode.ToLower) and decomposed (Unicode
// NFD); the nonspacing marks (Mn) that follow a Latin, Greek or common base
// character are dropped; then the letters that do not decompose are mapped:
// ø→o, æ→ae, œ→oe, ß→ss, đ→d, ð→d, ł→l, þ→th, ı→i. Other scripts (Cyrillic,
// Arabic, ...) are lower-cased and keep their letters with their marks, in
// composed form (NFC): "Й" becomes "й", not "и". Greek loses its tonos and
// dialytika ("Ά" becomes "α"). Initials written with dots lose them, so
// that "clio rs" finds Renault's "Clio R.S." (a word of two or more single
// letters each followed by a dot: "R.S.", "A.M.G."; not "e.GO" or "1.5").
// Everything else, spaces and punctuation included, is kept as it is.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' || c == '.' && initialAt(s, i-1) {
			return string(AppendFold(nil, s))
		}
	}
	return s
}

// initialAt reports whether s[i] is a lower-case letter standing alone as
// a word before a dot: the start of initials such as "r.s.".
func initialAt(s string, i int) bool {
	if i < 0 || s[i] < 'a' || s[i] > 'z' {
		return false
	}
	if i == 0 {
		return true
	}
	p := s[i-1]
	return !(p >= 'a' && p <= 'z' || p >= '0' && p <= '9' || p >= utf8.RuneSelf || p == '.')
}

// joinInitials drops the dots of initials ("r.s." becomes "rs") in
// dst[start:], in place.
func joinInitials(dst []byte, start int) []byte {
	isLetter := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isWord := func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c >= utf8.RuneSelf }
	w := start
	for i := start; i < len(dst); {
		if i == start || !isWord(dst[i-1]) && dst[i-1] != '.' {
			n, j := 0, i
			for j+1 < len(dst) && isLetter(dst[j]) && dst[j+1] == '.' {
				n, j = n+1, j+2
			}
			if n >= 2 && (j == len(dst) || !isWord(dst[j])) {
				for k := i; k < j; k += 2 {
					dst[w] = dst[k]
					w++
				}
				i = j
				continue
			}
		}
		dst[w] = dst[i]
		w++
		i++
	}
	return dst[:w]
}

// AppendFold appends Fold(s) to dst and returns the extended buffer. It does
// not allocate when s is ASCII and dst has room.
func AppendFold(dst []byte, s string) []byte {
	start := len(dst)
	return joinInitials(appendFold(dst, s), start)
}

// appendFold is AppendFold before joinInitials.
func appendFold(dst []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		return dst
	}
	var it norm.Iter
	it.InitString(norm.NFD, s)
	var seg [64]byte
	for !it.Done() {
		// One segment is a starter and the combining marks that follow it.
		b := it.Next()
		base, _ := utf8.DecodeRune(b)
		if !stripsMarks(base) {
			// Keep the marks and recompose: Cyrillic й, Arabic أ, ...
			w := seg[:0]
			for j := 0; j < len(b); {
				r, m := utf8.DecodeRune(b[j:])
				w = utf8.AppendRune(w, unicode.ToLower(r))
				j += m
			}
			dst = norm.NFC.Append(dst, w...)
			continue
		}
		for j := 0; j < len(b); {
			r, m := utf8.DecodeRune(b[j:])
			if !unicode.Is(unicode.Mn, r) {
				dst = appendFoldedRune(dst, unicode.ToLower(r))
			}
			j += m
		}
	}
	return dst
}

// stripsMarks tells whether the nonspacing marks after base are dropped: they
// are after Latin, Greek and script-neutral characters (and a mark with no
// base at all).
func stripsMarks(base rune) bool {
	if base < utf8.RuneSelf {
		return true
	}
	return unicode.In(base, unicode.Latin, unicode.Greek, unicode.Common, unicode.Inherited) ||
		base == utf8.RuneError
}

// appendFoldedRune appends r, already lower-cased and decomposed, with the
// letters that have no decomposition mapped to their base letters.
func appendFoldedRune(dst []byte, r rune) []byte {
	switch r {
	case 'ø':
		return append(dst, 'o')
	case 'æ':
		return append(dst, 'a', 'e')
	case 'œ':
		return append(dst, 'o', 'e')
	case 'ß':
		return append(dst, 's', 's')
	case 'đ', 'ð':
		return append(dst, 'd')
	case 'ł':
		return append(dst, 'l')
	case 'þ':
		return append(dst, 't', 'h')
	case 'ı':
		return append(dst, 'i')
	}
	return utf8.AppendRune(dst, r)
}
