package tpcc

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// rng is a PCG generator with the draws of the specification: random(x, y)
// (clause 2.1.5), NURand (clause 2.1.6) and the strings of clause 4.3.2.
// It is a concrete type, not a rand.Source, so the generator's inner loops
// make direct calls.
type rng struct{ pcg rand.PCG }

// newRNG is a generator for the stream named by a and b.
func newRNG(a, b uint64) rng {
	var r rng
	r.pcg.Seed(mix64(a), mix64(b^0x6a09e667f3bcc909))
	return r
}

// streamRNG is the generator of one part of the generated data: table t of
// warehouse w (0 for the item table), under the workload's seed. Every part
// draws from its own stream, so any warehouse can be generated on its own
// and equals the same warehouse generated in a full load.
func streamRNG(seed uint64, t table, w int) rng {
	return newRNG(seed, uint64(t)<<40|uint64(w))
}

// mix64 is the splitmix64 finaliser: neighbouring inputs give unrelated
// outputs.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// rand is random(x, y) of clause 2.1.5: uniform over [x .. y], both ends
// included. (Lemire's multiply-shift; its bias, below y-x+1 in 2^64, is far
// beneath anything a run can observe.)
func (r *rng) rand(x, y int) int {
	hi, _ := bits.Mul64(r.pcg.Uint64(), uint64(y-x+1))
	return x + int(hi)
}

// nurand is NURand(A, x, y) of clause 2.1.6:
//
//	(((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
func (r *rng) nurand(a, c, x, y int) int {
	return (((r.rand(0, a) | r.rand(x, y)) + c) % (y - x + 1)) + x
}

// The A values of clause 2.1.6 and the ranges they are drawn over.
const (
	aLast = 255  // C_LAST: NURand(255, 0, 999)
	aCID  = 1023 // C_ID: NURand(1023, 1, 3000)
	aItem = 8191 // OL_I_ID: NURand(8191, 1, 100000)
)

// constants are the C values of clause 2.1.6: one per field, the same for
// every terminal of a tenant. cLoad is the C used for C_LAST when the
// database is populated (clause 4.3.3.1); cLast the C used for C_LAST during
// the run, chosen so that the two obey the rule of clause 2.1.6.1.
type constants struct {
	cLoad, cLast, cID, cItem int
}

// newConstants draws the C values from the workload's seed.
func newConstants(seed uint64) constants {
	r := newRNG(seed, 0xc0ffee)
	k := constants{cLoad: r.rand(0, aLast), cID: r.rand(0, aCID), cItem: r.rand(0, aItem)}
	// Clause 2.1.6.1: C_DELTA = |C_LOAD - C_RUN| must lie in [65 .. 119]
	// and be neither 96 nor 112. C_RUN must itself lie in [0 .. A]; as
	// delta <= 119 < 128, one of the two signs always fits.
	for {
		delta := r.rand(65, 119)
		if !validDelta(delta) {
			continue
		}
		up := k.cLoad + delta
		down := k.cLoad - delta
		switch {
		case up <= aLast && down >= 0:
			if r.rand(0, 1) == 0 {
				k.cLast = up
			} else {
				k.cLast = down
			}
		case up <= aLast:
			k.cLast = up
		default:
			k.cLast = down
		}
		return k
	}
}

// validDelta is the rule of clause 2.1.6.1 on C_DELTA.
func validDelta(delta int) bool {
	return delta >= 65 && delta <= 119 && delta != 96 && delta != 112
}

// alnum are the characters of a random a-string (clause 4.3.2.2:
// alphanumeric). 62 of them: a 6-bit draw of 62 or 63 is drawn again.
const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// fillAlnum fills dst with random alphanumeric characters, ten per 64-bit
// draw: its ten low 6-bit fields in turn, a field of 62 or 63 skipped, the
// draw's rest dropped when dst is full. A draw with no field to skip (73 %
// of them) and ten characters still to write is written whole, without
// the per-field loop: the same characters, at about half the time.
func (r *rng) fillAlnum(dst []byte) {
	for i := 0; i < len(dst); {
		x := r.pcg.Uint64()
		if len(dst)-i >= 10 && !skips(x) {
			d := dst[i : i+10 : i+10]
			d[0], d[1], d[2], d[3], d[4] = alnum64[x&63], alnum64[x>>6&63], alnum64[x>>12&63], alnum64[x>>18&63], alnum64[x>>24&63]
			d[5], d[6], d[7], d[8], d[9] = alnum64[x>>30&63], alnum64[x>>36&63], alnum64[x>>42&63], alnum64[x>>48&63], alnum64[x>>54&63]
			i += 10
			continue
		}
		for left := 10; left > 0 && i < len(dst); left-- {
			if v := x & 63; v < 62 {
				dst[i] = alnum[v]
				i++
			}
			x >>= 6
		}
	}
}

// alnum64 is alnum indexed by any 6-bit value (the last two are never
// written: skips).
var alnum64 = [64]byte([]byte(alnum + ".."))

