package publicid

import (
	"encoding/binary"
	"math/bits"
)

// sipKey is a SipHash-2-4 key.
type sipKey struct{ k0, k1 uint64 }

func sipKeyFrom(b []byte) sipKey {
	return sipKey{binary.LittleEndian.Uint64(b[0:8]), binary.LittleEndian.Uint64(b[8:16])}
}

// sum64 computes SipHash-2-4 of msg (Aumasson and Bernstein, 2012).
func (k sipKey) sum64(msg []byte) uint64 {
	v0 := k.k0 ^ 0x736f6d6570736575
	v1 := k.k1 ^ 0x646f72616e646f6d
	v2 := k.k0 ^ 0x6c7967656e657261
	v3 := k.k1 ^ 0x7465646279746573
	n := len(msg)
	for len(msg) >= 8 {
		m := binary.LittleEndian.Uint64(msg)
		v3 ^= m
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= m
		msg = msg[8:]
	}
	var last uint64 = uint64(n) << 56
	for i := len(msg) - 1; i >= 0; i-- {
		last |= uint64(msg[i]) << (8 * uint(i))
	}
	return sipFinish(v0, v1, v2, v3, last)
}

// sum64Uint64 is sum64 of the 8 little-endian bytes of m, without a buffer.
func (k sipKey) sum64Uint64(m uint64) uint64 {
	v0 := k.k0 ^ 0x736f6d6570736575
	v1 := k.k1 ^ 0x646f72616e646f6d
	v2 := k.k0 ^ 0x6c7967656e657261
	v3 := k.k1 ^ 0x7465646279746573
	v3 ^= m
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= m
	return sipFinish(v0, v1, v2, v3, uint64(8)<<56)
}

// sipFinish absorbs the last word of a message (its length in the top
// byte, its trailing bytes below) into the state v0..v3 and returns the
// finalized hash.
func sipFinish(v0, v1, v2, v3, last uint64) uint64 {
	v3 ^= last
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= last
	v2 ^= 0xff
	for i := 0; i < 4; i++ {
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	}
	return v0 ^ v1 ^ v2 ^ v3
}

func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13)
	v1 ^= v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16)
	v3 ^= v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21)
	v3 ^= v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17)
	v1 ^= v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}
