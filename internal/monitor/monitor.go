// Package monitor samples what a run's instances use, while it runs: CPU,
// memory, block IO, context switches and processes of every instance (from
// its cgroup where it has one, else from its process tree in /proc), CPU per
// tenant (each backend's CPU attributed through pg_stat_activity, so that it
// exists in every tenancy model), the host and tenantbench's own process
// apart (the driver's cost is never counted as the system's), wait events
// per tenant, and the DBMS's cumulative statistics at marks.
//
//	m := monitor.New(monitor.Config{Instances: insts, Placements: ps})
//	if err := m.Start(ctx); err != nil { ... }
//	m.Mark(ctx, "workload")          // optional: segments for waits and DBMS deltas
//	samples, err := m.Stop()         // samples is whole after a successful Start, even with err
//	samples.WriteFiles(dir)
//	w := samples.Window(from, to)    // cpu_s, mem_peak_mb, io bytes of a phase
//
// One goroutine per instance samples it (pg_stat_activity every
// WaitInterval, resources every Interval) over one admin connection; one
// more samples the host. Every file and query result is read into reused
// buffers and parsed in place: a round allocates nothing in the steady
// state.
package monitor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// Config says what to monitor and how often.
type Config struct {
	Instances []*provider.Instance
	// Placements map sessions to tenants (by role, else by database);
	// SetPlacements may give them later. Without them every client
	// backend's CPU is "(other)".
	Placements []tenancy.Placement
	// Interval between resource rounds; default 1 s.
	Interval time.Duration
	// WaitInterval between wait-event samples of pg_stat_activity;
	// default 100 ms, negative: none.
	WaitInterval time.Duration
	// PSSInterval between reads of every process's smaps_rollup (PSS).
	// The kernel walks the page tables of the process for it: about 2 ms
	// per 100 MB resident, shared_buffers included, so it is read less
	// often than the rest; less often still while the servers' PSS reads
	// would take more than 0.5 % of one CPU (pssbudget.go). Default 10 s,
	// negative: never.
	PSSInterval time.Duration
	// Model is the tenancy model of the placements: where it keeps a
	// tenant's objects (tenancy.BlocksOf) is where the DBMS counts the
	// tenant's blocks. nil: no blocks per tenant.
	Model tenancy.Model
	// Origin is the time the samples' times count from (the run's start,
	// to match phases.csv); default: Start's time.
	Origin time.Time
	// KeepFiles is the most files the samplers keep open between rounds
	// (keptfiles.go): what the run's connections leave spare of the
	// process's limit. 0: no bound; negative: none.
	KeepFiles int
	// Observe, when not nil, is given each instance's latest figures
	// after each of its resource rounds (live metrics), from the
	// instance's sampling goroutine.
	Observe func(Latest)
}

// Latest is an instance's newest resource round as live metrics show it:
// its CPU seconds since Start and its memory now, each with its source
// (InstanceSeries' words; memory "proc" is the process tree's RSS). A
// figure this machine does not measure (the user's server, provider
// external; a pod before its kubelet's first figures) is negative, never
// zero.
type Latest struct {
	Instance                string
	CPUSeconds              float64
	MemoryBytes             int64
	CPUSource, MemorySource string
}

const (
	defaultInterval     = time.Second
	defaultWaitInterval = 100 * time.Millisecond
	defaultPSSInterval  = 10 * time.Second
	// stopTimeout bounds Stop's last round and snapshot.
	stopTimeout = 15 * time.Second
)

// Monitor samples instances between Start and Stop. A nil *Monitor
// (monitoring off, or its Start failed) ignores SetPlacements and Mark, and
// its Stop returns nil samples, whose Window is empty and WriteFiles writes
// nothing: a caller needs no test around each call.
type Monitor struct {
	cfg Config

	mu       sync.Mutex // guards everything below
	state    int
	samplers []*sampler
	host     *hostSampler
	marks    []Mark
	// done ends the goroutines. Not a context cancellation: that would
	// cut a query in flight, and pgx closes a connection whose query was
	// cut.
	done chan struct{}
	wg   sync.WaitGroup
	// waitMarks holds each sampler's histogram at each mark.
	waitMarks [][]waitMark
	// pss is the CPU of the servers' latest PSS rounds, which spaces
	// them (pssbudget.go).
	pss pssBudget
	// files bounds the files the samplers keep open.
	files *keptFiles
}

const (
	stateNew = iota
	stateRunning
	stateStopped
)

// New makes a monitor; nothing happens until Start.
func New(cfg Config) *Monitor {
	if cfg.Interval <= 0 {
		cfg.Interval = defaultInterval
	}
	if cfg.WaitInterval == 0 {
		cfg.WaitInterval = defaultWaitInterval
	}
	if cfg.PSSInterval == 0 {
		cfg.PSSInterval = defaultPSSInterval
	}
	return &Monitor{cfg: cfg, files: newKeptFiles(cfg.KeepFiles)}
}