// skips says whether any of the ten low 6-bit fields of x is 62 or 63,
// that is has its five high bits set: bit 6k+1 of m is bits 6k+1 to 6k+5
// of x all set.
func skips(x uint64) bool {
	const fieldBit1 = 0x0082082082082082 // bit 6k+1, k = 0 .. 9
	m := x & (x >> 1) & (x >> 2) & (x >> 3) & (x >> 4)
	return m&fieldBit1 != 0
}

// fillDigits fills dst with random decimal digits (an n-string, clause
// 4.3.2.2), from 4-bit draws below 10.
func (r *rng) fillDigits(dst []byte) {
	var x uint64
	left := 0
	for i := 0; i < len(dst); {
		if left == 0 {
			x, left = r.pcg.Uint64(), 16
		}
		v := x & 15
		x >>= 4
		left--
		if v < 10 {
			dst[i] = byte('0' + v)
			i++
		}
	}
}

// fillLetters fills dst with random upper-case letters (the two letters of
// W_STATE, D_STATE and C_STATE, clause 4.3.3.1).
func (r *rng) fillLetters(dst []byte) {
	var x uint64
	left := 0
	for i := 0; i < len(dst); {
		if left == 0 {
			x, left = r.pcg.Uint64(), 12
		}
		v := x & 31
		x >>= 5
		left--
		if v < 26 {
			dst[i] = byte('A' + v)
			i++
		}
	}
}

// original is the string that 10 % of I_DATA and S_DATA hold (clause
// 4.3.3.1).
const original = "ORIGINAL"

// syllables make customer last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// appendLastName appends the last name of number n in [0 .. 999]: the
// syllables of its three digits (clause 4.3.2.3; 371 is PRICALLYOUGHT).
func appendLastName(dst []byte, n int) []byte {
	dst = append(dst, syllables[n/100]...)
	dst = append(dst, syllables[n/10%10]...)
	return append(dst, syllables[n%10]...)
}

// lastName is the last name of number n in [0 .. 999].
func lastName(n int) string { return string(appendLastName(nil, n)) }

// sample marks k of the n positions [0, n) chosen at random, each set of k
// equally likely (Floyd's algorithm). It selects the 10 % of rows that
// clause 4.3.3.1 asks for ("selected at random").
func (r *rng) sample(n, k int) bitset {
	s := newBitset(n)
	for j := n - k; j < n; j++ {
		t := r.rand(0, j)
		if s.has(t) {
			s.set(j)
		} else {
			s.set(t)
		}
	}
	return s
}

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (s bitset) set(i int)      { s[i>>6] |= 1 << (i & 63) }
func (s bitset) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }
func (s bitset) count() (n int) {
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// permute fills p with a random permutation of 1 .. len(p) (Fisher-Yates):
// O_C_ID "selected sequentially from a random permutation of [1 .. 3,000]"
// (clause 4.3.3.1).
func (r *rng) permute(p []int32) {
	for i := range p {
		p[i] = int32(i + 1)
	}
	for i := len(p) - 1; i > 0; i-- {
		j := r.rand(0, i)
		p[i], p[j] = p[j], p[i]
	}
}

// maxRow bounds an encoded row (a CUSTOMER row, the widest, is under 900
// bytes).
const maxRow = 1024

// grow extends b by n bytes and returns b and the new bytes.
func grow(b []byte, n int) ([]byte, []byte) {
	b = slices.Grow(b, n)
	l := len(b)
	return b[:l+n], b[l : l+n]
}

// putAlnum appends a random a-string of random length in [lo .. hi]
// (clause 4.3.2.2).
func (r *rng) putAlnum(b []byte, lo, hi int) []byte {
	n := r.rand(lo, hi)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b, s := grow(b, n)
	r.fillAlnum(s)
	return b
}

// putData appends an a-string of length [26 .. 50]; when orig, "ORIGINAL"
// at a random position in it (I_DATA and S_DATA, clause 4.3.3.1).
func (r *rng) putData(b []byte, orig bool) []byte {
	n := r.rand(26, 50)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b, s := grow(b, n)
	r.fillAlnum(s)
	if orig {
		copy(s[r.rand(0, n-len(original)):], original)
	}
	return b
}

// putDigits appends a random n-string of n digits.
func (r *rng) putDigits(b []byte, n int) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b, s := grow(b, n)
	r.fillDigits(s)
	return b
}

// putState appends two random letters.
func (r *rng) putState(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, 2)
	b, s := grow(b, 2)
	r.fillLetters(s)
	return b
}

// putZip appends a zip code: a random n-string of 4 digits and "11111"
// (clause 4.3.2.7).
func (r *rng) putZip(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, 9)
	b, s := grow(b, 9)
	r.fillDigits(s[:4])
	copy(s[4:], "11111")
	return b
}

// putAddress appends street 1, street 2, city, state and zip (clause
// 4.3.3.1: a-strings [10 .. 20], 2 letters, a zip of clause 4.3.2.7).
func (r *rng) putAddress(b []byte) []byte {
	b = r.putAlnum(b, 10, 20)
	b = r.putAlnum(b, 10, 20)
	b = r.putAlnum(b, 10, 20)
	b = r.putState(b)
	return r.putZip(b)
}
