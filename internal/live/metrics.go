// Package live serves a run's figures as Prometheus metrics while it goes
// (`tenantbench run --metrics-addr`): per tenant and transaction type the
// committed and failed transactions and a latency histogram, per instance
// its CPU and memory where the monitor measures them, and the current run
// and phase. It is fed from the driver's collector (each client's second,
// merged off the clients' path: driver.Live) and the monitor's rounds
// (monitor.Config.Observe); a scrape reads a copy of what it holds. It
// imports nothing of tenantbench: package run wires it.
package live

import (
	"sync"
	"time"
)

// Bounds are the latency histogram's upper bounds: 1-2.5-5 steps from
// 100 us (a read on loopback) to 5 s. Few on purpose: a histogram is
// len(Bounds)+3 series per tenant and transaction type (docs/live.md counts
// them at 1,000 tenants).
var Bounds = []time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, time.Second, 5 * time.Second,
}

// Run is what the metrics say of the run going on.
type Run struct {
	ID, Case, Model, Engine, Workload string
}

// Metrics holds the figures the metrics show. Its methods are safe for
// concurrent use; a nil *Metrics ignores every call, so that a run
// without --metrics-addr needs no test around them.
type Metrics struct {
	mu       sync.Mutex
	planned  int
	finished map[string]int // runs ended, by status
	run      *Run           // nil before the first run
	phase    string

	// The workload phase of the current run: nil tenants before it.
	start   time.Time
	warmup  time.Duration
	tenants []string
	txns    []string
	// committed, sumUs and counts are by tenant*len(txns)+txn; counts
	// holds len(Bounds)+1 buckets each (the last above every bound),
	// not cumulative.
	committed []uint64
	sumUs     []int64
	counts    []uint64
	failed    map[failKey]uint64

	instances []instance // in the order first seen
}

type failKey struct {
	tenant, txn int // txn -1: connecting
	class       string
}

// instance is an instance's latest round; a negative figure is not
// measured.
type instance struct {
	name                    string
	cpu                     float64
	mem                     int64
	cpuSource, memorySource string
}

// New makes empty metrics.
func New() *Metrics { return &Metrics{finished: map[string]int{}} }

// Planned says how many runs the experiment has.
func (m *Metrics) Planned(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.planned = n
	m.mu.Unlock()
}

// BeginRun starts run r: the previous run's tenants and instances go.
func (m *Metrics) BeginRun(r Run) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.run, m.phase = &r, ""
	m.tenants, m.txns, m.committed, m.sumUs, m.counts, m.failed = nil, nil, nil, nil, nil, nil
	m.instances = nil
}

// Phase names the phase the current run is in.
func (m *Metrics) Phase(name string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.phase = name
	m.mu.Unlock()
}

// EndRun counts the current run as ended with status; its last figures
// stay until the next run begins, for a last scrape.
func (m *Metrics) EndRun(status string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.finished[status]++
	m.phase = "done"
	m.mu.Unlock()
}

// LatencyBounds are Bounds (driver.Live).
func (m *Metrics) LatencyBounds() []time.Duration { return Bounds }

// Begin starts the workload phase at start, its first warmup not
// measured, with these tenants and transaction types (driver.Live):
// every series of them exists from now on, at zero.
func (m *Metrics) Begin(start time.Time, warmup time.Duration, tenants, txns []string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.start, m.warmup = start, warmup
	m.tenants, m.txns = append([]string(nil), tenants...), append([]string(nil), txns...)
	n := len(tenants) * len(txns)
	m.committed, m.sumUs = make([]uint64, n), make([]int64, n)
	m.counts = make([]uint64, n*(len(Bounds)+1))
	m.failed = map[failKey]uint64{}
}

// Committed adds a client's second of tenant's transactions of type txn
// (driver.Live): counts by bucket of Bounds (the last above them all),
// sumUs their latencies' sum in microseconds.
func (m *Metrics) Committed(tenant, txn int, counts []int64, sumUs int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tenants == nil || tenant >= len(m.tenants) || txn < 0 || txn >= len(m.txns) {
		return
	}
	i := tenant*len(m.txns) + txn
	nb := len(Bounds) + 1
	for k, n := range counts[:nb] {
		m.counts[i*nb+k] += uint64(n)
		m.committed[i] += uint64(n)
	}
	m.sumUs[i] += sumUs
}

// Failed adds n failed attempts of tenant's type txn (-1: connecting) of
// class, a SQLSTATE class or "connection" (driver.Live).
func (m *Metrics) Failed(tenant, txn int, class string, n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tenants == nil || tenant >= len(m.tenants) || txn >= len(m.txns) {
		return
	}
	m.failed[failKey{tenant, txn, class}] += uint64(n)
}

// Instance takes an instance's latest round (monitor.Config.Observe):
// its CPU seconds since the monitor started and its memory now, each
// negative when not measured, and where each comes from.
func (m *Metrics) Instance(name string, cpuSeconds float64, memoryBytes int64, cpuSource, memorySource string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	in := instance{name: name, cpu: cpuSeconds, mem: memoryBytes, cpuSource: cpuSource, memorySource: memorySource}
	for i := range m.instances {
		if m.instances[i].name == name {
			m.instances[i] = in
			return
		}
	}
	m.instances = append(m.instances, in)
}
