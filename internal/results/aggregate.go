package results

import (
	"github.com/tenantbench/tenantbench/internal/metrics"
)

// AggregateRepetition marks a results.csv row that aggregates the
// repetitions of one matrix point; its repetition
// column says "mean".
const AggregateRepetition = 0

// AggregateRuns is the row that stands for the repetitions of one matrix
// point: the mean (metrics.Summarize) of every figure over the successful
// repetitions; its run_id spans the point's runs ("001-003"), its status is
// ok only when every repetition was. A figure absent from any successful
// repetition (an unmonitored one) stays absent. sums are the point's runs
// in plan order; nil when there are none.
func AggregateRuns(sums []*Summary) *Summary {
	if len(sums) == 0 {
		return nil
	}
	first, last := sums[0], sums[len(sums)-1]
	agg := &Summary{RunID: first.RunID + "-" + last.RunID, Model: first.Model, Tenants: first.Tenants,
		Scale: first.Scale, Clients: first.Clients, Repetition: AggregateRepetition, Settings: first.Settings,
		Interference: first.Interference,
		Interaction:  first.Interaction, Storage: first.Storage, Volume: first.Volume, CPUPolicy: first.CPUPolicy,
		Placement: first.Placement, Replicas: first.Replicas, Engine: first.Engine, Case: first.Case, Status: StatusOK}
	var ok []Aggregate
	for _, s := range sums {
		if s.Status == StatusOK {
			ok = append(ok, s.Provider)
		} else {
			agg.Status = StatusFailed
		}
	}
	if agg.Status != StatusOK {
		agg.Error = "not every repetition succeeded; the figures are the means of those that did"
	}
	agg.meanOf = len(ok)
	if len(ok) == 0 {
		return agg
	}
	mean := func(f func(Aggregate) float64) float64 {
		v := make([]float64, len(ok))
		for i, a := range ok {
			v[i] = f(a)
		}
		s, err := metrics.Summarize(v)
		if err != nil {
			return 0
		}
		return s.Mean
	}
	meanOpt := func(f func(Aggregate) *float64) *float64 {
		for _, a := range ok {
			if f(a) == nil {
				return nil
			}
		}
		return ptr(mean(func(a Aggregate) float64 { return *f(a) }))
	}
	p := &agg.Provider
	p.TPS = mean(func(a Aggregate) float64 { return a.TPS })
	p.MeanMs = mean(func(a Aggregate) float64 { return a.MeanMs })
	p.P95Ms = mean(func(a Aggregate) float64 { return a.P95Ms })
	p.P99Ms = mean(func(a Aggregate) float64 { return a.P99Ms })
	p.Committed = int64(mean(func(a Aggregate) float64 { return float64(a.Committed) }) + 0.5)
	p.Failed = int64(mean(func(a Aggregate) float64 { return float64(a.Failed) }) + 0.5)
	p.ProvisionS = mean(func(a Aggregate) float64 { return a.ProvisionS })
	p.SetupS = mean(func(a Aggregate) float64 { return a.SetupS })
	p.IngestS = mean(func(a Aggregate) float64 { return a.IngestS })
	p.PostIngest = mean(func(a Aggregate) float64 { return a.PostIngest })
	p.WorkloadS = mean(func(a Aggregate) float64 { return a.WorkloadS })
	p.TPM = mean(func(a Aggregate) float64 { return a.TPM })
	p.FairnessJain = mean(func(a Aggregate) float64 { return a.FairnessJain })
	p.NOPM = meanOpt(func(a Aggregate) *float64 { return a.NOPM })
	p.CPUS = meanOpt(func(a Aggregate) *float64 { return a.CPUS })
	p.MemPeakMB = meanOpt(func(a Aggregate) *float64 { return a.MemPeakMB })
	p.ETpX = meanOpt(func(a Aggregate) *float64 { return a.ETpX })
	p.ELat = meanOpt(func(a Aggregate) *float64 { return a.ELat })
	p.MemFootprintMB = meanOpt(func(a Aggregate) *float64 { return a.MemFootprintMB })
	p.MemMarginalMB = meanOpt(func(a Aggregate) *float64 { return a.MemMarginalMB })
	p.RUC = meanOpt(func(a Aggregate) *float64 { return a.RUC })
	p.PScore = meanOpt(func(a Aggregate) *float64 { return a.PScore })
	p.TScore = meanOpt(func(a Aggregate) *float64 { return a.TScore })
	p.E1Score = meanOpt(func(a Aggregate) *float64 { return a.E1Score })
	p.E2Score = meanOpt(func(a Aggregate) *float64 { return a.E2Score })
	p.TS = meanOpt(func(a Aggregate) *float64 { return a.TS })
	p.PowerAtSize = meanOpt(func(a Aggregate) *float64 { return a.PowerAtSize })
	p.ThroughputAtSize = meanOpt(func(a Aggregate) *float64 { return a.ThroughputAtSize })
	p.ECPU = meanOpt(func(a Aggregate) *float64 { return a.ECPU })
	p.ERAM = meanOpt(func(a Aggregate) *float64 { return a.ERAM })
	// The probe ran before failed repetitions too: the point's machine
	// speed is the mean over all of them.
	var speeds []float64
	for _, s := range sums {
		if s.HostSpeed != nil {
			speeds = append(speeds, *s.HostSpeed)
		}
	}
	if len(speeds) == len(sums) {
		if st, err := metrics.Summarize(speeds); err == nil {
			agg.HostSpeed = ptr(st.Mean)
		}
	}
	p.FScoreS = meanOpt(func(a Aggregate) *float64 { return a.FScoreS })
	p.RScoreS = meanOpt(func(a Aggregate) *float64 { return a.RScoreS })
	p.HostIdlePct = meanOpt(func(a Aggregate) *float64 { return a.HostIdlePct })
	p.CPUBackgroundPct = meanOpt(func(a Aggregate) *float64 { return a.CPUBackgroundPct })
	p.CPUForegroundPct = meanOpt(func(a Aggregate) *float64 { return a.CPUForegroundPct })
	p.CPUServersPct = meanOpt(func(a Aggregate) *float64 { return a.CPUServersPct })
	p.MemTenantPrivateMB = meanOpt(func(a Aggregate) *float64 { return a.MemTenantPrivateMB })
	p.SLAMetTenants, p.SLAMet = slaOfRuns(ok)
	p.LagInsertMs = meanOpt(func(a Aggregate) *float64 { return a.LagInsertMs })
	p.LagUpdateMs = meanOpt(func(a Aggregate) *float64 { return a.LagUpdateMs })
	p.LagDeleteMs = meanOpt(func(a Aggregate) *float64 { return a.LagDeleteMs })
	p.CScoreMs = meanOpt(func(a Aggregate) *float64 { return a.CScoreMs })
	p.DriverCPUPer1000 = meanOpt(func(a Aggregate) *float64 { return a.DriverCPUPer1000 })
	p.DriverCPUShare = meanOpt(func(a Aggregate) *float64 { return a.DriverCPUShare })
	return agg
}
