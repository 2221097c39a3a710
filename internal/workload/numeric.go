package workload

import "encoding/binary"

// MaxNumericSize bounds AppendNumeric's output: 8 bytes of header and at
// most 6 base-10000 digits (5 of an int64's whole part, 1 of the fraction).
const MaxNumericSize = 8 + 2*6

// AppendNumeric appends v / 10^scale, scale 2 or 4, in numeric's binary
// format (numeric_send, as a binary parameter or COPY value): ndigits,
// weight, sign and dscale as int16, then the base-10000 digits, most
// significant first, the first of weight 10000^weight, without zero
// digits at the end. Zero has no digits, weight 0 and a positive sign.
func AppendNumeric(buf []byte, v int64, scale int) []byte {
	var sign uint16
	if v < 0 {
		sign, v = 0x4000, -v
	}
	whole, frac := v/10000, v%10000 // scale 4: the fraction is one digit
	if scale == 2 {
		whole, frac = v/100, v%100*100 // .xy is the digit xy00
	}
	var d [5]uint16 // whole's digits, least significant first
	n := 0
	for x := whole; x > 0; x /= 10000 {
		d[n] = uint16(x % 10000)
		n++
	}
	var digits [6]uint16 // most significant first
	for i := range n {
		digits[i] = d[n-1-i]
	}
	digits[n] = uint16(frac)
	nd, weight := n+1, int16(n-1)
	for nd > 0 && digits[nd-1] == 0 {
		nd--
	}
	if nd == 0 {
		weight, sign = 0, 0
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(nd))
	buf = binary.BigEndian.AppendUint16(buf, uint16(weight))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	buf = binary.BigEndian.AppendUint16(buf, uint16(scale))
	for _, x := range digits[:nd] {
		buf = binary.BigEndian.AppendUint16(buf, x)
	}
	return buf
}

// AppendNumericField appends v / 10^scale as a COPY field: its length,
// then AppendNumeric's bytes.
func AppendNumericField(buf []byte, v int64, scale int) []byte {
	at := len(buf)
	buf = AppendNumeric(append(buf, 0, 0, 0, 0), v, scale)
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	return buf
}
