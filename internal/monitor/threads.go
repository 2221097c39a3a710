package monitor

import (
	"os"
	"strconv"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/server"
)

// A server that runs its sessions as threads of one process (MariaDB;
// its statistics session says so: server.Threaded) has its CPU attributed
// per thread, not per process: each round reads
// /proc/<pid>/task/<tid>/stat of every thread of the server's processes
// and adds the thread's CPU since the previous round to the category of
// the session it runs, as a PostgreSQL backend's is added to its
// session's. The sessions' threads come from the statistics session's
// Activity (Pid is the thread's id there); a thread no session runs on is
// a background one (InnoDB's, the purge's, the timer's, a cached idle
// connection thread's). A thread may serve another session later (the
// thread cache): its category is the one of the session it ran at the
// last query, which runs at every round.

// threaded says whether conn's server runs its sessions as threads.
func threaded(conn server.Stats) bool {
	th, ok := conn.(server.Threaded)
	return ok && th.Threaded()
}

// nameThread takes what a query says of the session on thread a.Pid.
func (s *sampler) nameThread(a *server.Activity) *proc {
	p := s.tasks[a.Pid]
	if p == nil {
		p = &proc{cat: noTenant}
		s.tasks[a.Pid] = p
	}
	// The query in flight: s.queries counts it once it succeeds.
	p.listed = s.queries + 1
	p.class = classOf(a.Type)
	session := p.class == classClient || p.class == classParallel
	if p.class == classUnknown || session && (!a.HasRole || !a.Named) {
		p.cat = noTenant // named at a later query
	} else {
		p.cat = s.tenants.category(p.class, a.User, a.Database)
	}
	return p
}

// classifyThread gives a thread no query named its class: the monitor's
// own session's thread; a thread the last query did not list is no
// session's (background), unless no query has run since it was first
// read (a session that started meanwhile): its CPU then waits for the
// next round's query.
func (s *sampler) classifyThread(p *proc, tid int) {
	switch {
	case tid == s.monitorPid:
		p.class, p.cat = classMonitor, catMonitor
	case p.listed >= s.queries && p.listed > 0:
		// Named by the last query (or by one that failed midway).
	case p.asked == s.queries:
		p.class, p.cat = classUnknown, noTenant
	default:
		p.class, p.cat = classBackground, catBackground
	}
}

// sampleThreads attributes the CPU of every thread of process pid and
// counts the threads in smp: procs, client_backends and background_procs
// count threads on such a server.
func (s *sampler) sampleThreads(pid int, first bool, t time.Duration, smp *ResourceSample) {
	var err error
	s.tids, err = s.r.tasksOf(pid, s.tids[:0])
	if err != nil {
		if !gone(err) {
			s.errs.add(t, "%v", procErr("task", err))
		}
		return
	}
	var st procStat
	for _, tid := range s.tids {
		b, err := s.r.readTask(pid, tid, "stat")
		if err == nil && !parseStat(b, &st) {
			err = errUnparsable
		}
		if err != nil {
			if !gone(err) {
				s.errs.add(t, "%v", procErr("task/<tid>/stat", err))
			}
			continue // ended since it was listed
		}
		p := s.tasks[tid]
		if p == nil {
			p = &proc{cat: noTenant}
			s.tasks[tid] = p
		}
		if p.start != st.starttime {
			if p.start != 0 { // the id was reused by a new thread
				*p = proc{cat: noTenant}
			}
			p.start = st.starttime
			p.asked = s.queries
			if first {
				// What the thread used before Start is not measured.
				p.cpuUser, p.cpuSys = st.utime, st.stime
			}
		}
		p.round = s.round
		s.classifyThread(p, tid)
		s.attribute(p, st.utime, st.stime)
		smp.Procs++
		switch p.class {
		case classMonitor:
		case classClient, classUnknown:
			smp.ClientBackends++
		default:
			smp.Background++
		}
	}
}

// forgetThreads drops the threads this round did not see.
func (s *sampler) forgetThreads() {
	for tid, p := range s.tasks {
		if p.round != s.round {
			delete(s.tasks, tid)
		}
	}
}

// tasksOf lists the threads of pid (/proc/<pid>/task).
func (r *reader) tasksOf(pid int, out []int) ([]int, error) {
	d, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return out, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return out, err
	}
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// readTask reads /proc/<pid>/task/<tid>/<file>: the thread's own
// figures (/proc/<tid>/stat would be its whole process's).
func (r *reader) readTask(pid, tid int, file string) ([]byte, error) {
	p := append(r.path[:0], "/proc/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	p = append(p, "/task/"...)
	p = strconv.AppendInt(p, int64(tid), 10)
	p = append(p, '/')
	p = append(p, file...)
	r.path = append(p, 0)
	return r.readPath()
}
