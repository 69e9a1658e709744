package trigram

import (
	"math/bits"
	"unsafe"
)

// unsafeString returns b as a string without copying; b must never change.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }

func trailingZeros64(x uint64) int { return bits.TrailingZeros64(x) }
