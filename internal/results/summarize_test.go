package results

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// observed is a two-tenant run, t01 on instance a and t02 on b, that
// measured 10 s after a 2 s warmup: t01 committed 1000 (100 TPS), t02
// 3000 (300 TPS) with 60 rollbacks.
func observed() *Observations {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &Observations{RunID: "001", Model: "schema", Tenants: 2, Scale: 1, Clients: 4, Repetition: 1,
		Settings: map[string]string{"shared_buffers": "128MB"}, Seed: 7, WorkloadName: "tpcb",
		Warmup: 2 * time.Second, Duration: 10 * time.Second, Start: start, End: start.Add(time.Minute),
		Instances: []Instance{{Name: "a", Tenants: []string{"t01"}}, {Name: "b", Tenants: []string{"t02"}}},
		Phases: []Phase{
			{Tenant: "t01", Phase: "provision", Start: 0, End: 2, Status: "ok"},
			{Tenant: "t02", Phase: "provision", Start: 0, End: 3, Status: "ok"},
			{Tenant: "t01", Phase: "ingest", Start: 4, End: 7, Status: "ok"},
			{Tenant: "t02", Phase: "ingest", Start: 4, End: 9, Status: "ok"},
			{Tenant: "t01", Phase: "post-ingest", Start: 9, End: 10, Status: "ok"},
			{Tenant: "t02", Phase: "post-ingest", Start: 9, End: 9.5, Status: "ok"},
			{Tenant: "t01", Phase: "workload", Start: 10, End: 22, Status: "ok"},
			{Tenant: "t02", Phase: "workload", Start: 10, End: 22, Status: "ok"},
		},
		Workload: &Workload{Start: start.Add(10 * time.Second), Warmup: 2 * time.Second, Duration: 10 * time.Second,
			Tenants: []TenantWorkload{
				{Name: "t01", All: TxnFigures{Txn: "all", Committed: 1000, MeanMs: 2, P95Ms: 5, P99Ms: 9, Failed: map[string]int64{"40": 1}}},
				{Name: "t02", All: TxnFigures{Txn: "all", Committed: 3000, Rollbacks: 60, MeanMs: 4, P95Ms: 7, P99Ms: 8, Failed: map[string]int64{}}},
			}},
		Prices: metrics.DefaultPrices(),
	}
}

// monitored adds what a monitor saw in the measured 10 s: 20 CPU s, a
// 512 MiB peak, 500 IO operations, 200 MiB before any tenant and 260 MiB
// on average with them.
func monitored(o *Observations) *Observations {
	o.Monitor = &Monitored{CPUS: 20, MemPeakMB: 512, BackgroundAnonMB: 30, SharedMB: 10, IOOps: 500,
		TenantCPU: map[string]float64{"t01": 5}, MemBaseMB: 200, MemLoadedMB: 260, MemoryKnown: true,
		HostCPUs: 4, CPUSplit: []CPUSplit{{Instance: "a", Background: 2, Foreground: 5, Total: 12}, {Instance: "b", Background: 1, Foreground: 4, Total: 8}}, TenantAnonMB: map[string]float64{"t01": 3, "t02": 5},
		InstanceIOOps: map[string]int64{"a": 300}, InstanceIOBytes: map[string][2]int64{"a": {4096, 8192}, "b": {1, 2}},
		TenantBlksRead: map[string]float64{"t01": 50, "t02": 20}, TenantBlksHit: map[string]float64{"t01": 1000}}
	return o
}

