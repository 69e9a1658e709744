package publicid

import (
	"encoding/binary"
	"math/bits"

	"github.com/dchest/siphash"
)

// sipKey is a SipHash-2-4 key (Aumasson and Bernstein, 2012).
type sipKey struct{ k0, k1 uint64 }

func sipKeyFrom(b []byte) sipKey {
	return sipKey{binary.LittleEndian.Uint64(b[0:8]), binary.LittleEndian.Uint64(b[8:16])}
}

// sum64 computes SipHash-2-4 of msg with github.com/dchest/siphash.
func (k sipKey) sum64(msg []byte) uint64 { return siphash.Hash(k.k0, k.k1, msg) }

// sum64Uint64 is sum64 of the 8 little-endian bytes of m, written out:
// the token permutation calls it 8 times a token, and inlined with no
// buffer it costs two thirds of siphash.Hash's call on 8 bytes
// (BenchmarkAppendToken 130 against 188 ns, BenchmarkParseUnseen 170
// against 233 ns, pinned, go1.27.3). TestSipHashVector holds the two equal.
func (k sipKey) sum64Uint64(m uint64) uint64 {
	v0 := k.k0 ^ 0x736f6d6570736575
	v1 := k.k1 ^ 0x646f72616e646f6d
	v2 := k.k0 ^ 0x6c7967656e657261
	v3 := k.k1 ^ 0x7465646279746573
	v3 ^= m
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= m
	const last = uint64(8) << 56 // the length byte of an 8-byte message
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
