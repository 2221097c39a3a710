package local

import (
	"errors"
	"syscall"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/engine"
)

// descendants lists every live process below pid. The postmaster's
// children each call setsid(), so they leave its process group: the
// process tree (or the cgroup) is the only way to find them all.
func descendants(pid int) []int {
	procs, err := procfs.AllProcs()
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || st.State == "Z" {
			continue
		}
		children[st.PPID] = append(children[st.PPID], p.PID)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// alive reports whether pid is a process that has not exited (a zombie
// has exited; it only waits for its parent).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	st, err := p.Stat()
	return err == nil && st.State != "Z" && st.State != "X"
}

// isServer reports whether pid is a server of eng started on dataDir
// (PostgreSQL: "postgres -D <dataDir>"), so that a recorded pid, maybe
// reused since by another program, is never signalled by mistake.
func isServer(eng engine.Server, pid int, dataDir string) bool {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	args, err := p.CmdLine()
	return err == nil && eng.IsServer(args, dataDir)
}
