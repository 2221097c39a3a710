package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
)

// memPoll is how often the memory watch reads the kill counters.
const memPoll = 250 * time.Millisecond

// memWatch notices server processes killed for memory while it runs
// (issue 6 point 5): an instance's cgroup counts its OOM kills (v2:
// memory.events, v1: memory.oom_control, "oom_kill N"); the host counts
// every OOM kill in /proc/vmstat, and a host kill is the instance's when
// its server log reports a process "terminated by signal 9" since the
// watch started. Counters that cannot be read are left out: the watch
// sees what the machine lets it see.
type memWatch struct {
	start  time.Time
	insts  []*provider.Instance
	files  []string // per instance, its cgroup's counter file, "" for none
	counts []int64
	host   int64 // /proc/vmstat oom_kill, -1 when unreadable
	// pending are host kills not yet found in a server's log: another
	// process's, or a server's whose log line is still to come.
	pending int64
	logPos  []int64
	stop    chan struct{}
	done    chan struct{}

	mu  sync.Mutex
	out []results.MemoryKill
}

func startMemWatch(insts []*provider.Instance) *memWatch {
	m := &memWatch{start: time.Now(), insts: insts, stop: make(chan struct{}), done: make(chan struct{})}
	sys := cgroup.Detect()
	for _, inst := range insts {
		f := ""
		if inst.Cgroup != "" && sys.Mode != cgroup.None {
			for _, d := range sys.Open(inst.Cgroup).Dirs() {
				for _, name := range []string{"memory.events", "memory.oom_control"} {
					if _, err := os.Stat(filepath.Join(d, name)); err == nil && f == "" {
						f = filepath.Join(d, name)
					}
				}
			}
		}
		n := counter(f, "oom_kill")
		if n < 0 {
			f = "" // no counter here (an old kernel's v1)
		}
		m.files = append(m.files, f)
		m.counts = append(m.counts, n)
		m.logPos = append(m.logPos, size(inst.LogFile))
	}
	m.host = counter("/proc/vmstat", "oom_kill")
	go m.loop()
	return m
}

func (m *memWatch) loop() {
	defer close(m.done)
	t := time.NewTicker(memPoll)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			m.poll()
			return
		case <-t.C:
			m.poll()
		}
	}
}

// poll reads the counters once and records what grew.
func (m *memWatch) poll() {
	at := time.Since(m.start).Seconds()
	var inCgroups int64
	for i, f := range m.files {
		if f == "" {
			continue
		}
		if n := counter(f, "oom_kill"); n > m.counts[i] {
			m.add(m.insts[i].Name, "cgroup", at, n-m.counts[i])
			inCgroups += n - m.counts[i]
			m.counts[i] = n
		}
	}
	if m.host < 0 {
		return
	}
	n := counter("/proc/vmstat", "oom_kill")
	// The host's counter includes the cgroups' kills. The server logs its
	// killed child a moment after the kill: a host kill waits for it.
	m.pending += max(n-m.host-inCgroups, 0)
	m.host = n
	for i, inst := range m.insts {
		if k := m.killedInLog(i, inst); k > 0 && m.pending > 0 {
			k = min(k, m.pending)
			m.pending -= k
			m.add(inst.Name, "host", at, k)
		}
	}
}

// killedInLog counts the server's new reports of a process killed by
// SIGKILL (the OOM killer's signal) in its log.
func (m *memWatch) killedInLog(i int, inst *provider.Instance) int64 {
	f, err := os.Open(inst.LogFile)
	if err != nil {
		return 0
	}
	defer f.Close()
	end := size(inst.LogFile)
	if end <= m.logPos[i] {
		return 0
	}
	b := make([]byte, end-m.logPos[i])
	n, _ := f.ReadAt(b, m.logPos[i])
	m.logPos[i] += int64(n)
	return int64(bytes.Count(b[:n], []byte("terminated by signal 9")))
}

func (m *memWatch) add(inst, source string, at float64, n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.out {
		if m.out[i].Instance == inst && m.out[i].Source == source {
			m.out[i].Kills += n
			return
		}
	}
	m.out = append(m.out, results.MemoryKill{Instance: inst, Source: source, AtS: at, Kills: n})
}

// finish stops the watch after a last poll.
func (m *memWatch) finish() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
}

// kills are the kills seen, a copy.
func (m *memWatch) kills() []results.MemoryKill {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]results.MemoryKill(nil), m.out...)
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

func size(file string) int64 {
	st, err := os.Stat(file)
	if err != nil {
		return 0
	}
	return st.Size()
}
