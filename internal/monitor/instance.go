package monitor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// sampler measures one instance. One goroutine drives it
// (Monitor.runInstance); Mark, SetPlacements and Stop take mu to use its
// connection and state.
type sampler struct {
	inst   *provider.Instance
	origin time.Time
	fsys   procfs.FS
	cg     *cgroupFiles // nil: everything from the process tree
	page   int64
	pss    time.Duration // smaps_rollup every pss; 0: never
	r      reader

	mu         sync.Mutex
	conn       *pgx.Conn
	lost       bool // conn broke and could not be opened again yet
	monitorPid int
	tenants    tenantMap
	procs      map[int]*proc
	pids       []int
	round      uint32
	lastPSS    time.Time

	// base is the first round's absolute counters; samples hold the
	// difference.
	base counters
	// retired holds the last counters of processes that exited, so that
	// summed per-process counters never go back.
	retiredVol, retiredInvol, retiredRead, retiredWrite uint64
	// catUser and catSys are CPU ticks attributed per category since Start.
	catUser, catSys []uint64

	series []ResourceSample
	waits  waitHist
	stats  statsState
	errs   errorLog
}

// counters are a round's absolute cumulative figures.
type counters struct {
	cpuUser, cpuSys                  float64
	readB, writeB, readOps, writeOps int64
	vol, invol                       int64
	procCPUUser, procCPUSys          uint64 // process tree, ticks
	procReadB, procWriteB            uint64
	haveCgCPU, haveCgIO, haveMem     bool
}

func newSampler(inst *provider.Instance, fsys procfs.FS, origin time.Time, pss time.Duration) *sampler {
	return &sampler{
		inst:   inst,
		origin: origin,
		fsys:   fsys,
		cg:     openCgroup(inst.Cgroup, inst.CgroupMode),
		page:   int64(os.Getpagesize()),
		pss:    pss,
		procs:  map[int]*proc{},
		tenants: tenantMap{
			names: pseudoTenants(),
		},
		catUser: make([]uint64, firstTenant),
		catSys:  make([]uint64, firstTenant),
	}
}

// connect opens the admin connection the sampler uses for
// pg_stat_activity and the statistics views.
func (s *sampler) connect(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(s.inst.AdminDSN("postgres"))
	if err != nil {
		return fmt.Errorf("instance %s: bad admin connection settings", s.inst.Name) // never echo the DSN: it holds the password
	}
	cfg.RuntimeParams["application_name"] = "tenantbench monitor"
	cfg.ConnectTimeout = queryTimeout
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("instance %s: monitor connection: %w", s.inst.Name, err)
	}
	s.conn = conn
	s.monitorPid = int(conn.PgConn().PID())
	if err := s.stats.init(ctx, conn); err != nil {
		conn.Close(context.Background())
		s.conn = nil
		return fmt.Errorf("instance %s: %w", s.inst.Name, err)
	}
	return nil
}

// ensureConn opens another admin connection when the last one broke (a
// query cut by its timeout, a backend terminated), at most once a round or
// mark, so that a server back from a stall is sampled again.
func (s *sampler) ensureConn(ctx context.Context, t time.Duration) {
	if ctx.Err() != nil || !(s.lost || s.conn != nil && s.conn.IsClosed()) {
		return
	}
	s.close()
	s.lost = true
	if err := s.connect(ctx); err != nil {
		s.errs.add(t, "%v", err)
		return
	}
	s.lost = false
}

func (s *sampler) close() {
	if s.conn != nil {
		_ = s.conn.Close(context.Background())
		s.conn = nil
	}
}

// setPlacements takes the tenants placed on this instance. Client backends
// already known are attributed again, at their next round, under the new
// map.
func (s *sampler) setPlacements(ps []tenancy.Placement) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tenants.set(s.inst.Name, ps)
	for len(s.catUser) < len(s.tenants.names) {
		s.catUser = append(s.catUser, 0)
		s.catSys = append(s.catSys, 0)
	}
	for _, p := range s.procs {
		if p.class == classClient || p.class == classParallel {
			p.cat = noTenant
		}
	}
}

