package monitor

import (
	"os"
	"time"
)

// A round's cost is its /proc reads: three files (stat, status, io) per
// server process, each an open, a read and a close, which the kernel
// formats anew. Most of a large run's processes have not run since the
// last round (1,000 idle sessions, 100 servers' background processes),
// and what those files count moves only while the process runs: its CPU
// time, its children reaped, its context switches (it blocked or was
// preempted), the bytes it read and wrote, its resident pages (but for
// the kernel's reclaim, which a second's staleness hides). So a round
// first reads the process's schedstat, a line of three numbers, and reads
// the rest only when its run time moved.

// haveSchedstat says whether this kernel has /proc/<pid>/schedstat
// (CONFIG_SCHED_INFO); without it every process is read whole every round.
func haveSchedstat() bool {
	_, err := os.Stat("/proc/self/schedstat")
	return err == nil
}

// quiet reads the process's schedstat and says whether it has not run
// since the round that last read it whole, and its run time now (known:
// it could be read). An error is the process's: gone, or unreadable.
// schedstat speaks of the main thread only, so a process of several
// threads is never quiet, nor one whose last full read is not known.
func (s *sampler) quiet(p *proc, pid int) (quiet bool, ran uint64, known bool, err error) {
	if !s.sched || s.threaded {
		return false, 0, false, nil
	}
	b, err := s.r.readProcKept(pid, "schedstat", &p.schedFD)
	if err != nil {
		return false, 0, false, err
	}
	ran, known = schedRuntime(b)
	if !known {
		s.errs.add(time.Since(s.origin), "%v", procErr("schedstat", errUnparsable))
		return false, 0, false, nil
	}
	return p.ranKnown && p.last.threads == 1 && ran == p.ran, ran, true, nil
}

// readCounters reads the process's context switches (status) and, where
// the cgroup does not count IO, its bytes read and written (io), and keeps
// st and ran as what the next round compares with: only when everything
// was read, so that a failed read is tried again.
func (s *sampler) readCounters(p *proc, pid int, t time.Duration, st *procStat, ran uint64, known bool) {
	whole := true
	if b, err := s.r.readProc(pid, "status"); err != nil {
		if !gone(err) {
			s.errs.add(t, "%v", procErr("status", err))
		}
		whole = false
	} else if v, i, ok := ctxSwitches(b); ok {
		p.vol, p.invol = v, i
	} else {
		s.errs.add(t, "%v", procErr("status", errUnparsable))
		whole = false
	}
	if !s.cg.hasIO() {
		if b, err := s.r.readProc(pid, "io"); err != nil {
			if !gone(err) {
				s.errs.add(t, "%v", procErr("io", err))
			}
			whole = false
		} else if r, w, ok := ioBytes(b); ok {
			p.readB, p.writeB = r, w
		} else {
			s.errs.add(t, "%v", procErr("io", errUnparsable))
			whole = false
		}
	}
	p.last, p.ran, p.ranKnown = *st, ran, known && whole
}

// closeFiles closes the files the sampler keeps open: its processes' and
// its cgroup's.
func (s *sampler) closeFiles() {
	for _, p := range s.procs {
		s.r.closeFD(&p.schedFD)
	}
	s.r.closeKept()
}

// stillSinceWait says whether no process of the server but the monitor's
// backend ran since the last wait sample was read: then every session's
// state and wait event are what that sample read (a backend sets its own,
// as it runs), and the tick counts them again without a query. A process
// forked since is the postmaster's doing, which ran; one that exited took
// its session away, which the first tick to find it gone reads (later
// ticks pass it by: a session that closed between two rounds would
// otherwise make every tick up to the next round query). It reads each
// process's schedstat and, when some ran, keeps what it read as the
// baseline of the sample about to be taken.
func (s *sampler) stillSinceWait() bool {
	if !s.sched || s.threaded || len(s.procs) == 0 {
		return false
	}
	still := s.waitValid
	for pid, p := range s.procs {
		if p.class == classMonitor || p.exited {
			continue
		}
		b, err := s.r.readProcKept(pid, "schedstat", &p.schedFD)
		if gone(err) {
			p.exited, still = true, false
			continue
		}
		ran, ok := uint64(0), false
		if err == nil {
			ran, ok = schedRuntime(b)
		}
		if !ok || !p.waitKnown || ran != p.waitRan {
			still = false
		}
		p.waitNow, p.waitRead = ran, ok
	}
	if still {
		return true
	}
	for _, p := range s.procs {
		p.waitRan, p.waitKnown = p.waitNow, p.waitRead && p.class != classMonitor
	}
	return false
}
