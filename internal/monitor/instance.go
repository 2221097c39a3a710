package monitor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// sampler measures one instance. One goroutine drives it
// (Monitor.runInstance); Mark, SetPlacements and Stop take mu to use its
// connection and state.
type sampler struct {
	inst   *provider.Instance
	origin time.Time
	// root, cgPath and cgMode are the instance's process tree root and
	// cgroup, from its provider's ResourceSampler: 0, "" and "none"
	// without one (then no process is sampled).
	root           int
	cgPath, cgMode string
	// usage is the instance's UsageSampler when it has neither process
	// nor cgroup here (a pod): its whole CPU and memory, measured by what
	// runs it (usage.go); nil otherwise.
	usage provider.UsageSampler
	used  usageState
	// observe is Config.Observe, nil for none.
	observe func(Latest)
	// sql is the engine's statistics queries, set by connect.
	sql  engine.Statistics
	cg   *cgroupFiles // nil: everything from the process tree
	page int64
	pss  time.Duration // smaps_rollup every pss; 0: never
	r    reader
	// sched: this kernel has /proc/<pid>/schedstat, which tells a
	// process that has not run since the last round (sampler.quiet).
	sched bool

	mu         sync.Mutex
	conn       server.Stats
	lost       bool // conn broke and could not be opened again yet
	monitorPid int
	tenants    tenantMap
	procs      map[int]*proc
	pids       []int
	// threaded: the server runs its sessions as threads (threads.go);
	// tasks are its threads by id, tids a round's list.
	threaded bool
	tasks    map[int]*proc
	tids     []int
	round    uint32
	lastPSS  time.Time
	// pssCost is the monitor's PSS budget (pssbudget.go), nil for none;
	// pssClock times this sampler's PSS reads.
	pssCost  *pssBudget
	pssClock pssClock

	// queries counts the activity reads that succeeded (see
	// needActivity).
	queries uint32
	// waitRows are the sessions the last wait sample read; waitSkip the
	// wait ticks left to skip (waitTick); waitValid: the last wait
	// sample was read whole (stillSinceWait).
	waitRows, waitSkip int
	waitValid          bool

	// slab holds the tenant CPU figures of the samples to come: one
	// allocation for many rounds.
	slab []float64
	// catAnon sums a PSS round's Pss_Anon by category; anonSlab holds the
	// tenants' figures of the PSS rounds to come.
	catAnon  []int64
	anonSlab []int64

	// base is the first round's absolute counters; samples hold the
	// difference.
	base counters
	// retired holds the last counters of processes that exited, so that
	// summed per-process counters never go back.
	retiredVol, retiredInvol, retiredRead, retiredWrite uint64
	// catUser and catSys are CPU ticks attributed per category since Start.
	catUser, catSys []uint64

	shmem  int64 // InstanceSeries.SharedExceptBuffers
	series []ResourceSample
	pools  []PoolSample        // InstanceSeries.Pools
	repl   []ReplicationSample // InstanceSeries.Replication
	waits  waitHist
	stats  statsState
	errs   errorLog
	blocks blockState
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

func newSampler(inst *provider.Instance, origin time.Time, pss time.Duration) *sampler {
	root := 0
	if rs, ok := provider.As[provider.ResourceSampler](inst); ok {
		root = rs.ProcessRoot()
	}
	cgPath, cgMode := provider.CgroupOf(inst)
	var us provider.UsageSampler
	if u, ok := provider.As[provider.UsageSampler](inst); ok && root == 0 && cgPath == "" {
		us = u
	}
	s := &sampler{
		usage:  us,
		inst:   inst,
		origin: origin,
		root:   root,
		cgPath: cgPath,
		cgMode: cgMode,
		cg:     openCgroup(cgPath, cgMode),
		page:   int64(os.Getpagesize()),
		pss:    pss,
		sched:  haveSchedstat(),
		shmem:  -1,
		procs:  map[int]*proc{},
		tasks:  map[int]*proc{},
		tenants: tenantMap{
			names: pseudoTenants(),
		},
		catUser: make([]uint64, firstTenant),
		catSys:  make([]uint64, firstTenant),
	}
	s.r.keep = true
	return s
}

// connect opens the engine's statistics session the sampler reads the
// server's sessions and statistics views with.
func (s *sampler) connect(ctx context.Context) error {
	sql, ok := s.inst.Engine.(engine.Statistics)
	if !ok {
		// An engine without statistics queries: its server's processes
		// and cgroup are sampled, its sessions and statistics views are
		// not.
		return nil
	}
	s.sql = sql
	db := s.blocks.db // the tenants' schemas' database, when blocks are counted by schema
	if db == "" {
		db = sql.MaintenanceDatabase()
	}
	conn, err := sql.OpenStats(ctx, s.inst.AdminDSN(db))
	if err != nil {
		return fmt.Errorf("instance %s: %w", s.inst.Name, err)
	}
	s.conn = conn
	s.monitorPid = conn.Pid()
	s.threaded = threaded(conn)
	err = s.stats.init(ctx, conn, sql.StatisticsViews())
	if err == nil {
		s.readShmem(ctx)
	}
	if err != nil {
		conn.Close(context.Background())
		s.conn = nil
		return fmt.Errorf("instance %s: %w", s.inst.Name, err)
	}
	return nil
}

// readShmem reads the shared memory the server allocated, but its buffer
// cache ("Buffer Blocks") and the segment's unused rest (the row without a
// name), into s.shmem: the shared part of Oracle's (2014) memory footprint. A
// server without the view (before 13) leaves it unknown, not an error.
func (s *sampler) readShmem(ctx context.Context) {
	v, ok, err := s.conn.SharedMemory(ctx)
	if err != nil {
		s.errs.add(time.Since(s.origin), "%v", err)
	}
	if ok {
		s.shmem = v
	}
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

// checkConn finds a connection that broke unnoticed before a mark uses it
// (rounds query only to name new processes, so without wait sampling a
// terminated backend can go unnoticed until then), reports the break, and
// opens another.
func (s *sampler) checkConn(ctx context.Context, t time.Duration) {
	if s.conn == nil || ctx.Err() != nil {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if err := s.conn.Ping(pctx); err != nil {
		s.errs.add(t, "monitor connection: %v", err)
		s.lost = true
		s.ensureConn(ctx, t)
	}
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
	s.setBlocks(ps)
	s.waitValid = false // the last wait sample's sessions were counted under the old tenants
	// The tenants were placed since the names were read: a copied
	// server's tenant was renamed in place, keeping its role's and
	// database's ids, which a cache would still name as the template's.
	if nc, ok := s.conn.(server.NameCache); ok {
		nc.ForgetNames()
	}
	for len(s.catUser) < len(s.tenants.names) {
		s.catUser = append(s.catUser, 0)
		s.catSys = append(s.catSys, 0)
	}
	for _, p := range s.procs {
		if p.class == classClient || p.class == classParallel {
			p.cat = noTenant
		}
	}
	for _, p := range s.tasks {
		if p.class == classClient || p.class == classParallel {
			p.cat = noTenant
		}
	}
}

// sample runs one resource round: the processes of the instance, then
// pg_stat_activity when a process needs naming, then every process's /proc
// files, then the cgroup. The first round sets the base the others are
// measured from.
func (s *sampler) sample(ctx context.Context, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := now.Sub(s.origin)
	s.ensureConn(ctx, t)
	// An in-place restart (a fault of the run's interference) gives the
	// server a new root process.
	if rs, ok := provider.As[provider.ResourceSampler](s.inst); ok {
		s.root = rs.ProcessRoot()
	}
	s.samplePools(ctx, t)
	s.sampleReplication(ctx, t)
	var err error
	if s.cg != nil {
		s.pids, err = s.r.pidsOf(s.cg.procs, s.pids[:0])
	} else if s.root > 0 {
		s.pids, err = treeOf(&s.r, s.root, s.pids[:0])
	} else {
		s.pids = s.pids[:0]
	}
	if err != nil {
		s.errs.add(t, "list processes: %v", err)
		return
	}
	if s.conn != nil && s.needActivity() {
		if err := s.activity(ctx, false); err != nil && ctx.Err() == nil {
			s.errs.add(t, "pg_stat_activity: %v", err)
		}
	}
	s.round++
	first := s.round == 1
	every := s.pssCost.every(s.pss)
	doPSS := s.pss > 0 && (first || now.Sub(s.lastPSS) >= every-every/20)
	if doPSS {
		s.lastPSS = now
		s.pssClock.start()
		defer s.pssClock.stop()
	}
	smp := ResourceSample{T: t, MemCurrent: -1, MemPeak: -1, MemAnon: -1, MemFile: -1, MemShmem: -1, PSS: -1,
		IOReadOps: -1, IOWriteOps: -1}
	var c counters
	var vol, invol, readB, writeB uint64
	var rss, pss, bgAnon int64
	bgAnonMissing := false // a kernel before 5.10 has no Pss_Anon
	var st procStat
	// moved: a process other than the monitor's backend ran since the
	// last round, or exited; else no tenant's blocks can have moved.
	moved := false
	if doPSS {
		s.catAnon = append(s.catAnon[:0], make([]int64, len(s.catUser))...)
	}
	for _, pid := range s.pids {
		p := s.procs[pid]
		if p == nil {
			p = &proc{cat: noTenant}
			s.procs[pid] = p
		}
		quiet, ran, known, err := s.quiet(p, pid)
		if err != nil {
			if !gone(err) {
				s.errs.add(t, "%v", procErr("schedstat", err))
			}
			continue // exited since it was listed
		}
		if quiet {
			// Nothing it counts moved since it was last read: its
			// stat, status and io are what they were.
			st = p.last
		} else if b, err := s.r.readProc(pid, "stat"); err != nil || !parseStat(b, &st) {
			if err == nil {
				err = errUnparsable
			}
			if !gone(err) {
				s.errs.add(t, "%v", procErr("stat", err))
			}
			continue // exited since it was listed
		}
		if p.start != st.starttime {
			if p.start != 0 { // the pid was reused by a new process
				fd := p.schedFD // the new process's, opened by quiet
				p.schedFD = 0
				s.retire(p)
				*p = proc{cat: noTenant, schedFD: fd}
			}
			p.start = st.starttime
			p.asked = s.queries
			if first {
				// What the process used before Start is not measured.
				p.cpuUser, p.cpuSys = st.utime, st.stime
			}
		}
		p.round = s.round
		if s.threaded {
			// Its CPU is attributed thread by thread; its memory is
			// the background's (the sessions have none of their own).
			p.class, p.cat = classBackground, catBackground
			s.sampleThreads(pid, first, t, &smp)
		} else {
			s.classify(p, pid)
			if !quiet && p.class != classMonitor {
				moved = true
			}
			s.attribute(p, st.utime, st.stime)
		}
		// With the children each process reaped (the postmaster reaps
		// every backend that exits), the tree's sum loses nothing.
		c.procCPUUser += st.utime + uint64(max(st.cutime, 0))
		c.procCPUSys += st.stime + uint64(max(st.cstime, 0))
		rss += st.rss * s.page
		if !quiet {
			s.readCounters(p, pid, t, &st, ran, known)
		}
		vol += p.vol
		invol += p.invol
		if !s.cg.hasIO() {
			readB += p.readB
			writeB += p.writeB
		}
		if doPSS {
			t0 := s.pssClock.now()
			b, err := s.r.readProc(pid, "smaps_rollup")
			s.pssClock.add(t0)
			if err != nil {
				if !gone(err) {
					s.errs.add(t, "%v", procErr("smaps_rollup", err))
				}
			} else if v, anon, ok := smapsRollup(b); ok {
				pss += int64(v)
				if p.class == classBackground {
					if anon < 0 {
						bgAnonMissing = true
					}
					bgAnon += anon
				}
				if p.cat >= firstTenant && anon > 0 {
					s.catAnon[p.cat] += anon
				}
			} else if len(b) > 0 { // empty for a process that is exiting
				s.errs.add(t, "%v", procErr("smaps_rollup", errUnparsable))
			}
		}
		if s.threaded {
			continue // its threads were counted
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
	s.forgetThreads()
	for pid, p := range s.procs {
		if p.round != s.round {
			s.retire(p)
			delete(s.procs, pid)
			moved = true // it may have counted something as it exited
		}
	}
	c.vol = int64(s.retiredVol + vol)
	c.invol = int64(s.retiredInvol + invol)
	c.procReadB, c.procWriteB = s.retiredRead+readB, s.retiredWrite+writeB
	smp.RSS, smp.PSS, smp.BackgroundAnon = rss, pss, bgAnon
	if doPSS {
		s.pssClock.publish(s.pssCost)
	}
	if !doPSS || bgAnonMissing {
		smp.BackgroundAnon = -1
	}
	if !doPSS {
		smp.PSS = -1
	}
	if doPSS && !bgAnonMissing { // without Pss_Anon in the background's, none has it
		n := len(s.catAnon)
		if len(s.anonSlab) < n {
			s.anonSlab = make([]int64, n*16)
		}
		smp.TenantAnon = s.anonSlab[:n:n]
		s.anonSlab = s.anonSlab[n:]
		copy(smp.TenantAnon, s.catAnon)
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
	if s.usage != nil {
		s.readUsage(ctx, t, &c, &smp)
	}
	if first {
		s.base = c
	}
	s.fill(&smp, &c)
	s.readBlocks(ctx, t, &smp, moved || s.threaded || first)
	s.series = append(s.series, smp)
	if s.observe != nil {
		s.observe(s.latest(&smp))
	}
}

// latest is the round smp as live metrics show it: what this machine
// does not measure negative.
func (s *sampler) latest(smp *ResourceSample) Latest {
	l := Latest{Instance: s.inst.Name, CPUSeconds: -1, MemoryBytes: -1}
	l.CPUSource, l.MemorySource, _ = s.sources()
	// Processes seen here: a cgroup, or a process tree.
	local := s.usage == nil && (s.cg != nil || s.root > 0)
	if local || s.usage != nil && s.used.seen {
		l.CPUSeconds = smp.CPUUser + smp.CPUSys
	}
	switch {
	case smp.MemCurrent >= 0:
		l.MemoryBytes = smp.MemCurrent
	case local:
		l.MemoryBytes = smp.RSS
	}
	return l
}

// needActivity says whether a round must read pg_stat_activity before it
// attributes CPU: only when a process listed is not named yet (new, of
// unknown class, a client backend whose tenant is not known, as after
// SetPlacements), or was classified by its title and no query has run
// since it was first read. Otherwise every process's category is known
// and the query would change nothing: while wait events are sampled, their
// ticks keep the names current, and the rounds skip it.
func (s *sampler) needActivity() bool {
	if s.round == 0 || s.threaded {
		// A thread may run another session than at the last query.
		return true
	}
	for _, pid := range s.pids {
		p := s.procs[pid]
		if p == nil || p.cat == noTenant || p.titled && p.asked == s.queries {
			return true
		}
	}
	return false
}

// errUnparsable is a /proc file whose content is not as proc(5) says.
var errUnparsable = errors.New("unexpected content")

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
	n := len(s.catUser)
	if len(s.slab) < 2*n {
		s.slab = make([]float64, 2*n*64)
	}
	smp.TenantUser, smp.TenantSys = s.slab[:n:n], s.slab[n:2*n:2*n]
	s.slab = s.slab[2*n:]
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
	case s.root:
		p.class, p.cat = classBackground, catBackground
		return
	case s.monitorPid:
		p.class, p.cat = classMonitor, catMonitor
		return
	}
	if b, err := s.r.readProc(pid, "cmdline"); err == nil {
		p.class, p.titled = classOfTitle(b), true
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
	s.r.closeFD(&p.schedFD)
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
	var re *readError
	if errors.As(err, &re) {
		err = re.err
	}
	return fmt.Errorf("read /proc/<pid>/%s of a server process: %w", file, err)
}

// pidsOf reads a cgroup.procs file.
func (r *reader) pidsOf(path string, out []int) ([]int, error) {
	b, err := r.readOnce(path)
	if err != nil {
		return out, err
	}
	return parsePids(b, out), nil
}

// sources names where the instance's figures come from.
func (s *sampler) sources() (cpu, mem, io string) {
	if s.usage != nil {
		return s.usage.UsageSource(), s.usage.UsageSource(), "none"
	}
	cg := "cgroup " + s.cgMode
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