func TestSummarizeTotals(t *testing.T) {
	s := Summarize(observed())
	if s.RunID != "001" || s.Model != "schema" || s.Tenants != 2 || s.Clients != 4 || s.Seed != 7 || s.Workload != "tpcb" ||
		s.Warmup != 2 || s.Duration != 10 || s.Status != StatusOK || s.Error != "" || len(s.Instances) != 2 || len(s.Phases) != 8 ||
		s.Settings["shared_buffers"] != "128MB" || !s.End.Equal(s.Start.Add(time.Minute)) {
		t.Errorf("identity: %+v", s)
	}
	if len(s.Tenant) != 2 {
		t.Fatalf("%d tenants, want 2", len(s.Tenant))
	}
	// t01: 1000 in 10 s; ingest 3 s, post-ingest 1 s. t02: 3000 in 10 s,
	// tpm counts the rollbacks: (3000 + 60) x 6.
	t1, t2 := s.Tenant[0], s.Tenant[1]
	if t1.TPS != 100 || t1.TPM != 6000 || t1.Failed != 1 || t1.IngestS != 3 || t1.PostIngest != 1 || t1.CPUS != nil {
		t.Errorf("t01: %+v", t1)
	}
	if t2.TPS != 300 || t2.TPM != 18360 || t2.IngestS != 5 || t2.PostIngest != 0.5 {
		t.Errorf("t02: %+v", t2)
	}
	// Provider: sums, macro-average, worst tenant, longest phases; Jain
	// over 100 and 300 is 400² / (2 (100² + 300²)) = 0.8.
	a := s.Provider
	if a.TPS != 400 || a.MeanMs != 3 || a.P95Ms != 7 || a.P99Ms != 9 || a.Committed != 4000 || a.Failed != 1 ||
		a.TPM != 24360 || !near(a.FairnessJain, 0.8) || a.ProvisionS != 3 || a.IngestS != 5 || a.PostIngest != 1 || a.WorkloadS != 12 {
		t.Errorf("provider: %+v", a)
	}
	// Neither limited nor monitored: nothing measured, nothing priced.
	if a.CPUS != nil || a.MemPeakMB != nil || a.MemMarginalMB != nil || a.MemFootprintMB != nil || a.RUC != nil || a.TS != nil {
		t.Errorf("unmonitored and unlimited, yet: %+v", a)
	}
}

// The priced case: both instances limited to 1 vCore and 2 GiB, 10 GB of
// data, unmonitored (no IOPS), at the default prices: per hour 2 x 0.1847
// + 4 x 0.0095 + 10 x 0.000853 = 0.41593 $, 0.41593 / 60 $ per minute.
func TestSummarizePriced(t *testing.T) {
	o := observed()
	for i := range o.Instances {
		o.Instances[i].LimitsEnforced, o.Instances[i].CPUs, o.Instances[i].MemoryBytes = true, 1, 2<<30
	}
	gb := 10.0
	o.StorageGB = &gb
	a := Summarize(o).Provider
	ruc := 0.41593 / 60
	if a.RUC == nil || !near(*a.RUC, ruc) {
		t.Fatalf("RUC %v, want %v", a.RUC, ruc)
	}
	p := a.Priced
	if p.VCores != 2 || p.MemoryGB != 4 || p.CPUFrom != "limit" || p.MemoryFrom != "limit" || p.StorageGB == nil ||
		*p.StorageGB != 10 || p.IOPS != nil || !near(p.StorageUSDPerMin, 10*0.000853/60) || p.IOUSDPerMin != 0 {
		t.Errorf("priced: %+v", p)
	}
	// P-Score 400 TPS / cost; T-Score sqrt(100 x 300) / cost.
	if a.PScore == nil || !near(*a.PScore, 400/ruc) || a.TScore == nil || !near(*a.TScore, math.Sqrt(100*300)/ruc) {
		t.Errorf("P-Score %v, T-Score %v; want %v, %v", a.PScore, a.TScore, 400/ruc, math.Sqrt(100*300)/ruc)
	}
	// The spec's prices replace the defaults.
	o.Prices.CPUPerVCoreHour, o.Prices.MemoryPerGBHour = 1, 0
	if a := Summarize(o).Provider; a.RUC == nil || !near(*a.RUC, (2+10*0.000853)/60) {
		t.Errorf("RUC at the spec's prices %v, want %v", a.RUC, (2+10*0.000853)/60)
	}
}