// sample runs one resource round: pg_stat_activity for the processes'
// tenants, then every process's /proc files, then the cgroup. The first
// round sets the base the others are measured from.
func (s *sampler) sample(ctx context.Context, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := now.Sub(s.origin)
	s.ensureConn(ctx, t)
	if s.conn != nil {
		if err := s.activity(ctx, false); err != nil && ctx.Err() == nil {
			s.errs.add(t, "pg_stat_activity: %v", err)
		}
	}
	var err error
	if s.cg != nil {
		s.pids, err = s.r.pidsOf(s.cg.procs, s.pids[:0])
	} else {
		s.pids, err = treeOf(&s.r, s.fsys, s.inst.Pid, s.pids[:0])
	}
	if err != nil {
		s.errs.add(t, "list processes: %v", err)
		return
	}
	s.round++
	first := s.round == 1
	doPSS := s.pss > 0 && (first || now.Sub(s.lastPSS) >= s.pss-s.pss/20)
	if doPSS {
		s.lastPSS = now
	}
	smp := ResourceSample{T: t, MemCurrent: -1, MemPeak: -1, MemAnon: -1, MemFile: -1, MemShmem: -1, PSS: -1,
		IOReadOps: -1, IOWriteOps: -1}
	var c counters
	var vol, invol, readB, writeB uint64
	var rss, pss int64
	for _, pid := range s.pids {
		p := s.procs[pid]
		if p == nil {
			p = &proc{cat: noTenant}
			s.procs[pid] = p
		}
		if p.start == 0 {
			h, err := s.fsys.Proc(pid)
			if err != nil {
				continue // exited since it was listed
			}
			p.h = h
		}
		st, err := p.h.Stat()
		if err != nil {
			if !gone(err) {
				s.errs.add(t, "%v", procErr("stat", err))
			}
			continue
		}
		if p.start != st.Starttime {
			if p.start != 0 { // the pid was reused by a new process
				s.retire(p)
				*p = proc{h: p.h, cat: noTenant}
			}
			p.start = st.Starttime
			if first {
				// What the process used before Start is not measured.
				p.cpuUser, p.cpuSys = uint64(st.UTime), uint64(st.STime)
			}
		}
		p.round = s.round
		s.classify(p, pid)
		s.attribute(p, uint64(st.UTime), uint64(st.STime))
		// With the children each process reaped (the postmaster reaps
		// every backend that exits), the tree's sum loses nothing.
		c.procCPUUser += uint64(st.UTime) + uint64(max(st.CUTime, 0))
		c.procCPUSys += uint64(st.STime) + uint64(max(st.CSTime, 0))
		rss += int64(st.RSS) * s.page
		if status, err := p.h.NewStatus(); err == nil {
			p.vol, p.invol = status.VoluntaryCtxtSwitches, status.NonVoluntaryCtxtSwitches
		} else if !gone(err) {
			s.errs.add(t, "%v", procErr("status", err))
		}
		vol += p.vol
		invol += p.invol
		if !s.cg.hasIO() {
			if pio, err := p.h.IO(); err == nil {
				p.readB, p.writeB = pio.ReadBytes, pio.WriteBytes
			} else if !gone(err) {
				s.errs.add(t, "%v", procErr("io", err))
			}
			readB += p.readB
			writeB += p.writeB
		}
		if doPSS {
			if sm, err := p.h.ProcSMapsRollup(); err == nil {
				pss += int64(sm.Pss)
			} else if !gone(err) {
				s.errs.add(t, "%v", procErr("smaps_rollup", err))
			}
		}
		smp.Procs++
		switch p.class {
		case classMonitor:
		case classClient, classUnknown:
			// A process without its title has just been forked, most
			// often for a connection; the next round knows.
			smp.ClientBackends++
		default:
			smp.Background++
		}
	}
	for pid, p := range s.procs {
		if p.round != s.round {
			s.retire(p)
			delete(s.procs, pid)
		}
	}
	c.vol = int64(s.retiredVol + vol)
	c.invol = int64(s.retiredInvol + invol)
	c.procReadB, c.procWriteB = s.retiredRead+readB, s.retiredWrite+writeB
	smp.RSS, smp.PSS = rss, pss
	if !doPSS {
		smp.PSS = -1
	}
	if s.cg != nil {
		var cr cgroupReading
		if err := s.cg.read(&s.r, &cr); err != nil {
			s.errs.add(t, "cgroup: %v", err)
		}
		c.cpuUser, c.cpuSys, c.haveCgCPU = cr.cpuUser, cr.cpuSys, cr.haveCPU
		c.readB, c.writeB, c.readOps, c.writeOps = cr.readBytes, cr.writeBytes, cr.readOps, cr.writeOps
		c.haveCgIO, c.haveMem = cr.haveIO, cr.haveMem
		if cr.haveMem {
			smp.MemCurrent, smp.MemPeak = cr.memCurrent, cr.memPeak
			smp.MemAnon, smp.MemFile, smp.MemShmem = cr.memAnon, cr.memFile, cr.memShmem
		}
	}
	if first {
		s.base = c
	}
	s.fill(&smp, &c)
	s.series = append(s.series, smp)
}

