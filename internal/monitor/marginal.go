package monitor

import "time"

// MemoryBaseAndLoaded reads the two memories of the marginal memory per
// tenant (metrics.MarginalMemoryPerTenant) from the samples, in MiB,
// summed over the run's instances:
//
//   - base: the first round. Monitor.Start takes it; the run starts the
//     monitor between provisioning and setup, so it is the servers up with
//     no tenant placed yet.
//   - loaded: the mean of the rounds in [from, to], the measured workload;
//     a mean, not the peak, because the base is a level too.
//
// Both come from the source mem_peak_mb uses (Window): the
// cgroup's usage where the monitor reads one, else the processes' PSS sum,
// else their RSS sum. ok is false when an instance lacks either figure:
// the first round was not taken at Start, or the window holds no round
// with the figure (without a cgroup PSS is read every PSSInterval, 10 s).
func (s *Samples) MemoryBaseAndLoaded(from, to time.Time) (baseMB, loadedMB float64, ok bool) {
	if s == nil || len(s.Instances) == 0 || len(s.Marks) == 0 || s.Marks[0].Label != "start" {
		return 0, 0, false
	}
	f, t := from.Sub(s.Origin), to.Sub(s.Origin)
	for _, is := range s.Instances {
		sm := is.Samples
		if len(sm) == 0 || sm[0].T > s.Marks[0].T {
			return 0, 0, false
		}
		mem := func(r ResourceSample) int64 { return r.RSS }
		switch {
		case is.MemorySource != "proc":
			mem = func(r ResourceSample) int64 { return r.MemCurrent }
		case sm[0].PSS >= 0:
			mem = func(r ResourceSample) int64 { return r.PSS }
		}
		base := mem(sm[0])
		var sum float64
		var n int
		for _, r := range sm {
			if v := mem(r); v >= 0 && r.T >= f && r.T <= t {
				sum += float64(v)
				n++
			}
		}
		if base < 0 || n == 0 {
			return 0, 0, false
		}
		baseMB += float64(base) / (1 << 20)
		loadedMB += sum / float64(n) / (1 << 20)
	}
	return baseMB, loadedMB, true
}
