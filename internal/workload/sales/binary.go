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

// putLength writes the length of the COPY field that starts at buf[at]
// (4 bytes reserved for it, then its value up to the end of buf).
func putLength(buf []byte, at int) {
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
}
