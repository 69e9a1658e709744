package trigram

import (
	"unicode"
	"unicode/utf8"
)

// AppendTranslit appends the Latin transliteration of word, a folded
// (lower-case) word, to dst: Cyrillic, Greek and Arabic letters are written
// in Latin as a reader would type the name ("тойота" -> "toyota",
// "φολκσβαγκεν" -> "folksvagen", "تويوتا" -> "tuyuta"), and every other
// character is kept. A word that mixes Cyrillic or Greek letters with digits
// or Latin letters is read as look-alike letters instead ("х5" -> "x5",
// "м3" -> "m3"): that is a Latin model code typed on another keyboard. It
// does not allocate when dst has room.
func AppendTranslit(dst []byte, word string) []byte {
	mixed := false
	for _, r := range word {
		if r < utf8.RuneSelf && (unicode.IsDigit(r) || unicode.IsLetter(r)) {
			mixed = true
			break
		}
	}
	for i := 0; i < len(word); {
		r, n := utf8.DecodeRuneInString(word[i:])
		i += n
		if mixed {
			if l, ok := homoglyph(r); ok {
				dst = append(dst, l)
				continue
			}
		}
		// Greek digraphs: μπ is b, ντ is d, γκ and γγ are g, ου is u,
		// γι is y ("Γιάρις", Yaris).
		if i < len(word) {
			r2, n2 := utf8.DecodeRuneInString(word[i:])
			if d := greekDigraph(r, r2); d != 0 {
				dst = append(dst, d)
				i += n2
				continue
			}
		}
		if s, ok := latinOf(r); ok {
			dst = append(dst, s...)
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// AppendHard appends the transliteration of word as AppendTranslit does,
// then writes its k as c and its j as g: the Latin spellings that a
// phonetic transliteration cannot guess ("фокус" -> "focus", "корса" ->
// "corsa", "جولف" -> "golf").
func AppendHard(dst []byte, word string) []byte {
	n := len(dst)
	dst = AppendTranslit(dst, word)
	for i := n; i < len(dst); i++ {
		switch dst[i] {
		case 'k':
			dst[i] = 'c'
		case 'j':
			dst[i] = 'g'
		}
	}
	return dst
}

// NeedsTranslit tells whether word holds a letter AppendTranslit rewrites.
func NeedsTranslit(word string) bool {
	for _, r := range word {
		if _, ok := latinOf(r); ok {
			return true
		}
	}
	return false
}

func greekDigraph(a, b rune) byte {
	switch {
	case a == 'γ' && (b == 'ι' || b == 'ε'):
		return 'y'
	case a == 'μ' && b == 'π':
		return 'b'
	case a == 'ν' && b == 'τ':
		return 'd'
	case a == 'γ' && (b == 'κ' || b == 'γ'):
		return 'g'
	case a == 'ο' && b == 'υ':
		return 'u'
	}
	return 0
}

// homoglyph maps the Cyrillic and Greek lower-case letters that look like
// Latin ones.
func homoglyph(r rune) (byte, bool) {
	switch r {
	case 'а', 'α':
		return 'a', true
	case 'в', 'β':
		return 'b', true
	case 'с':
		return 'c', true
	case 'е', 'ε':
		return 'e', true
	case 'н', 'η':
		return 'h', true
	case 'і', 'ι':
		return 'i', true
	case 'ј':
		return 'j', true
	case 'к', 'κ':
		return 'k', true
	case 'м', 'μ':
		return 'm', true
	case 'о', 'ο':
		return 'o', true
	case 'р', 'ρ':
		return 'p', true
	case 'т', 'τ':
		return 't', true
	case 'у', 'υ':
		return 'y', true
	case 'х', 'χ':
		return 'x', true
	case 'ѕ':
		return 's', true
	case 'ν':
		return 'v', true
	case 'ζ':
		return 'z', true
	}
	return 0, false
}

// latinOf is the transliteration table: Bulgarian, Russian, Serbian and
// Ukrainian Cyrillic, modern Greek, and Arabic (consonants and long
// vowels; short vowels are not written).
func latinOf(r rune) (string, bool) {
	switch {
	case r >= 0x0400 && r <= 0x04FF:
		s, ok := cyrillic[r]
		return s, ok
	case r >= 0x0370 && r <= 0x03FF:
		s, ok := greek[r]
		return s, ok
	case r >= 0x0600 && r <= 0x06FF:
		s, ok := arabic[r]
		return s, ok
	}
	return "", false
}

var cyrillic = map[rune]string{
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ё': "e", 'ж': "zh", 'з': "z", 'и': "i",
	'й': "y", 'к': "k", 'л': "l", 'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t",
	'у': "u", 'ф': "f", 'х': "h", 'ц': "ts", 'ч': "ch", 'ш': "sh", 'щ': "sht", 'ъ': "a", 'ы': "y", 'ь': "",
	'э': "e", 'ю': "yu", 'я': "ya", 'ђ': "dj", 'ј': "j", 'љ': "lj", 'њ': "nj", 'ћ': "c", 'џ': "dz",
	'є': "ye", 'і': "i", 'ї': "yi", 'ґ': "g", 'ѕ': "dz",
}

var greek = map[rune]string{
	'α': "a", 'β': "v", 'γ': "g", 'δ': "d", 'ε': "e", 'ζ': "z", 'η': "i", 'θ': "th", 'ι': "i", 'κ': "k",
	'λ': "l", 'μ': "m", 'ν': "n", 'ξ': "x", 'ο': "o", 'π': "p", 'ρ': "r", 'σ': "s", 'ς': "s", 'τ': "t",
	'υ': "y", 'φ': "f", 'χ': "ch", 'ψ': "ps", 'ω': "o",
}

var arabic = map[rune]string{
	'ا': "a", 'أ': "a", 'إ': "i", 'آ': "a", 'ب': "b", 'ت': "t", 'ث': "th", 'ج': "j", 'ح': "h", 'خ': "kh",
	'د': "d", 'ذ': "dh", 'ر': "r", 'ز': "z", 'س': "s", 'ش': "sh", 'ص': "s", 'ض': "d", 'ط': "t", 'ظ': "z",
	'ع': "", 'غ': "gh", 'ف': "f", 'ق': "q", 'ك': "k", 'ل': "l", 'م': "m", 'ن': "n", 'ه': "h", 'و': "o",
	'ي': "y", 'ى': "a", 'ة': "a", 'ء': "", 'ئ': "i", 'ؤ': "u", 'پ': "p", 'چ': "ch", 'ڤ': "v", 'گ': "g",
}
