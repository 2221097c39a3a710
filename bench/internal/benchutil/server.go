package benchutil

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// userHZ is the unit of the CPU times of /proc/<pid>/stat (USER_HZ, 100 on
// every Linux the project runs on).
const userHZ = 100

// ServerCPUSeconds is the CPU time (user and system) the server inst has
// used so far, from its own accounting: its cgroup's cpu.stat under
// cgroup v2, else its process tree in /proc (the postmaster with the
// children it reaped, and every living child: backends are counted while
// their connections stay open, as they do through a benchmark's round).
// Differences of two readings are what a round cost the server.
func ServerCPUSeconds(inst *provider.Instance) (float64, error) {
	rs, ok := provider.As[provider.ResourceSampler](inst)
	if !ok {
		return 0, fmt.Errorf("instance %s: no process to account", inst.Name)
	}
	if path, mode := rs.Cgroup(); mode == "v2" && path != "" {
		if b, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", path, "cpu.stat")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
					us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
					if err == nil {
						return float64(us) / 1e6, nil
					}
				}
			}
		}
	}
	root := rs.ProcessRoot()
	ticks, err := procTicks(root, true)
	if err != nil {
		return 0, err
	}
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", root, root))
	for _, f := range strings.Fields(string(kids)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		if t, err := procTicks(pid, false); err == nil { // a child may have exited since
			ticks += t
		}
	}
	return float64(ticks) / userHZ, nil
}

// procTicks is pid's utime + stime, with cutime + cstime (its reaped
// children's) when reaped is set.
func procTicks(pid int, reaped bool) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command may hold spaces and parentheses: the fields start after
	// the last ')'. utime is field 14 of the line, the 12th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := 2
	if reaped {
		n = 4
	}
	var sum int64
	for _, s := range f[11 : 11+n] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
		}
		sum += v
	}
	return sum, nil
}
