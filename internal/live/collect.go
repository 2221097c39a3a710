package live

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The metrics' names and labels (docs/live.md lists them).
var (
	descRunInfo = prometheus.NewDesc("tenantbench_run_info",
		"The run going on (1): its id, case, tenancy model, engine and workload.",
		[]string{"run", "case", "model", "engine", "workload"}, nil)
	descPhase = prometheus.NewDesc("tenantbench_run_phase",
		"The phase the current run is in (1): provision, setup, ingest, post-ingest, workload, check, teardown, done.",
		[]string{"run", "phase"}, nil)
	descWarmup = prometheus.NewDesc("tenantbench_workload_warmup",
		"1 while the workload phase is in its warmup (counted here, not in the results), 0 after.",
		[]string{"run"}, nil)
	descPlanned = prometheus.NewDesc("tenantbench_runs_planned",
		"Runs in the experiment's plan.", nil, nil)
	descFinished = prometheus.NewDesc("tenantbench_runs_finished_total",
		"Runs ended, by status (ok, failed, interrupted).", []string{"status"}, nil)
	descCommitted = prometheus.NewDesc("tenantbench_transactions_committed_total",
		"Committed transactions of the workload phase, warmup included, by tenant and transaction type.",
		[]string{"run", "tenant", "txn"}, nil)
	descFailed = prometheus.NewDesc("tenantbench_transactions_failed_total",
		"Failed attempts of the workload phase, warmup included, by tenant, transaction type ((connect): reconnecting) and class (SQLSTATE class or connection).",
		[]string{"run", "tenant", "txn", "class"}, nil)
	descLatency = prometheus.NewDesc("tenantbench_transaction_latency_seconds",
		"Latency of committed transactions (an open load's from their intended start), by tenant and transaction type.",
		[]string{"run", "tenant", "txn"}, nil)
	descCPU = prometheus.NewDesc("tenantbench_instance_cpu_seconds_total",
		"CPU time of an instance (server) since the run's monitor started; absent where it is not measured (external servers).",
		[]string{"run", "instance", "source"}, nil)
	descMemory = prometheus.NewDesc("tenantbench_instance_memory_bytes",
		"Memory of an instance now (cgroup usage, the process tree's RSS, or a pod's working set, as source says); absent where it is not measured.",
		[]string{"run", "instance", "source"}, nil)
)

var _ prometheus.Collector = (*Metrics)(nil)

// Describe sends every metric's description.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRunInfo, descPhase, descWarmup, descPlanned, descFinished,
		descCommitted, descFailed, descLatency, descCPU, descMemory} {
		ch <- d
	}
}

// Collect sends the metrics of a copy of the figures, taken under the
// lock, so that a scrape of many tenants holds up the collector only for
// the copy.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	s := m.snapshot()
	ch <- prometheus.MustNewConstMetric(descPlanned, prometheus.GaugeValue, float64(s.planned))
	for status, n := range s.finished {
		ch <- prometheus.MustNewConstMetric(descFinished, prometheus.CounterValue, float64(n), status)
	}
	if s.run == nil {
		return
	}
	r := s.run
	ch <- prometheus.MustNewConstMetric(descRunInfo, prometheus.GaugeValue, 1, r.ID, r.Case, r.Model, r.Engine, r.Workload)
	if s.phase != "" {
		ch <- prometheus.MustNewConstMetric(descPhase, prometheus.GaugeValue, 1, r.ID, s.phase)
	}
	for _, in := range s.instances {
		if in.cpu >= 0 {
			ch <- prometheus.MustNewConstMetric(descCPU, prometheus.CounterValue, in.cpu, r.ID, in.name, in.cpuSource)
		}
		if in.mem >= 0 {
			ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, float64(in.mem), r.ID, in.name, in.memorySource)
		}
	}
	if s.tenants == nil {
		return
	}
	if s.phase == "workload" {
		w := 0.0
		if s.now.Sub(s.start) < s.warmup {
			w = 1
		}
		ch <- prometheus.MustNewConstMetric(descWarmup, prometheus.GaugeValue, w, r.ID)
	}
	nb := len(Bounds) + 1
	for ti, tenant := range s.tenants {
		for xi, txn := range s.txns {
			i := ti*len(s.txns) + xi
			ch <- prometheus.MustNewConstMetric(descCommitted, prometheus.CounterValue, float64(s.committed[i]), r.ID, tenant, txn)
			buckets := make(map[float64]uint64, len(Bounds))
			var cum uint64
			for k, b := range Bounds {
				cum += s.counts[i*nb+k]
				buckets[b.Seconds()] = cum
			}
			ch <- prometheus.MustNewConstHistogram(descLatency, s.committed[i], float64(s.sumUs[i])/1e6, buckets, r.ID, tenant, txn)
		}
	}
	for k, n := range s.failed {
		txn := "(connect)"
		if k.txn >= 0 {
			txn = s.txns[k.txn]
		}
		ch <- prometheus.MustNewConstMetric(descFailed, prometheus.CounterValue, float64(n), r.ID, s.tenants[k.tenant], txn, k.class)
	}
}

// snapshot is a copy of the figures a scrape shows.
type snapshot struct {
	now       time.Time
	planned   int
	finished  map[string]int
	run       *Run
	phase     string
	start     time.Time
	warmup    time.Duration
	tenants   []string
	txns      []string
	committed []uint64
	sumUs     []int64
	counts    []uint64
	failed    map[failKey]uint64
	instances []instance
}

func (m *Metrics) snapshot() snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := snapshot{now: time.Now(), planned: m.planned, finished: map[string]int{}, run: m.run, phase: m.phase,
		start: m.start, warmup: m.warmup, tenants: m.tenants, txns: m.txns,
		committed: append([]uint64(nil), m.committed...), sumUs: append([]int64(nil), m.sumUs...),
		counts: append([]uint64(nil), m.counts...), failed: map[failKey]uint64{},
		instances: append([]instance(nil), m.instances...)}
	for k, v := range m.finished {
		s.finished[k] = v
	}
	for k, v := range m.failed {
		s.failed[k] = v
	}
	return s
}
