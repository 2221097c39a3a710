package interfere

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logBefore is the server's line before the fault: its start, whose
// ready line must not count as the fault's.
const logBefore = "2026-11-24 23:30:00.000 UTC [40] LOG:  database system is ready to accept connections\n"

// writeLog writes a server log at path, logBefore then after, and
// returns the mark between them: the log's size before the fault.
func writeLog(t *testing.T, path, after string) int64 {
	t.Helper()
	if err := os.WriteFile(path, []byte(logBefore+after), 0o600); err != nil {
		t.Fatal(err)
	}
	return int64(len(logBefore))
}

// TestPromotionAccount reads a promoted standby's log after the mark: the
// promote request, the new timeline and the ready line after them give
// the promotion's length and the server's own ready time; what came
// before the mark (its start as a standby) does not count.
func TestPromotionAccount(t *testing.T) {
	after := `2026-11-24 23:31:24.541 UTC [42] LOG:  received promote request
2026-11-24 23:31:24.543 UTC [42] LOG:  redo done at 0/3000148 system usage: CPU: user: 0.00 s
2026-11-24 23:31:24.572 UTC [42] LOG:  selected new timeline ID: 2
2026-11-24 23:31:24.600 UTC [42] LOG:  archive recovery complete
2026-11-24 23:31:24.884 UTC [40] LOG:  database system is ready to accept connections
`
	path := filepath.Join(t.TempDir(), "postgresql.log")
	mark := writeLog(t, path, after)
	var ob Observed
	note := promotionAccount(path, mark, &ob)
	if ob.Promotion != 343*time.Millisecond {
		t.Errorf("promotion %v, want 343ms", ob.Promotion)
	}
	if want := time.Date(2026, 11, 24, 23, 31, 24, 884e6, time.UTC); !ob.Ready.Equal(want) {
		t.Errorf("ready %v, want %v", ob.Ready, want)
	}
	if !strings.Contains(note, "promote requested 23:31:24.541") || !strings.Contains(note, "timeline 2 23:31:24.572") {
		t.Errorf("note %q", note)
	}
	// Before its ready line is written: no promotion time yet.
	ob = Observed{}
	mark = writeLog(t, path, strings.Join(strings.Split(after, "\n")[:3], "\n"))
	promotionAccount(path, mark, &ob)
	if ob.Promotion != 0 || !ob.Ready.IsZero() {
		t.Errorf("without the ready line: promotion %v, ready %v", ob.Promotion, ob.Ready)
	}
}

// TestServerAccount reads a restarted server's log after the mark: its
// shutdown, redo and ready lines make the note, and the ready line the
// server's own ready time; the ready line before the mark does not count.
// A log that cannot be read there gives no note.
func TestServerAccount(t *testing.T) {
	after := `2026-11-24 23:31:00.100 UTC [40] LOG:  database system is shut down
2026-11-24 23:31:01.200 UTC [51] LOG:  redo done at 0/3000148 system usage: CPU: user: 0.01 s
2026-11-24 23:31:01.350 UTC [50] LOG:  database system is ready to accept connections
`
	path := filepath.Join(t.TempDir(), "postgresql.log")
	mark := writeLog(t, path, after)
	var ob Observed
	note := serverAccount(path, mark, &ob)
	if want := time.Date(2026, 11, 24, 23, 31, 1, 350e6, time.UTC); !ob.Ready.Equal(want) {
		t.Errorf("ready %v, want %v", ob.Ready, want)
	}
	for _, w := range []string{"shut down 23:31:00.100", "system usage: CPU: user: 0.01 s", "ready 23:31:01.350"} {
		if !strings.Contains(note, w) {
			t.Errorf("note %q lacks %q", note, w)
		}
	}
	ob = Observed{}
	if note := serverAccount(filepath.Join(t.TempDir(), "absent.log"), 0, &ob); note != "" || !ob.Ready.IsZero() {
		t.Errorf("absent log: note %q, ready %v", note, ob.Ready)
	}
}