func TestSummarizeMonitored(t *testing.T) {
	for _, c := range []struct {
		name            string
		serverPerTenant bool
		marginal        float64
	}{
		// The tenants share the servers: (260 - 200) / 2.
		{"shared servers", false, 30},
		// Each tenant brings its server, the empty one included: 260 / 2.
		{"server per tenant", true, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := monitored(observed())
			o.ServerPerTenant = c.serverPerTenant
			s := Summarize(o)
			a := s.Provider
			if a.MemMarginalMB == nil || *a.MemMarginalMB != c.marginal {
				t.Errorf("marginal memory %v, want %v", a.MemMarginalMB, c.marginal)
			}
			// E_TpX = 400 x 10 / 20 = 200 (Erdelt and Rabl 2026 eq. 1);
			// footprint (30 + 10) / 2 (Oracle 2014 Table 2).
			if a.CPUS == nil || *a.CPUS != 20 || *a.MemPeakMB != 512 || !near(*a.ETpX, 200) ||
				a.MemFootprintMB == nil || *a.MemFootprintMB != 20 {
				t.Errorf("monitored: %+v", a)
			}
			// Oracle 2014, Table 5: of 10 s x 4 CPUs = 40 CPU-s, the
			// background used 3, the foreground 9, the servers 20.
			if !nearPtr(a.CPUBackgroundPct, 7.5) || !nearPtr(a.CPUForegroundPct, 22.5) || !nearPtr(a.CPUServersPct, 50) {
				t.Errorf("CPU shares %v %v %v, want 7.5 22.5 50", a.CPUBackgroundPct, a.CPUForegroundPct, a.CPUServersPct)
			}
			if in := s.Instances[0]; !nearPtr(in.CPUBackgroundPct, 5) || !nearPtr(in.CPUForegroundPct, 12.5) || !nearPtr(in.CPUPct, 30) {
				t.Errorf("instance a's CPU shares %v %v %v, want 5 12.5 30", in.CPUBackgroundPct, in.CPUForegroundPct, in.CPUPct)
			}
			if !nearPtr(s.Tenant[1].MemPrivateMB, 5) || !nearPtr(a.MemTenantPrivateMB, 4) {
				t.Errorf("private memory t02 %v, mean %v; want 5 and 4", s.Tenant[1].MemPrivateMB, a.MemTenantPrivateMB)
			}
			// Table 10 per tenant: a holds t01 alone and counted 300
			// operations in 10 s; b counted none (cgroup v1).
			if !nearPtr(s.Instances[0].IOPS, 30) || !nearPtr(s.Tenant[0].IOPS, 30) || s.Instances[1].IOPS != nil || s.Tenant[1].IOPS != nil {
				t.Errorf("IOPS: a %v, t01 %v, b %v, t02 %v; want 30, 30, none, none", s.Instances[0].IOPS, s.Tenant[0].IOPS,
					s.Instances[1].IOPS, s.Tenant[1].IOPS)
			}
			// The blocks the DBMS counted per tenant, per second of the
			// 10 s (t02's hits were not counted), and the bytes of the
			// server each holds alone.
			if !nearPtr(s.Tenant[0].BlksReadPS, 5) || !nearPtr(s.Tenant[1].BlksReadPS, 2) || !nearPtr(s.Tenant[0].BlksHitPS, 100) ||
				s.Tenant[1].BlksHitPS != nil {
				t.Errorf("blocks per second: t01 %v/%v, t02 %v/%v; want 5/100, 2/none", s.Tenant[0].BlksReadPS, s.Tenant[0].BlksHitPS,
					s.Tenant[1].BlksReadPS, s.Tenant[1].BlksHitPS)
			}
			if !nearPtr(s.Tenant[0].IOReadBytesPS, 409.6) || !nearPtr(s.Tenant[0].IOWriteBytesPS, 819.2) || !nearPtr(s.Tenant[1].IOWriteBytesPS, 0.2) {
				t.Errorf("bytes per second: t01 %v, %v, t02 written %v; want 409.6, 819.2, 0.2", s.Tenant[0].IOReadBytesPS,
					s.Tenant[0].IOWriteBytesPS, s.Tenant[1].IOWriteBytesPS)
			}
			if c := s.Tenant[0].CPUS; c == nil || *c != 5 {
				t.Errorf("t01 CPU %v, want 5", c)
			}
			if s.Tenant[1].CPUS != nil {
				t.Errorf("t02 CPU %v, want none", *s.Tenant[1].CPUS)
			}
			// Unlimited: priced as measured, 20 / 10 vCores, 512 / 1024
			// GB, 500 / 10 IOPS: per hour 2 x 0.1847 + 0.5 x 0.0095 + 50 /
			// 100 x 0.00015.
			p := a.Priced
			if p == nil || p.VCores != 2 || p.MemoryGB != 0.5 || p.CPUFrom != "measured" || p.IOPS == nil || *p.IOPS != 50 ||
				!near(*a.RUC, (0.3694+0.00475+0.000075)/60) {
				t.Errorf("priced: %+v, RUC %v", p, a.RUC)
			}
		})
	}
	// The base memory unknown: no marginal memory, the rest stays.
	o := monitored(observed())
	o.Monitor.MemoryKnown = false
	if a := Summarize(o).Provider; a.MemMarginalMB != nil || a.CPUS == nil {
		t.Errorf("memory unknown: marginal %v, cpu %v", a.MemMarginalMB, a.CPUS)
	}
}

