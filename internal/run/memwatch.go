package run

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
)

// memWatch finds the server processes killed for memory during a run
// once, when the run's phases are over and its servers
// still exist: an instance's cgroup counts its OOM kills since it was made
// (v2: memory.events, v1: memory.oom_control, "oom_kill N"); the host
// counts every OOM kill in /proc/vmstat, and a host kill is an instance's
// when its server log reports a process "terminated by signal 9". The
// server log also says when: the postmaster logs its killed child with a
// time stamp. Counters that cannot be read are left out: the watch sees
// what the machine lets it see.
type memWatch struct {
	start time.Time // the run's start: times are since then
	host  int64     // /proc/vmstat oom_kill at the start, -1 when unreadable
	found []results.MemoryKill
}

// finish reads the kills of insts (before they are stopped); kills has
// them. A nil watch (the run ended before it started) does nothing.
func (m *memWatch) finish(insts []*provider.Instance) {
	if m != nil {
		m.found = m.read(insts)
	}
}

// kills are what finish found, a copy.
func (m *memWatch) kills() []results.MemoryKill {
	return append([]results.MemoryKill(nil), m.found...)
}

func startMemWatch(origin time.Time) *memWatch {
	return &memWatch{start: origin, host: counter("/proc/vmstat", "oom_kill")}
}

// read finds the kills of insts since the watch started.
func (m *memWatch) read(insts []*provider.Instance) []results.MemoryKill {
	if m == nil {
		return nil
	}
	var out []results.MemoryKill
	sys := cgroup.Detect()
	host := int64(-1)
	if m.host >= 0 {
		if n := counter("/proc/vmstat", "oom_kill"); n >= 0 {
			host = n - m.host
		}
	}
	for _, inst := range insts {
		n := counter(cgroupFile(sys, inst), "oom_kill")
		at := logKills(inst.LogFile, m.start)
		// The postmaster logs its killed child a moment after the client
		// saw its connection end, when the run may already be here.
		for wait := 0; n > int64(len(at)) && wait < 20 && !exited(inst); wait++ {
			time.Sleep(100 * time.Millisecond)
			at = logKills(inst.LogFile, m.start)
		}
		k := results.MemoryKill{Instance: inst.Name, AtS: -1}
		if len(at) > 0 {
			k.AtS = at[0].Sub(m.start).Seconds()
		}
		if n > 0 {
			k.Source, k.Kills = "cgroup", n
			host -= n // the host's counter includes the cgroups' kills
		} else if host > 0 && len(at) > 0 {
			k.Source, k.Kills = "host", min(int64(len(at)), host)
			host -= k.Kills
		} else {
			continue
		}
		out = append(out, k)
	}
	return out
}

func exited(inst *provider.Instance) bool {
	select {
	case <-inst.Exited:
		return true
	default:
		return false
	}
}

// cgroupFile is the instance's cgroup file that counts its OOM kills, ""
// when it has none.
func cgroupFile(sys cgroup.System, inst *provider.Instance) string {
	path, _ := provider.CgroupOf(inst)
	if path == "" || sys.Mode == cgroup.None {
		return ""
	}
	for _, d := range sys.Open(path).Dirs() {
		for _, name := range []string{"memory.events", "memory.oom_control"} {
			if f := filepath.Join(d, name); counter(f, "oom_kill") >= 0 {
				return f
			}
		}
	}
	return ""
}

// logKills are the times at which the server's log reports a process
// killed by SIGKILL (the OOM killer's signal) since since. The provider's
// log lines start with the time (PostgreSQL's default log_line_prefix
// '%m [%p] ', in log_timezone: the machine's, as Go reads it).
func logKills(file string, since time.Time) []time.Time {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "terminated by signal 9") {
			continue
		}
		const layout = "2006-01-02 15:04:05.000 MST"
		if len(line) < len(layout) {
			continue
		}
		t, err := time.Parse(layout, line[:len(layout)])
		if err == nil && !t.Before(since.Add(-time.Second)) {
			out = append(out, t)
		}
	}
	return out
}

// counter is the value of the line "key N" of file, -1 when it cannot be
// read.
func counter(file, key string) int64 {
	if file == "" {
		return -1
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(" ")); ok && string(k) == key {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
