package driver

import "github.com/tenantbench/tenantbench/internal/results"

// Figures reads the result's histograms into the figures results writes
// and summarizes: the one place the driver's in-memory result becomes
// results' types.
func (r *Result) Figures() *results.Workload {
	threads := r.Threads
	w := &results.Workload{Start: r.Start, Warmup: r.Warmup, Duration: r.Duration, Series: r.Series, Slots: r.Slots,
		Threads: &threads}
	if r.DriverCPU != nil {
		s := r.DriverCPU.Seconds()
		w.DriverCPUS = &s
	}
	for _, t := range r.Tenants {
		tw := results.TenantWorkload{Name: t.Name, All: t.All.figures(), ConnLost: t.ConnLost, ConnLostAt: t.ConnLostAt}
		for _, x := range t.Txns {
			tw.Txns = append(tw.Txns, x.figures())
		}
		for _, f := range t.Failures {
			tw.Failures = append(tw.Failures, results.Failure{Txn: f.Txn, Class: f.Class, Count: f.Count,
				FirstS: f.First.Seconds(), LastS: f.Last.Seconds(), Message: f.Message, LastMessage: lastMessage(f)})
		}
		if o := t.Open; o != nil {
			tw.Open = &results.Arrivals{TargetRate: o.TargetRate, Arrivals: o.Arrivals, Queued: o.Queued,
				Dropped: o.Dropped, AchievedRate: o.AchievedRate}
		}
		w.Tenants = append(w.Tenants, tw)
	}
	return w
}

func (t TxnResult) figures() results.TxnFigures {
	return results.TxnFigures{Txn: t.Txn, Committed: t.Committed, Rollbacks: t.Rollbacks, Retries: t.Retries,
		Failed: t.Failed, MeanMs: t.MeanMs(), P50Ms: t.QuantileMs(50), P95Ms: t.QuantileMs(95),
		P99Ms: t.QuantileMs(99), MaxMs: t.QuantileMs(100),
		ServiceMeanMs: t.ServiceMeanMs(), ServiceP99Ms: t.ServiceQuantileMs(99)}
}

// lastMessage is f's last message where it differs from its first, else
// "" (results.Failure's last_message is left out then).
func lastMessage(f Failure) string {
	if f.LastMessage == f.Message {
		return ""
	}
	return f.LastMessage
}