// A run that failed before the workload phase measured: its status and
// error, its phases, and no workload figure, even with a monitor.
func TestSummarizeFailed(t *testing.T) {
	o := monitored(observed())
	o.Err = errors.New("phase setup: tenant t02: boom")
	o.Workload = nil
	o.Phases = o.Phases[:2]
	s := Summarize(o)
	if s.Status != StatusFailed || s.Error != "phase setup: tenant t02: boom" {
		t.Errorf("status %q, error %q", s.Status, s.Error)
	}
	if s.Tenant != nil || s.Provider.ProvisionS != 3 || s.Provider.TPS != 0 || s.Provider.CPUS != nil ||
		s.Provider.MemMarginalMB != nil || s.Provider.RUC != nil {
		t.Errorf("failed run: tenants %+v, provider %+v", s.Tenant, s.Provider)
	}
	// A run that failed after measuring keeps its figures.
	o = observed()
	o.Err = errors.New("phase check: bad")
	if s := Summarize(o); s.Status != StatusFailed || s.Provider.TPS != 400 {
		t.Errorf("failed after the workload: status %q, %v TPS", s.Status, s.Provider.TPS)
	}
}

// Query streams that ended the phase early cut the measured part to what
// they ran; without streams the measured part stays.
func TestCutToStreams(t *testing.T) {
	start := time.Unix(1000, 0)
	w := &Workload{Start: start, Warmup: 2 * time.Second, Duration: 10 * time.Second}
	w.CutToStreams(nil, start.Add(5*time.Second))
	if w.Duration != 10*time.Second {
		t.Errorf("no streams: duration %v", w.Duration)
	}
	streams := []TenantStreams{{Tenant: "t01"}}
	w.CutToStreams(streams, start.Add(20*time.Second)) // ran the whole duration
	if w.Duration != 10*time.Second {
		t.Errorf("streams to the end: duration %v", w.Duration)
	}
	w.CutToStreams(streams, start.Add(7*time.Second))
	if from, to := w.Measured(); w.Duration != 5*time.Second || !from.Equal(start.Add(2*time.Second)) || !to.Equal(start.Add(7*time.Second)) {
		t.Errorf("streams ended at 7 s: duration %v, measured %v to %v", w.Duration, from, to)
	}
	w.CutToStreams(streams, start.Add(time.Second)) // within the warmup: nothing to cut to
	if w.Duration != 5*time.Second {
		t.Errorf("streams ended in the warmup: duration %v", w.Duration)
	}
}

// Query streams: T_s and Power@Size per tenant and for the run over the
// measured part (the streams of TestAnalyticalOf), and E_CPU when
// monitored: 8 queries x SF 0.1 / 20 CPU s (Erdelt and Rabl 2026 eq. 5).
func TestSummarizeStreams(t *testing.T) {
	o := monitored(observed())
	t0 := o.Workload.Start.Add(o.Workload.Warmup)
	o.Scale = 0.1
	o.Workload.Duration = time.Hour
	names := []string{"q01", "q01", "q06", "q06"}
	o.Streams = []TenantStreams{
		{Tenant: "t01", Streams: []workload.Stream{stream(1, 4, t0, names, []float64{1, 4, 2, 2})}},
		{Tenant: "t02", Streams: []workload.Stream{stream(2, 4, t0.Add(time.Second), names, []float64{2, 2, 1, 1})}},
	}
	s := Summarize(o)
	a := s.Provider
	if a.TS == nil || *a.TS != 9 || a.ThroughputAtSize == nil || !near(*a.ThroughputAtSize, 320) {
		t.Errorf("T_s %v, Throughput@Size %v; want 9, 320", a.TS, a.ThroughputAtSize)
	}
	if a.ECPU == nil || !near(*a.ECPU, 8*0.1/20) {
		t.Errorf("E_CPU %v, want %v", a.ECPU, 8*0.1/20)
	}
	if ts := s.Tenant[1].TS; ts == nil || *ts != 6 || s.Tenant[0].PowerAtSize == nil || !near(*s.Tenant[0].PowerAtSize, 0.1*3600/2) {
		t.Errorf("tenants: %+v", s.Tenant)
	}
	if an := o.Analytical(); an == nil || an.TS != 9 {
		t.Errorf("the files' figures differ from the summary's: %+v", an)
	}
	// Without a measured workload there is nothing to measure them over.
	o.Workload = nil
	if an := o.Analytical(); an != nil {
		t.Errorf("analytical without a workload: %+v", an)
	}
}