// fill sets the sample's counters: the differences from the base.
func (s *sampler) fill(smp *ResourceSample, c *counters) {
	b := &s.base
	if c.haveCgCPU {
		smp.CPUUser, smp.CPUSys = c.cpuUser-b.cpuUser, c.cpuSys-b.cpuSys
	} else {
		smp.CPUUser = float64(int64(c.procCPUUser-b.procCPUUser)) / userHZ
		smp.CPUSys = float64(int64(c.procCPUSys-b.procCPUSys)) / userHZ
	}
	if c.haveCgIO {
		smp.IOReadBytes, smp.IOWriteBytes = c.readB-b.readB, c.writeB-b.writeB
		smp.IOReadOps, smp.IOWriteOps = c.readOps-b.readOps, c.writeOps-b.writeOps
	} else {
		smp.IOReadBytes = int64(c.procReadB - b.procReadB)
		smp.IOWriteBytes = int64(c.procWriteB - b.procWriteB)
	}
	smp.CtxVoluntary, smp.CtxInvoluntary = c.vol-b.vol, c.invol-b.invol
	smp.TenantUser = make([]float64, len(s.catUser))
	smp.TenantSys = make([]float64, len(s.catSys))
	for i := range s.catUser {
		smp.TenantUser[i] = float64(s.catUser[i]) / userHZ
		smp.TenantSys[i] = float64(s.catSys[i]) / userHZ
	}
}

// classify finds the class of a process pg_stat_activity has not named:
// the postmaster, the monitor's backend, else by its title. A title read
// once is kept (a process's kind never changes); "unknown" is read again.
func (s *sampler) classify(p *proc, pid int) {
	if p.class != classUnknown {
		return
	}
	switch pid {
	case s.inst.Pid:
		p.class, p.cat = classBackground, catBackground
		return
	case s.monitorPid:
		p.class, p.cat = classMonitor, catMonitor
		return
	}
	if args, err := p.h.CmdLine(); err == nil {
		p.class, p.titled = classOfTitle(args), true
	}
	if p.class == classBackground {
		p.cat = catBackground
	}
}

// attribute adds the process's CPU since the last round to its category.
// A client backend whose tenant is not known yet (pg_stat_activity has not
// listed it) keeps its CPU until it is: it is counted at a later round.
func (s *sampler) attribute(p *proc, utime, stime uint64) {
	if p.cat == noTenant || utime < p.cpuUser || stime < p.cpuSys {
		return
	}
	s.catUser[p.cat] += utime - p.cpuUser
	s.catSys[p.cat] += stime - p.cpuSys
	p.cpuUser, p.cpuSys = utime, stime
}

// retire keeps the counters of a process that exited in the sums.
func (s *sampler) retire(p *proc) {
	if p.start == 0 {
		return
	}
	s.retiredVol += p.vol
	s.retiredInvol += p.invol
	s.retiredRead += p.readB
	s.retiredWrite += p.writeB
}

// procErr names a failed /proc read without the pid, so that the error
// log counts one problem once, not once per process.
func procErr(file string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("read /proc/<pid>/%s of a server process: %w", file, err)
}

// pidsOf reads a cgroup.procs file.
func (r *reader) pidsOf(path string, out []int) ([]int, error) {
	b, err := r.read(path)
	if err != nil {
		return out, err
	}
	return parsePids(b, out), nil
}

// sources names where the instance's figures come from.
func (s *sampler) sources() (cpu, mem, io string) {
	cg := "cgroup " + s.inst.CgroupMode
	cpu, mem, io = "proc", "proc", "proc"
	if s.cg.hasCPU() {
		cpu = cg
	}
	if s.cg.hasMemory() {
		mem = cg
	}
	if s.cg.hasIO() {
		io = cg
	}
	return
}
