package workload

import (
	"encoding/binary"
	"time"
)

// COPY binary field encoders, also the binary format of parameters: a
// field is its length (int32, -1 for NULL) followed by its bytes,
// big-endian for integers. They append to a buffer and allocate nothing
// once it has room, so generators write rows straight into COPY's buffer.

// AppendFieldCount starts a row of n fields.
func AppendFieldCount(buf []byte, n int) []byte { return binary.BigEndian.AppendUint16(buf, uint16(n)) }

// AppendInt4 appends an int (int4) field.
func AppendInt4(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 4)
	return binary.BigEndian.AppendUint32(buf, uint32(int32(v)))
}

// AppendInt8 appends a bigint (int8) field.
func AppendInt8(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, uint64(v))
}

// AppendNull appends a NULL field.
func AppendNull(buf []byte) []byte { return binary.BigEndian.AppendUint32(buf, 0xffffffff) }

// AppendText appends a text or varchar field: its UTF-8 bytes.
func AppendText(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

// AppendBytes appends a text field held in a byte slice.
func AppendBytes(buf, v []byte) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
	return append(buf, v...)
}

// BeginField reserves the length of a field whose bytes the caller appends
// next; EndField, given the offset BeginField returned, writes it.
func BeginField(buf []byte) ([]byte, int) { return append(buf, 0, 0, 0, 0), len(buf) }

// EndField writes the length of the field BeginField started at at.
func EndField(buf []byte, at int) []byte {
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	return buf
}

// pgEpochUnix is 2000-01-01 00:00:00 UTC, the epoch of PostgreSQL's
// binary timestamps and dates, in Unix seconds.
const pgEpochUnix = 946684800

// PGMicros is t as a binary timestamp or timestamptz: microseconds since
// 2000-01-01 00:00:00 UTC (a timestamp without time zone holds t's wall
// clock in UTC).
func PGMicros(t time.Time) int64 { return t.UnixMicro() - pgEpochUnix*1000000 }

// AppendTimestamp appends a timestamp or timestamptz field of us
// microseconds since 2000-01-01 (PGMicros).
func AppendTimestamp(buf []byte, us int64) []byte { return AppendInt8(buf, us) }

// AppendDate appends a date field: days since 2000-01-01.
func AppendDate(buf []byte, days int64) []byte { return AppendInt4(buf, days) }