// TestRan: the measured part of a phase ends where the phase stopped,
// within its planned duration; a phase stopped within its warmup measured
// nothing, so its rates are not computed from the planned duration.
func TestRan(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, c := range []struct{ end, want time.Duration }{
		{30 * time.Second, 20 * time.Second}, // ran to the end and beyond (in-flight)
		{22 * time.Second, 20 * time.Second},
		{10200 * time.Millisecond, 8200 * time.Millisecond}, // interrupted
		{time.Second, 0}, // within the warmup
	} {
		if got := Ran(start, 2*time.Second, 20*time.Second, start.Add(c.end)); got != c.want {
			t.Errorf("stopped at %v: ran %v, want %v", c.end, got, c.want)
		}
	}
	w := &Workload{Start: start, Warmup: 2 * time.Second, Duration: Ran(start, 2*time.Second, 20*time.Second, start.Add(10200*time.Millisecond)),
		Tenants: []TenantWorkload{{Name: "t01", All: TxnFigures{Txn: "all", Committed: 41000}}}}
	if tps := Totals(w)[0].TPS; math.Abs(tps-5000) > 1e-9 {
		t.Errorf("41,000 committed in the 8.2 s measured: %v tps, want 5000", tps)
	}
}

// TestSummarizeCutInWarmup: a run interrupted within its warmup measured
// nothing: its rates are 0 or absent, never a division by 0, and its
// summary is still written (JSON has no NaN or infinity).
func TestSummarizeCutInWarmup(t *testing.T) {
	o := monitored(observed())
	o.Err = errors.New("interrupted")
	o.Instances[0].LimitsEnforced, o.Instances[0].CPUs, o.Instances[0].MemoryBytes = true, 1, 1<<30
	o.Instances[1].LimitsEnforced, o.Instances[1].CPUs, o.Instances[1].MemoryBytes = true, 1, 1<<30
	o.Workload.Duration = Ran(o.Workload.Start, o.Workload.Warmup, o.Duration, o.Workload.Start.Add(time.Second))
	for i := range o.Workload.Tenants {
		o.Workload.Tenants[i].All.Committed, o.Workload.Tenants[i].All.Rollbacks = 0, 0
	}
	s := Summarize(o)
	if s.Measured != 0 || s.Provider.TPS != 0 || s.Tenant[0].TPS != 0 || s.Tenant[0].TPM != 0 {
		t.Errorf("measured %v s, %v tps, tenant %+v", s.Measured, s.Provider.TPS, s.Tenant[0])
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("summary.json of a run cut in its warmup: %v", err)
	}
}

// TestSummarizeInterrupted: a run cut by a signal is marked interrupted,
// with the signal in its error, whether or not a phase also failed.
func TestSummarizeInterrupted(t *testing.T) {
	o := monitored(observed())
	o.Interrupted = errors.New("SIGHUP")
	if s := Summarize(o); s.Status != StatusInterrupted || s.Error != "interrupted (SIGHUP)" {
		t.Errorf("status %q, error %q", s.Status, s.Error)
	}
	o.Err = errors.New("interrupted (SIGHUP) during the run; its results are partial: phase workload: canceled")
	if s := Summarize(o); s.Status != StatusInterrupted || s.Error != o.Err.Error() {
		t.Errorf("status %q, error %q", s.Status, s.Error)
	}
	o.Interrupted = nil
	if s := Summarize(o); s.Status != StatusFailed {
		t.Errorf("a failed run's status %q", s.Status)
	}
}

// The driver's cost: 4.06 CPU s over the 10 s measured on 4 CPUs, in
// which 4060 transactions ended (4000 committed, 60 rolled back on
// purpose): 1 s per 1000 and a share of 4.06 / 40. Unknown, it is absent.
func TestSummarizeDriverCPU(t *testing.T) {
	o := observed()
	if a := Summarize(o).Provider; a.DriverCPUPer1000 != nil || a.DriverCPUShare != nil {
		t.Errorf("driver cost without a measurement: %v, %v", a.DriverCPUPer1000, a.DriverCPUShare)
	}
	cpu := 4.06
	o.Workload.DriverCPUS, o.HostCPUs = &cpu, 4
	a := Summarize(o).Provider
	if a.DriverCPUPer1000 == nil || !near(*a.DriverCPUPer1000, 1) || a.DriverCPUShare == nil || !near(*a.DriverCPUShare, 0.1015) {
		t.Errorf("driver cost: %v per 1000, share %v; want 1 and 0.1015", a.DriverCPUPer1000, a.DriverCPUShare)
	}
	if d := Summarize(o).Driver; d != nil {
		t.Errorf("driver threads without a record: %+v", *d)
	}
	o.Workload.Threads = &DriverThreads{Procs: 2, Loops: 2, LoopedClients: 8, PinnedLoops: 2}
	b, err := json.Marshal(Summarize(o))
	if err != nil {
		t.Fatal(err)
	}
	if want := `"driver":{"procs":2,"loops":2,"looped_clients":8,"pinned_loops":2}`; !strings.Contains(string(b), want) {
		t.Errorf("summary.json lacks %s: %s", want, b)
	}
}

func nearPtr(v *float64, want float64) bool { return v != nil && near(*v, want) }
