package monitor

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
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
	// asked is sampler.queries when the process was first read: a query
	// since (sampler.queries > asked) saw it or not, and a title class it
	// did not correct stands (see sampler.needActivity).
	asked uint32
	// listed is the query that last listed a thread's session (threads.go).
	listed uint32
	// last is its stat at the last round that read it, and ran its
	// schedstat run time then (ranKnown: read): a round that finds the
	// run time unchanged reads nothing else of it (sampler.quiet).
	last     procStat
	ran      uint64
	ranKnown bool
	// schedFD is its schedstat kept open (reader.readProcKept).
	schedFD int32
	// waitRan is its run time when the last wait sample was taken
	// (waitKnown: read then), waitNow at this wait tick
	// (sampler.stillSinceWait; waitRead: it could be read).
	waitRan, waitNow    uint64
	waitKnown, waitRead bool
	// exited: a wait tick found it gone. Its leaving changed the sessions
	// once, which the tick read; it stays gone, so later ticks pass it by
	// until the next round drops it.
	exited bool
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
// command line (/proc/<pid>/cmdline, NULs between arguments read as
// blanks): a client backend shows "postgres: [cluster: ]user database host
// activity", host being "[local]" or "addr(port)"; every other server
// process shows a name ("postgres: checkpointer"). A process that has not
// set its title yet (just forked) is unknown.
func classOfTitle(cmdline []byte) class {
	rest, ok := bytes.CutPrefix(bytes.TrimRight(cmdline, "\x00"), []byte("postgres: "))
	if !ok {
		return classUnknown
	}
	// The cluster name, when set, is one more field before the user: the
	// host is the third or the fourth field.
	for i := 0; i < 4; i++ {
		rest = bytes.TrimLeft(rest, " \x00")
		if len(rest) == 0 {
			break
		}
		end := bytes.IndexAny(rest, " \x00")
		if end < 0 {
			end = len(rest)
		}
		f := rest[:end]
		rest = rest[end:]
		if i >= 2 && (string(f) == "[local]" || f[len(f)-1] == ')' && bytes.IndexByte(f, '(') >= 0) {
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
	p := append(r.path[:0], "/proc/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	p = append(p, "/task/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	r.path = append(p, "/children\x00"...)
	b, err := r.readPath()
	if err != nil {
		return out, err
	}
	return parsePids(b, out), nil
}

// treeOf lists the postmaster and its descendants, breadth first, into
// out. Where the kernel lacks the children files it scans every process.
func treeOf(r *reader, postmaster int, out []int) ([]int, error) {
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
			return scanTree(r, postmaster, out[:0])
		default:
			return out[:0], err
		}
	}
	return out, nil
}

// alive: signal 0 checks existence (EPERM still means it exists).
func alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// scanTree finds the descendants of pid by reading every process's parent
// (only on kernels without the children files).
func scanTree(r *reader, pid int, out []int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out, err
	}
	children := map[int][]int{}
	var st procStat
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if b, err := r.readProc(p, "stat"); err == nil && parseStat(b, &st) {
			children[st.ppid] = append(children[st.ppid], p)
		}
	}
	out = append(out, pid)
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}
