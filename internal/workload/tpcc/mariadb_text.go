package tpcc

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"
)

// pgEpoch is 2000-01-01 UTC, the origin of the generator's timestamps
// (microseconds, as binary COPY has them).
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// textRow turns one binary COPY row (field count, then each field's length
// and bytes; -1 is NULL) of columns of the given kinds (fieldKinds) into
// a line of LOAD DATA: tab-separated, \N for NULL, backslash escapes.
func textRow(out, row []byte, kinds string) ([]byte, error) {
	if len(row) < 2 {
		return out, fmt.Errorf("short row")
	}
	n := int(binary.BigEndian.Uint16(row))
	if n != len(kinds) {
		return out, fmt.Errorf("row of %d fields, table of %d columns", n, len(kinds))
	}
	row = row[2:]
	for i := range n {
		if i > 0 {
			out = append(out, '\t')
		}
		if len(row) < 4 {
			return out, fmt.Errorf("short field")
		}
		l := int(int32(binary.BigEndian.Uint32(row)))
		row = row[4:]
		if l < 0 {
			out = append(out, `\N`...)
			continue
		}
		if len(row) < l {
			return out, fmt.Errorf("short field")
		}
		v := row[:l]
		row = row[l:]
		switch kinds[i] {
		case 'i':
			if l != 4 {
				return out, fmt.Errorf("int field of %d bytes", l)
			}
			out = strconv.AppendInt(out, int64(int32(binary.BigEndian.Uint32(v))), 10)
		case 'T':
			if l != 8 {
				return out, fmt.Errorf("timestamp field of %d bytes", l)
			}
			us := int64(binary.BigEndian.Uint64(v))
			out = pgEpoch.Add(time.Duration(us)*time.Microsecond).AppendFormat(out, "2006-01-02 15:04:05.000000")
		case 'n':
			var err error
			if out, err = appendNumericText(out, v); err != nil {
				return out, err
			}
		default:
			for _, c := range v {
				switch c {
				case '\\', '\t', '\n':
					out = append(out, '\\')
				}
				out = append(out, c)
			}
		}
	}
	return append(out, '\n'), nil
}

// appendNumericText appends numeric's binary form (workload.AppendNumeric:
// ndigits, weight, sign, dscale, then base-10000 digits) as decimal text
// with dscale digits after the point.
func appendNumericText(out, v []byte) ([]byte, error) {
	if len(v) < 8 {
		return out, fmt.Errorf("short numeric")
	}
	nd := int(binary.BigEndian.Uint16(v))
	weight := int(int16(binary.BigEndian.Uint16(v[2:])))
	sign := binary.BigEndian.Uint16(v[4:])
	dscale := int(binary.BigEndian.Uint16(v[6:]))
	if len(v) != 8+2*nd {
		return out, fmt.Errorf("numeric of %d digits in %d bytes", nd, len(v))
	}
	digit := func(i int) int {
		if i < 0 || i >= nd {
			return 0
		}
		return int(binary.BigEndian.Uint16(v[8+2*i:]))
	}
	if sign == 0x4000 {
		out = append(out, '-')
	}
	if weight < 0 {
		out = append(out, '0')
	}
	for i := 0; i <= weight; i++ {
		d := digit(i)
		if i == 0 {
			out = strconv.AppendInt(out, int64(d), 10)
			continue
		}
		out = append(out, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
	}
	if dscale == 0 {
		return out, nil
	}
	out = append(out, '.')
	for i, written := weight+1, 0; written < dscale; i++ {
		d := digit(i)
		for _, c := range []byte{byte('0' + d/1000), byte('0' + d/100%10), byte('0' + d/10%10), byte('0' + d%10)} {
			if written < dscale {
				out = append(out, c)
				written++
			}
		}
	}
	return out, nil
}
