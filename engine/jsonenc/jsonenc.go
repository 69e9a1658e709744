// Package jsonenc holds the append-style JSON primitives shared by the
// engine's pre-rendered tables and the HTTP renderers: quoting strings,
// formatting integers and scaled decimals. It allocates nothing when dst has
// room.
package jsonenc

import (
	"strconv"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// safe[b] is true for ASCII bytes that need no escaping inside a JSON string.
var safe = func() (t [utf8.RuneSelf]bool) {
	for i := 0x20; i < utf8.RuneSelf; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// AppendString appends s as a quoted JSON string. Invalid UTF-8 becomes
// U+FFFD, written as the character itself (not escaped), byte for byte what
// encoding/json and log/slog write; '<', '>' and '&' are kept as they are (responses are JSON, never
// HTML); U+2028 and U+2029 are escaped so the output is also valid JavaScript.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...) // as encoding/json and slog write it since Go 1.27
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendInt appends the decimal form of v.
func AppendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

var pow10 = [...]int64{1, 10, 100, 1000, 10000}

// AppendScaled appends v / 10^scale as a JSON number with exactly the
// digits needed: AppendScaled(dst, 74, 1) is "7.4", (70, 1) is "7", and
// (-5, 2) is "-0.05". scale must be at most 4.
func AppendScaled(dst []byte, v int64, scale uint8) []byte {
	if scale == 0 {
		return strconv.AppendInt(dst, v, 10)
	}
	p := pow10[scale]
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	dst = strconv.AppendInt(dst, v/p, 10)
	frac := v % p
	if frac == 0 {
		return dst
	}
	digits := int(scale)
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	dst = append(dst, '.')
	for d := digits - 1; d >= 0; d-- {
		dst = append(dst, byte('0'+frac/pow10[d]%10))
	}
	return dst
}
