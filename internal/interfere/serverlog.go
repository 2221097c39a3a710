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
	logReadyRO  = "database system is ready to accept read-only connections" // a standby's
	logPromote  = "received promote request"
	logTimeline = "selected new timeline ID"
	logStamp    = "2006-01-02 15:04:05.000 MST"
)

// serverAccount reads the server log after mark for its shutdown, redo
// and ready lines; a ready time in UTC replaces ob.Ready (the server's
// own clock, not when the restart call returned). It returns a note for
// events.csv.
func serverAccount(path string, mark int64, ob *Observed) string {
	sc, done := logAfter(path, mark)
	if sc == nil {
		return ""
	}
	defer done()
	var down, ready time.Time
	redo := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, logShutDown) && down.IsZero():
			down = logTime(line)
		case strings.Contains(line, logRedoDone):
			if i := strings.Index(line, "system usage:"); i >= 0 {
				redo = strings.TrimSpace(line[i:])
			} else {
				redo = "redo done"
			}
		case (strings.Contains(line, logReady) || strings.Contains(line, logReadyRO)) && ready.IsZero():
			ready = logTime(line)
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

// promotionAccount reads a promoted standby's log after mark for the
// promote request, the new timeline and the ready line that follow it:
// ob.Ready becomes the server's own time of accepting writes and
// ob.Promotion the time from the request to it. It returns a note for
// events.csv.
func promotionAccount(path string, mark int64, ob *Observed) string {
	sc, done := logAfter(path, mark)
	if sc == nil {
		return ""
	}
	defer done()
	var req, timeline, ready time.Time
	tl := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, logPromote) && req.IsZero():
			req = logTime(line)
		case strings.Contains(line, logTimeline) && timeline.IsZero() && !req.IsZero():
			timeline = logTime(line)
			if i := strings.Index(line, logTimeline); i >= 0 {
				tl = strings.TrimSpace(strings.TrimPrefix(line[i+len(logTimeline):], ":"))
			}
		case strings.Contains(line, logReady) && ready.IsZero() && !req.IsZero():
			ready = logTime(line)
		}
	}
	var parts []string
	if !req.IsZero() {
		parts = append(parts, "log: promote requested "+req.Format("15:04:05.000"))
	}
	if !timeline.IsZero() {
		parts = append(parts, fmt.Sprintf("timeline %s %s", tl, timeline.Format("15:04:05.000")))
	}
	if !ready.IsZero() {
		ob.Ready = ready
		parts = append(parts, "ready "+ready.Format("15:04:05.000"))
		if !req.IsZero() {
			ob.Promotion = ready.Sub(req)
		}
	}
	return strings.Join(parts, ", ")
}

// logAfter opens the server log at path and scans it from mark, the
// size it had before the fault: only the fault's account is read. It
// returns nil when the log cannot be read there (another provider's
// server, a log rotated away): no account, not an error. done closes
// the file.
func logAfter(path string, mark int64) (sc *bufio.Scanner, done func()) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	if _, err := f.Seek(mark, io.SeekStart); err != nil {
		f.Close()
		return nil, nil
	}
	sc = bufio.NewScanner(f)
	// A line longer than the default 64 KiB (a long statement logged
	// beside the lines wanted) would end the scan early.
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return sc, func() { f.Close() }
}

// logTime is the time stamp a log line begins with, in UTC; zero when
// it has none.
func logTime(line string) time.Time {
	if len(line) < len(logStamp) {
		return time.Time{}
	}
	t, err := time.Parse(logStamp, line[:len(logStamp)])
	if err != nil || t.Location().String() != "UTC" {
		return time.Time{}
	}
	return t
}
