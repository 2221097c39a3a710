package monitor

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"
)

// class is what a server process is, for the counts and for CPU
// attribution.
type class uint8

const (
	classUnknown    class = iota // not yet known: neither pg_stat_activity nor the title said
	classClient                  // a client backend: its CPU goes to its tenant
	classParallel                // a parallel worker: a background process whose CPU goes to the tenant of its query
	classBackground              // postmaster, checkpointer, walwriter, autovacuum, logger...
	classMonitor                 // the monitor's own backend
)

// Tenant indexes of the CPU categories that are not tenants; real tenants
// follow them in sampler.names.
const (
	catBackground = iota // background processes: instance-level CPU
	catMonitor           // the monitor's own backend: the cost of monitoring
	catOther             // client backends of roles that are no tenant's (setup, superuser)
	firstTenant
)

// pseudoTenants name the categories before firstTenant.
func pseudoTenants() []string { return []string{"(background)", "(monitor)", "(other)"} }

// noTenant marks a process whose category is not known yet; its CPU is
// held back until it is (see attribute).
const noTenant = -1

// proc is what a sampler keeps of one server process between rounds.
type proc struct {
	h     procfs.Proc
	start uint64 // start time in ticks since boot: tells a reused pid apart; 0 = not read yet
	class class
	cat   int // catBackground... or a tenant index; noTenant while unknown

	// Counters at the last round, in ticks (CPU) and counts. cpuUser and
	// cpuSys are the part of the process's CPU already attributed.
	cpuUser, cpuSys uint64
	vol, invol      uint64
	readB, writeB   uint64
	round           uint32 // the last round that listed the process
	// titled: the class came from the process title; pg_stat_activity
	// may still correct it.
	titled bool
}

// classOf maps pg_stat_activity.backend_type to a class.
func classOf(backendType []byte) class {
	switch string(backendType) {
	case "client backend":
		return classClient
	case "parallel worker":
		return classParallel
	case "":
		return classUnknown
	}
	return classBackground
}

// classOfTitle classifies a process by the title PostgreSQL writes over its
// command line: a client backend shows "postgres: [cluster: ]user database
// host activity", host being "[local]" or "addr(port)"; every other server
// process shows a name ("postgres: checkpointer"). A process that has not
// set its title yet (just forked) is unknown.
func classOfTitle(cmdline []string) class {
	if len(cmdline) == 0 {
		return classUnknown
	}
	title := strings.Join(cmdline, " ")
	rest, ok := strings.CutPrefix(title, "postgres: ")
	if !ok {
		return classUnknown
	}
	f := strings.Fields(rest)
	for i := 2; i < len(f) && i < 4; i++ {
		// The cluster name, when set, is one more field before the user.
		if h := f[i]; h == "[local]" || (strings.HasSuffix(h, ")") && strings.Contains(h, "(")) {
			return classClient
		}
	}
	return classBackground
}

// gone reports whether a /proc read failed because the process exited.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// childrenOf appends the children of pid, read from
// /proc/<pid>/task/<pid>/children (a PostgreSQL server process has one
// thread, so that file lists all of them).
func childrenOf(r *reader, pid int, out []int) ([]int, error) {
	b, err := r.read("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return out, err
	}
	return parsePids(b, out), nil
}

// treeOf lists the postmaster and its descendants, breadth first, into
// out. Where the kernel lacks the children files it scans every process.
func treeOf(r *reader, fsys procfs.FS, postmaster int, out []int) ([]int, error) {
	out = append(out[:0], postmaster)
	for i := 0; i < len(out); i++ {
		next, err := childrenOf(r, out[i], out)
		switch {
		case err == nil:
			out = next
		case !gone(err):
			return out[:0], err
		case i > 0:
			// A child exited during the walk: it has nothing left to list.
		case alive(postmaster):
			// The postmaster is there but its children file is not: a
			// kernel built without CONFIG_PROC_CHILDREN.
			return scanTree(fsys, postmaster, out[:0])
		default:
			return out[:0], err
		}
	}
	return out, nil
}

// alive: signal 0 checks existence (EPERM still means it exists).
func alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// scanTree finds the descendants of pid by reading every process's parent.
func scanTree(fsys procfs.FS, pid int, out []int) ([]int, error) {
	all, err := fsys.AllProcs()
	if err != nil {
		return out, err
	}
	children := map[int][]int{}
	for _, p := range all {
		if st, err := p.Stat(); err == nil {
			children[st.PPID] = append(children[st.PPID], p.PID)
		}
	}
	out = append(out, pid)
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}
