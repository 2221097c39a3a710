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
			out = appendDays(out, int64(int32(binary.BigEndian.Uint32(v))))
		case KindTimestamp:
			if l != 8 {
				return out, nil, fmt.Errorf("timestamp field of %d bytes", l)
			}
			out = appendMicros(out, int64(binary.BigEndian.Uint64(v)))
		case KindNumeric:
			var err error
			if out, err = AppendNumericText(out, v); err != nil {
				return out, nil, err
			}
		case KindText:
			out = appendEscaped(out, v)
		default:
			return out, nil, fmt.Errorf("unknown column kind %q", kinds[i])
		}
	}
	return append(out, '\n'), row, nil
}

// escaped marks the bytes LOAD DATA's text escapes with a backslash.
var escaped = [256]bool{'\\': true, '\t': true, '\n': true}

// appendEscaped appends text v with a backslash before each tab,
// newline and backslash. Generated text rarely holds one: v is then
// appended whole, the byte-by-byte form only from the first one on.
// The scan for the first takes 8 bytes at a time (hasEscaped).
func appendEscaped(out, v []byte) []byte {
	i := 0
	for i+8 <= len(v) && !hasEscaped(binary.LittleEndian.Uint64(v[i:])) {
		i += 8
	}
	for i < len(v) && !escaped[v[i]] {
		i++
	}
	out = append(out, v[:i]...)
	for _, c := range v[i:] {
		if escaped[c] {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return out
}

// hasEscaped says whether any of the 8 bytes of x is a tab, newline or
// backslash: a byte equal to c is a zero byte of x^(c in every byte),
// found by the "determine if a word has a zero byte" test (Anderson,
// Bit Twiddling Hacks), exact for the word as a whole.
func hasEscaped(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(y uint64) uint64 { return (y - ones) &^ y & highs }
	return zero(x^(ones*'\t'))|zero(x^(ones*'\n'))|zero(x^(ones*'\\')) != 0
}

// appendDays appends the date days after 2000-01-01 as YYYY-MM-DD
// (years 0 to 9999: the range of MariaDB's date). It is the proleptic
// Gregorian calendar's arithmetic (Hinnant's days_from_civil inverse)
// rather than time.Time's formatting, which took a third of the
// conversion's time.
func appendDays(out []byte, days int64) []byte {
	y, m, d := civil(days)
	if y < 0 || y > 9999 {
		return pgEpoch.AddDate(0, 0, int(days)).AppendFormat(out, time.DateOnly)
	}
	return append(out, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
}

// appendMicros appends the timestamp us microseconds after 2000-01-01
// 00:00 UTC as YYYY-MM-DD HH:MM:SS.ffffff.
func appendMicros(out []byte, us int64) []byte {
	const perDay = 86400 * 1000000
	days, rest := us/perDay, us%perDay
	if rest < 0 {
		days, rest = days-1, rest+perDay
	}
	out = appendDays(out, days)
	s, f := rest/1000000, rest%1000000
	h, mi, se := s/3600, s/60%60, s%60
	return append(out, ' ', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+se/10), byte('0'+se%10), '.',
		byte('0'+f/100000), byte('0'+f/10000%10), byte('0'+f/1000%10), byte('0'+f/100%10), byte('0'+f/10%10), byte('0'+f%10))
}

// civil is the year, month and day of the date days after 2000-01-01
// (Hinnant, "chrono-Compatible Low-Level Date Algorithms", civil_from_days).
func civil(days int64) (y, m, d int64) {
	z := days + 10957 + 719468 // days from 0000-03-01
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
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
