package sales

import (
	"encoding/binary"
	"time"
)

// Binary formats of the types the sales tables use beyond int and bigint,
// for COPY and for the transactions' parameters: written by hand, straight
// into buffers allocated once, because pgtype would allocate per value.

// pgEpochUnix is 2000-01-01 00:00:00 UTC, PostgreSQL's timestamp epoch, in
// Unix seconds.
const pgEpochUnix = 946684800

// pgMicros is t as timestamptz's binary value: microseconds since
// 2000-01-01 00:00:00 UTC.
func pgMicros(t time.Time) int64 { return t.UnixMicro() - pgEpochUnix*1000000 }

// maxNumericSize bounds appendNumeric's output: 8 bytes of header and at
// most 6 base-10000 digits for an int64 of cents.
const maxNumericSize = 8 + 2*6

// appendNumeric appends cents/100 in numeric's binary format (numeric_send):
// ndigits, weight, sign and dscale as int16, then ndigits base-10000 digits,
// most significant first, the first of weight 10000^weight. The scale is 2.
// Zero digits at either end are left out, as numeric_send leaves them.
func appendNumeric(buf []byte, cents int64) []byte {
	sign := uint16(0x0000)
	if cents < 0 {
		sign, cents = 0x4000, -cents
	}
	whole, frac := cents/100, cents%100
	var d [6]uint16 // whole's digits, least significant first
	n := 0
	for x := whole; x > 0; x /= 10000 {
		d[n] = uint16(x % 10000)
		n++
	}
	var digits [6]uint16 // most significant first
	nd := 0
	for i := n - 1; i >= 0; i-- {
		digits[nd] = d[i]
		nd++
	}
	weight := int16(n - 1)
	if frac != 0 {
		digits[nd] = uint16(frac * 100) // .xy is the digit xy00 of weight -1
		nd++
	}
	for nd > 0 && digits[nd-1] == 0 {
		nd--
	}
	if nd == 0 {
		weight, sign = 0, 0
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(nd))
	buf = binary.BigEndian.AppendUint16(buf, uint16(weight))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	buf = binary.BigEndian.AppendUint16(buf, 2)
	for _, v := range digits[:nd] {
		buf = binary.BigEndian.AppendUint16(buf, v)
	}
	return buf
}

// appendNumericField appends cents/100 as a COPY field: its length, then
// appendNumeric's bytes.
func appendNumericField(buf []byte, cents int64) []byte {
	at := len(buf)
	buf = appendNumeric(append(buf, 0, 0, 0, 0), cents)
	putLength(buf, at)
	return buf
}

// putLength writes the length of the COPY field that starts at buf[at]
// (4 bytes reserved for it, then its value up to the end of buf).
func putLength(buf []byte, at int) {
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
}