// Start connects to every instance, takes the first round (the base every
// counter is measured from) and the "start" snapshot of the statistics
// views, and starts sampling. Sampling ends with Stop, or when ctx ends
// (Stop is still needed: it closes the connections and returns the
// samples).
// When Start fails nothing is left open.
func (m *Monitor) Start(ctx context.Context) (err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != stateNew {
		return errors.New("monitor: Start called twice")
	}
	m.state = stateStopped // unless all goes well
	now := time.Now()
	if m.cfg.Origin.IsZero() {
		m.cfg.Origin = now
	}
	if m.host, err = newHostSampler(m.cfg.Origin); err != nil {
		return fmt.Errorf("monitor: own process: %w", err)
	}
	defer func() {
		if err != nil {
			for _, s := range m.samplers {
				s.close()
				s.closeFiles()
			}
			m.host.r.closeKept()
		}
	}()
	for _, inst := range m.cfg.Instances {
		s := newSampler(inst, m.cfg.Origin, max(m.cfg.PSSInterval, 0))
		s.observe = m.cfg.Observe
		s.pssCost = &m.pss
		s.r.files = m.files
		s.blocks.scope = tenancy.BlocksOf(m.cfg.Model)
		m.samplers = append(m.samplers, s)
		// Placements first: they may choose the database the session
		// opens (blocks per schema).
		s.setPlacements(m.cfg.Placements)
		if err := s.connect(ctx); err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
	}
	now = time.Now()
	m.host.sample(now)
	for _, s := range m.samplers {
		s.sample(ctx, now)
	}
	_ = m.mark(ctx, "start", now) // a view that cannot be read is in the errors; the rest works
	m.done = make(chan struct{})
	m.state = stateRunning
	m.wg.Add(1 + len(m.samplers))
	go m.runHost(ctx)
	for _, s := range m.samplers {
		go m.runInstance(ctx, s)
	}
	return nil
}

func (m *Monitor) runHost(ctx context.Context) {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.done:
			return
		case <-t.C:
			m.host.sample(time.Now())
		}
	}
}

// runInstance samples one instance until ctx ends: pg_stat_activity for
// the wait histogram every WaitInterval, resources every Interval.
func (m *Monitor) runInstance(ctx context.Context, s *sampler) {
	defer m.wg.Done()
	rounds := time.NewTicker(m.cfg.Interval)
	defer rounds.Stop()
	var waits <-chan time.Time
	if m.cfg.WaitInterval > 0 {
		w := time.NewTicker(m.waitInterval())
		defer w.Stop()
		waits = w.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.done:
			return
		case <-rounds.C:
			s.sample(ctx, time.Now())
		case <-waits:
			s.waitTick(ctx, m.waitInterval())
		}
	}
}

// waitQueriesPerSecond bounds the wait samples of all the servers
// together: with more than 10 servers at the default 100 ms, each is
// sampled every servers / waitQueriesPerSecond seconds (100 servers:
// every second). 100 servers sampled every 100 ms cost 12.4 % of 2 cores
// (BENCHMARKS.md), a query's fixed cost 1,000 times a second.
const waitQueriesPerSecond = 100

// waitInterval is each server's time between wait samples: the
// configured WaitInterval, longer with many servers
// (waitQueriesPerSecond).
func (m *Monitor) waitInterval() time.Duration {
	return max(m.cfg.WaitInterval, time.Duration(len(m.cfg.Instances))*time.Second/waitQueriesPerSecond)
}

// waitRowsPerSecond bounds the sessions the wait samples of one server
// read a second: beyond it (more than 200 sessions at the default 100
// ms) ticks are skipped so that a sample of n sessions comes every n /
// waitRowsPerSecond seconds. 1,000 sessions read every 100 ms cost the
// server 30 ms of CPU a second and the monitor as much again (3.9 % of 2
// cores; BENCHMARKS.md); every fifth tick still counts 2,000 sessions'
// states a second.
const waitRowsPerSecond = 2000

// waitTick samples pg_stat_activity into the wait histogram, unless the
// last sample's sessions ask to skip this tick (waitRowsPerSecond).
func (s *sampler) waitTick(ctx context.Context, interval time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return
	}
	if s.waitSkip > 0 {
		s.waitSkip--
		return
	}
	if s.stillSinceWait() {
		// No session ran since the last sample: each is where it was.
		s.waits.repeat()
	} else if err := s.activity(ctx, true); err != nil {
		if ctx.Err() == nil {
			s.errs.add(time.Since(s.origin), "pg_stat_activity: %v", err)
		}
		s.waitValid = false
	} else {
		s.waitValid = true
	}
	s.waitSkip = waitEvery(s.waitRows, interval) - 1
}

