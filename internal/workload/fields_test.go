package workload

import (
	"bytes"
	"testing"
	"time"
)

// TestDateTime checks the epoch of binary dates and timestamps
// (2000-01-01, timestamp_send and date_send) and the fields' bytes.
func TestDateTime(t *testing.T) {
	if got := PGMicros(time.Date(2000, 1, 1, 0, 0, 1, 0, time.UTC)); got != 1000000 {
		t.Errorf("2000-01-01 00:00:01 = %d us, want 1000000", got)
	}
	if got := PGMicros(time.Date(1999, 12, 31, 23, 0, 0, 0, time.FixedZone("x", -3600))); got != 0 {
		t.Errorf("2000-01-01 00:00 UTC written at UTC-1 = %d us, want 0", got)
	}
	if got, want := AppendTimestamp(nil, -1), []byte{0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}; !bytes.Equal(got, want) {
		t.Errorf("timestamp -1 = % x, want % x", got, want)
	}
	if got, want := AppendDate(nil, -2922), []byte{0, 0, 0, 4, 0xff, 0xff, 0xf4, 0x96}; !bytes.Equal(got, want) {
		t.Errorf("date 1992-01-01 = % x, want % x", got, want)
	}
	buf, at := BeginField([]byte{9})
	if got, want := EndField(append(buf, "abc"...), at), []byte{9, 0, 0, 0, 3, 'a', 'b', 'c'}; !bytes.Equal(got, want) {
		t.Errorf("BeginField/EndField = % x, want % x", got, want)
	}
}
