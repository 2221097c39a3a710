package monitor

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

// cgroupFiles are the accounting files of one instance's group. They are
// found once by probing the group's directories for each file name, so
// that the same code reads v1 (one directory per controller, wherever each
// is mounted) and v2 (one directory). An empty path: not available.
type cgroupFiles struct {
	mode  string // "v1" or "v2"
	procs string // a cgroup.procs file: every process of the instance

	// CPU. v1: cpuacct.stat (USER_HZ ticks), whose user and system add
	// up to cpuacct.usage; cpuacct.usage_user and usage_sys do not (on
	// 6.x kernels they add up to 7 % more), so they are not used. v2:
	// cpu.stat (us).
	cpuacctStat, cpuStat string

	// Memory. v1: memory.usage_in_bytes, memory.max_usage_in_bytes;
	// v2: memory.current, memory.peak (kernel 5.19+). memory.stat both.
	memCurrent, memPeak, memStat string

	// Block IO: v2's io.stat. v1's blkio files are not used: v1 has no
	// cgroup writeback, so the kernel's flusher threads write a group's
	// dirty pages, checkpoints' fsync included, on the root group's
	// account, and a server's writes show as zero there. Under v1 IO
	// comes from /proc/<pid>/io of every process.
	ioStat string
}

// openCgroup finds the accounting files of the instance's group; nil when
// the instance has no group or none of its directories is readable, and
// the process tree is then the only source.
func openCgroup(path, mode string) *cgroupFiles {
	if path == "" || (mode != string(cgroup.V1) && mode != string(cgroup.V2)) {
		return nil
	}
	sys := cgroup.Detect()
	if string(sys.Mode) != mode {
		return nil
	}
	return probeCgroup(mode, sys.Open(path).Dirs())
}

// probeCgroup looks for each accounting file in dirs; tests give it
// directories of fixture files.
func probeCgroup(mode string, dirs []string) *cgroupFiles {
	find := func(name string) string {
		for _, d := range dirs {
			f := filepath.Join(d, name)
			if _, err := os.Stat(f); err == nil {
				return f
			}
		}
		return ""
	}
	c := &cgroupFiles{mode: mode, procs: find("cgroup.procs")}
	if c.procs == "" {
		return nil
	}
	if mode == string(cgroup.V1) {
		c.cpuacctStat = find("cpuacct.stat")
		c.memCurrent, c.memPeak = find("memory.usage_in_bytes"), find("memory.max_usage_in_bytes")
	} else {
		c.cpuStat = find("cpu.stat")
		c.memCurrent, c.memPeak = find("memory.current"), find("memory.peak")
		c.ioStat = find("io.stat")
	}
	c.memStat = find("memory.stat")
	return c
}

// hasCPU, hasMemory and hasIO say which figures the group provides; the
// others come from the process tree.
func (c *cgroupFiles) hasCPU() bool {
	return c != nil && (c.cpuacctStat != "" || c.cpuStat != "")
}
func (c *cgroupFiles) hasMemory() bool { return c != nil && c.memCurrent != "" }
func (c *cgroupFiles) hasIO() bool     { return c != nil && c.ioStat != "" }

// cgroupReading is one reading of the group's counters.
type cgroupReading struct {
	cpuUser, cpuSys            float64 // seconds
	memCurrent, memPeak        int64   // bytes; memPeak -1 where the kernel has no peak file
	memAnon, memFile, memShmem int64   // bytes, from memory.stat; -1 without it
	readBytes, writeBytes      int64
	readOps, writeOps          int64
	haveCPU, haveMem, haveIO   bool
}

// read reads every available counter, reusing r's buffer.
func (c *cgroupFiles) read(r *reader, out *cgroupReading) error {
	*out = cgroupReading{memPeak: -1, memAnon: -1, memFile: -1, memShmem: -1}
	switch {
	case c.cpuacctStat != "":
		b, err := r.read(c.cpuacctStat)
		if err != nil {
			return err
		}
		eachKV(b, func(k []byte, v uint64) {
			switch string(k) {
			case "user":
				out.cpuUser = float64(v) / userHZ
			case "system":
				out.cpuSys = float64(v) / userHZ
			}
		})
		out.haveCPU = true
	case c.cpuStat != "":
		b, err := r.read(c.cpuStat)
		if err != nil {
			return err
		}
		eachKV(b, func(k []byte, v uint64) {
			switch string(k) {
			case "user_usec":
				out.cpuUser = float64(v) / 1e6
			case "system_usec":
				out.cpuSys = float64(v) / 1e6
			}
		})
		out.haveCPU = true
	}
	if c.memCurrent != "" {
		v, err := r.uint(c.memCurrent)
		if err != nil {
			return err
		}
		out.memCurrent, out.haveMem = int64(v), true
		if c.memPeak != "" {
			p, err := r.uint(c.memPeak)
			if err != nil {
				return err
			}
			out.memPeak = int64(p)
		}
	}
	if c.memStat != "" {
		b, err := r.read(c.memStat)
		if err != nil {
			return err
		}
		// v1 names anonymous memory "rss" and the page cache (shmem
		// included) "cache"; v2 says "anon" and "file".
		eachKV(b, func(k []byte, v uint64) {
			switch string(k) {
			case "rss", "anon":
				out.memAnon = int64(v)
			case "cache", "file":
				out.memFile = int64(v)
			case "shmem":
				out.memShmem = int64(v)
			}
		})
	}
	if c.ioStat != "" {
		b, err := r.read(c.ioStat)
		if err != nil {
			return err
		}
		out.readBytes, out.writeBytes, out.readOps, out.writeOps = ioStatSums(b)
		out.haveIO = true
	}
	return nil
}

// userHZ is the unit of the tick counters of /proc and cpuacct.stat: 100
// on every Linux architecture Go supports (procfs assumes the same).
const userHZ = 100

// eachKV calls fn for every "key value" line whose value is an unsigned
// integer (cpu.stat, memory.stat, cpuacct.stat).
func eachKV(b []byte, fn func(key []byte, v uint64)) { eachLineKV(b, ' ', parseUint, fn) }

// ioStatSums adds every device of a v2 io.stat file
// ("8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0").
func ioStatSums(b []byte) (rbytes, wbytes, rios, wios int64) {
	for _, f := range bytes.Fields(b) {
		eq := bytes.IndexByte(f, '=')
		if eq <= 0 {
			continue
		}
		v, ok := parseUint(f[eq+1:])
		if !ok {
			continue
		}
		switch string(f[:eq]) {
		case "rbytes":
			rbytes += int64(v)
		case "wbytes":
			wbytes += int64(v)
		case "rios":
			rios += int64(v)
		case "wios":
			wios += int64(v)
		}
	}
	return
}

// parseUint parses a decimal number, surrounding blanks allowed.
func parseUint(b []byte) (uint64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// parsePids appends the process ids of a cgroup.procs file (one a line)
// or a children file (space-separated).
func parsePids(b []byte, out []int) []int {
	v, in := 0, false
	for _, c := range b {
		if c >= '0' && c <= '9' {
			v, in = v*10+int(c-'0'), true
			continue
		}
		if in {
			out = append(out, v)
		}
		v, in = 0, false
	}
	if in {
		out = append(out, v)
	}
	return out
}