// waitEvery is every how many wait ticks a server of rows sessions is
// sampled: 1 up to waitRowsPerSecond rows a second.
func waitEvery(rows int, interval time.Duration) int {
	per := waitRowsPerSecond * interval.Seconds() // rows a tick may read
	return max(1, int(math.Ceil(float64(rows)/per)))
}

// SetPlacements gives the tenants placed on the instances (after the setup
// phase, when the monitor started before it). CPU already used by client
// backends not yet attributed goes to the tenants at the next round.
func (m *Monitor) SetPlacements(ps []tenancy.Placement) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cfg.Placements = ps
	for _, s := range m.samplers {
		s.setPlacements(ps)
	}
}

// Mark snapshots the statistics views and the wait histograms now, under
// label: the DBMS deltas and wait segments are between consecutive marks
// (Start's "start", each Mark, Stop's "stop").
func (m *Monitor) Mark(ctx context.Context, label string) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != stateRunning {
		return errors.New("monitor: Mark outside Start..Stop")
	}
	return m.mark(ctx, label, time.Now())
}

func (m *Monitor) mark(ctx context.Context, label string, now time.Time) error {
	t := now.Sub(m.cfg.Origin)
	m.marks = append(m.marks, Mark{Label: label, T: t})
	if m.waitMarks == nil {
		m.waitMarks = make([][]waitMark, len(m.samplers))
	}
	var errs []error
	for i, s := range m.samplers {
		s.mu.Lock()
		m.waitMarks[i] = append(m.waitMarks[i], s.waits.mark(label))
		s.ensureConn(ctx, t)
		s.checkConn(ctx, t)
		if s.conn != nil {
			if err := s.stats.take(ctx, s.conn, label, t); err != nil {
				s.errs.add(t, "%v", err)
				errs = append(errs, fmt.Errorf("instance %s: %w", s.inst.Name, err))
			}
		}
		s.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Stop ends sampling, takes a last round and the "stop" snapshot, closes
// the connections and returns what was measured. The samples are whole
// even when err is not nil: err lists what could not be read (the same
// as Samples.Errors).
func (m *Monitor) Stop() (*Samples, error) {
	if m == nil {
		return nil, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != stateRunning {
		return nil, errors.New("monitor: Stop without a successful Start")
	}
	m.state = stateStopped
	close(m.done)
	m.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	now := time.Now()
	m.host.sample(now)
	for _, s := range m.samplers {
		s.sample(ctx, now)
	}
	_ = m.mark(ctx, "stop", now) // its errors are in the samplers' logs
	for _, s := range m.samplers {
		s.close()
		s.closeFiles()
	}
	m.host.r.closeKept()
	out := m.samples()
	if len(out.Errors) > 0 {
		return out, fmt.Errorf("monitor: %d problems while sampling, first: %s", len(out.Errors), out.Errors[0])
	}
	return out, nil
}

// samples assembles the result; the goroutines have ended.
func (m *Monitor) samples() *Samples {
	wait := m.waitInterval()
	if m.cfg.WaitInterval < 0 {
		wait = 0
	}
	out := &Samples{Origin: m.cfg.Origin, Interval: m.cfg.Interval, WaitInterval: wait,
		PSSInterval: max(m.cfg.PSSInterval, 0), Host: m.host.series, Marks: m.marks}
	out.Errors = append(out.Errors, m.host.errs.list("host: ")...)
	for i, s := range m.samplers {
		is := &InstanceSeries{Name: s.inst.Name, Pid: s.root, Cgroup: s.cgPath, CgroupMode: s.cgMode,
			Tenants: s.tenants.names, SharedExceptBuffers: s.shmem, Samples: s.series, DBMS: s.stats.deltas(),
			Pools: s.pools, Role: provider.Role(s.inst), Replication: s.repl}
		is.CPUSource, is.MemorySource, is.IOSource = s.sources()
		is.Whole = s.usage != nil
		if m.cfg.WaitInterval > 0 {
			wm := m.waitMarks[i]
			for j := 1; j < len(wm); j++ {
				is.Waits = append(is.Waits, s.waits.segment(wm[j-1], wm[j], s.tenants.names))
			}
		}
		out.Instances = append(out.Instances, is)
		out.Errors = append(out.Errors, s.errs.list("instance "+s.inst.Name+": ")...)
	}
	return out
}

// String says briefly what a Samples holds, for logs.
func (s *Samples) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d instances, %d host samples", len(s.Instances), len(s.Host))
	for _, is := range s.Instances {
		fmt.Fprintf(&b, "; %s: %d samples (cpu %s, memory %s, io %s)", is.Name, len(is.Samples), is.CPUSource, is.MemorySource, is.IOSource)
	}
	return b.String()
}
