package interfere

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// logSize is the size of a server log before a fault: its account of the
// fault is what comes after.
func logSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// The server's own lines about a restart (PostgreSQL, lc_messages C, the
// default log_line_prefix '%m [%p] ': "2026-01-02 10:00:00.123 UTC [42]
// LOG:  ..."). Another engine's log yields no account, not an error.
const (
	logShutDown = "database system is shut down"
	logRedoDone = "redo done at"
	logReady    = "database system is ready to accept connections"
	logStamp    = "2006-01-02 15:04:05.000 MST"
)

// serverAccount reads the server log after mark for its shutdown, redo
// and ready lines; a ready time in UTC replaces ob.Ready (the server's
// own clock, not when the restart call returned). It returns a note for
// events.csv.
func serverAccount(path string, mark int64, ob *Observed) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(mark, io.SeekStart); err != nil {
		return ""
	}
	var down, ready time.Time
	redo := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		stamp := func() time.Time {
			if len(line) < len(logStamp) {
				return time.Time{}
			}
			t, err := time.Parse(logStamp, line[:len(logStamp)])
			if err != nil || t.Location().String() != "UTC" {
				return time.Time{}
			}
			return t
		}
		switch {
		case strings.Contains(line, logShutDown) && down.IsZero():
			down = stamp()
		case strings.Contains(line, logRedoDone):
			if i := strings.Index(line, "system usage:"); i >= 0 {
				redo = strings.TrimSpace(line[i:])
			} else {
				redo = "redo done"
			}
		case strings.Contains(line, logReady) && ready.IsZero():
			ready = stamp()
		}
	}
	var parts []string
	if !down.IsZero() {
		parts = append(parts, "log: shut down "+down.Format("15:04:05.000"))
	}
	if redo != "" {
		parts = append(parts, "log: "+redo)
	}
	if !ready.IsZero() {
		ob.Ready = ready
		parts = append(parts, fmt.Sprintf("log: ready %s", ready.Format("15:04:05.000")))
	}
	return strings.Join(parts, "; ")
}
