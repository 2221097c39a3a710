package workload

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// LOAD DATA's text form of COPY's binary rows: an engine that bulk-loads
// text (MariaDB's LOAD DATA LOCAL INFILE) is fed by the very encoders that
// feed PostgreSQL's binary COPY, so both engines load the same rows. The
// binary row does not say a field's type, so the caller gives each
// column's kind.

// Column kinds of AppendLoadText, one byte per column.
const (
	KindInt       = 'i' // int4 or int8, by the field's width
	KindNumeric   = 'n' // numeric (AppendNumeric's form)
	KindDate      = 'd' // date: days from 2000-01-01
	KindTimestamp = 'T' // timestamp: microseconds from 2000-01-01, UTC
	KindText      = 't' // text, bytes as they are
)

// LoadKinds are, per table, the kinds of the columns of PostgreSQL
// CREATE TABLE statements written as the workloads write them (the
// table's name third, then a column a line): what AppendLoadText needs,
// since a binary COPY row does not say. A type it has no kind for is a
// mistake in the workload's own statements: it panics, at start.
func LoadKinds(creates []string) map[string]string {
	out := map[string]string{}
	for _, s := range creates {
		var kinds []byte
		for _, line := range strings.Split(s, "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			switch typ := strings.TrimSuffix(f[1], ","); {
			case typ == "int", typ == "integer", typ == "bigint", typ == "smallint":
				kinds = append(kinds, KindInt)
			case strings.HasPrefix(typ, "numeric"):
				kinds = append(kinds, KindNumeric)
			case typ == "date":
				kinds = append(kinds, KindDate)
			case typ == "timestamp", typ == "timestamptz":
				kinds = append(kinds, KindTimestamp)
			case typ == "text", strings.HasPrefix(typ, "char"), strings.HasPrefix(typ, "varchar"):
				kinds = append(kinds, KindText)
			default:
				panic("workload: no LOAD DATA kind for the column " + strings.TrimSpace(line))
			}
		}
		out[strings.Fields(s)[2]] = string(kinds)
	}
	return out
}

// pgEpoch is 2000-01-01 UTC, the origin of binary COPY's dates and
// timestamps.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// AppendLoadText appends rows (one or more binary COPY rows one after
// the other: a field count, then each field's length and bytes, -1 for
// NULL) of columns of the given kinds as lines of LOAD DATA's default
// format: fields separated by tabs, \N for NULL, a backslash before a
// tab, newline or backslash in text, numerics in decimal with their
// scale, dates YYYY-MM-DD, timestamps with microseconds.
func AppendLoadText(out, rows []byte, kinds string) ([]byte, error) {
	for len(rows) > 0 {
		var err error
		if out, rows, err = appendLoadRow(out, rows, kinds); err != nil {
			return out, err
		}
	}
	return out, nil
}

// appendLoadRow appends the first row of rows and returns the rest.
func appendLoadRow(out, rows []byte, kinds string) ([]byte, []byte, error) {
	if len(rows) < 2 {
		return out, nil, fmt.Errorf("short row")
	}
	n := int(binary.BigEndian.Uint16(rows))
	if n != len(kinds) {
		return out, nil, fmt.Errorf("row of %d fields, table of %d columns", n, len(kinds))
	}
	row := rows[2:]
	for i := range n {
		if i > 0 {
			out = append(out, '\t')
		}
		if len(row) < 4 {
			return out, nil, fmt.Errorf("short field")
		}
		l := int(int32(binary.BigEndian.Uint32(row)))
		row = row[4:]
		if l < 0 {
			out = append(out, `\N`...)
			continue
		}
		if len(row) < l {
			return out, nil, fmt.Errorf("short field")
		}
		v := row[:l]
		row = row[l:]
		switch kinds[i] {
		case KindInt:
			switch l {
			case 4:
				out = strconv.AppendInt(out, int64(int32(binary.BigEndian.Uint32(v))), 10)
			case 8:
				out = strconv.AppendInt(out, int64(binary.BigEndian.Uint64(v)), 10)
			default:
				return out, nil, fmt.Errorf("int field of %d bytes", l)
			}
		case KindDate:
			if l != 4 {
				return out, nil, fmt.Errorf("date field of %d bytes", l)
			}
			days := int(int32(binary.BigEndian.Uint32(v)))
			out = pgEpoch.AddDate(0, 0, days).AppendFormat(out, time.DateOnly)
		case KindTimestamp:
			if l != 8 {
				return out, nil, fmt.Errorf("timestamp field of %d bytes", l)
			}
			out = PGTime(int64(binary.BigEndian.Uint64(v))).AppendFormat(out, "2006-01-02 15:04:05.000000")
		case KindNumeric:
			var err error
			if out, err = AppendNumericText(out, v); err != nil {
				return out, nil, err
			}
		case KindText:
			for _, c := range v {
				switch c {
				case '\\', '\t', '\n':
					out = append(out, '\\')
				}
				out = append(out, c)
			}
		default:
			return out, nil, fmt.Errorf("unknown column kind %q", kinds[i])
		}
	}
	return append(out, '\n'), row, nil
}

// PGTime is the time of us, microseconds from 2000-01-01 UTC (binary
// COPY's timestamps, PGMicros's inverse).
func PGTime(us int64) time.Time { return pgEpoch.Add(time.Duration(us) * time.Microsecond) }

// AppendNumericText appends numeric's binary form (AppendNumeric's:
// ndigits, weight, sign, dscale, then base-10000 digits) as decimal text
// with dscale digits after the point.
func AppendNumericText(out, v []byte) ([]byte, error) {
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

// loadTextChunk is how much text WriteLoadText gathers before a write.
const loadTextChunk = 64 << 10

// WriteLoadText writes the rows of src (columns of the given kinds) to w
// as LOAD DATA's text (AppendLoadText). report, if not nil, is called
// with the number of rows (AppendRow calls) written since its last call,
// at each write.
func WriteLoadText(w io.Writer, src RowSource, maxRow int, kinds string, report func(rows int64)) error {
	buf := make([]byte, 0, maxRow)
	out := make([]byte, 0, loadTextChunk+2*maxRow)
	var n int64
	flush := func() error {
		if _, err := w.Write(out); err != nil {
			return err
		}
		out = out[:0]
		if report != nil && n > 0 {
			report(n)
		}
		n = 0
		return nil
	}
	for {
		var ok bool
		if buf, ok = src.AppendRow(buf[:0]); !ok {
			break
		}
		var err error
		if out, err = AppendLoadText(out, buf, kinds); err != nil {
			return err
		}
		n++
		if len(out) >= loadTextChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// Source is t's rows, from First to Last, one at a time.
func (t CopyTable) Source() RowSource { return &tableRows{t: &t, next: t.First} }
