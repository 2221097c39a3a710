package monitor

import (
	"sort"
	"time"
)

// Usage is what one instance (or all of them) used during a window.
type Usage struct {
	Instance string // "" for the total
	// CPU seconds: user, system, and their sum (the results' cpu_s).
	CPUUser, CPUSys, CPU float64
	// MemPeakMB is the peak memory in MiB: the cgroup's (see Window), else
	// the largest PSS sum sampled, else the largest RSS sum. The total is
	// the sum of the instances' peaks.
	MemPeakMB float64
	// Block IO bytes, and operations (-1: unknown, as outside cgroup v2).
	IOReadBytes, IOWriteBytes int64
	IOOps                     int64
	// BackgroundAnonMB is the largest BackgroundAnon sampled in the
	// window (else the last before it), SharedMB the shared memory without
	// the buffer cache (InstanceSeries.SharedExceptBuffers), both in MiB:
	// the parts of Oracle's (2014) memory footprint. -1 when unknown; the
	// total is unknown when one instance's is.
	BackgroundAnonMB, SharedMB float64
	// CPU seconds of the processes that are no tenant's: background
	// processes, the monitor's backend, client backends of other roles.
	BackgroundCPU, MonitorCPU, OtherCPU float64
	// ForegroundCPU is the CPU seconds of the tenants' own processes
	// (client backends and parallel workers): Oracle's (2014, Table 5)
	// foreground processes, beside BackgroundCPU.
	ForegroundCPU float64
	// Whole says only CPU and memory are known, the whole server's
	// (InstanceSeries.Whole): no split, no IO.
	Whole bool
}

// Window is what the instances, tenants and tenantbench used between two
// times, e.g. the workload phase: the figures for results.csv.
type Window struct {
	From, To  time.Duration // since Origin
	Instances []Usage
	Total     Usage
	// TenantCPU is each tenant's CPU seconds (its backends' and parallel
	// workers').
	TenantCPU map[string]float64
	// TenantAnonMB is each tenant's sessions' private memory (MiB): the
	// largest TenantAnon sampled in the window (with the rounds that
	// bracket it); absent when no PSS round fell there.
	TenantAnonMB map[string]float64
	// TenantBlksRead and TenantBlksHit are each tenant's blocks in the
	// window, as the DBMS counts them for its database or schema
	// (ResourceSample.TenantBlksRead); absent where not counted.
	TenantBlksRead, TenantBlksHit map[string]float64
	// TenantPoolWaitMs is each tenant's mean wait for a server connection
	// of the pooler in front of its server, per transaction (ms); absent
	// without a pooler or for a tenant that shares its database (the
	// pooler's totals are per database).
	TenantPoolWaitMs map[string]float64
	// SelfCPU is tenantbench's own CPU seconds: the driver's cost, apart.
	SelfCPU float64
	// HostBusyPct is the machine's mean busy CPU percentage.
	HostBusyPct float64
}

// Window computes the figures between from and to. Cumulative counters
// are interpolated linearly between the samples around each end. Peak
// memory: when the cgroup's peak counter rose between the samples around
// the window, the peak was reached in it and is that counter; else it is
// the largest current usage sampled in the window (a lower bound).
func (s *Samples) Window(from, to time.Time) Window {
	w := Window{TenantCPU: map[string]float64{}, TenantAnonMB: map[string]float64{},
		TenantBlksRead: map[string]float64{}, TenantBlksHit: map[string]float64{}, TenantPoolWaitMs: map[string]float64{}}
	w.Total.BackgroundAnonMB, w.Total.SharedMB, w.Total.IOOps = -1, -1, -1
	if s == nil { // no monitor: no figures
		return w
	}
	f, t := from.Sub(s.Origin), to.Sub(s.Origin)
	w.From, w.To = f, t
	if len(s.Instances) > 0 {
		w.Total.BackgroundAnonMB, w.Total.SharedMB, w.Total.IOOps = 0, 0, 0
	}
	for _, is := range s.Instances {
		u := is.usage(f, t, w.TenantCPU)
		is.tenantAnon(f, t, w.TenantAnonMB)
		is.tenantBlocks(f, t, w.TenantBlksRead, w.TenantBlksHit)
		is.poolWait(f, t, w.TenantPoolWaitMs)
		w.Instances = append(w.Instances, u)
		w.Total.CPUUser += u.CPUUser
		w.Total.CPUSys += u.CPUSys
		w.Total.CPU += u.CPU
		w.Total.MemPeakMB += u.MemPeakMB
		w.Total.IOReadBytes += u.IOReadBytes
		w.Total.IOWriteBytes += u.IOWriteBytes
		if u.IOOps < 0 || w.Total.IOOps < 0 {
			w.Total.IOOps = -1
		} else {
			w.Total.IOOps += u.IOOps
		}
		w.Total.BackgroundCPU += u.BackgroundCPU
		w.Total.MonitorCPU += u.MonitorCPU
		w.Total.OtherCPU += u.OtherCPU
		w.Total.ForegroundCPU += u.ForegroundCPU
		w.Total.BackgroundAnonMB = knownSum(w.Total.BackgroundAnonMB, u.BackgroundAnonMB)
		w.Total.SharedMB = knownSum(w.Total.SharedMB, u.SharedMB)
	}
	h := s.Host
	ts := func(i int) time.Duration { return h[i].T }
	w.SelfCPU = between(len(h), ts, func(i int) float64 { return h[i].SelfCPUUser + h[i].SelfCPUSys }, f, t)
	var busy float64
	var n int
	for _, x := range h {
		if x.T > f && x.T <= t+s.Interval/2 && x.BusyPct >= 0 {
			busy += x.BusyPct
			n++
		}
	}
	if n > 0 {
		w.HostBusyPct = busy / float64(n)
	}
	return w
}

// peakCurrent is the largest current memory sampled in the window (with
// the rounds that bracket it), -1 when none is known.
func (is *InstanceSeries) peakCurrent(f, t time.Duration) int64 {
	sm := is.Samples
	i0, i1 := bracket(len(sm), func(i int) time.Duration { return sm[i].T }, f, t)
	peak := int64(-1)
	for i := i0; i <= i1; i++ {
		peak = max(peak, sm[i].MemCurrent)
	}
	return peak
}

// knownSum adds two figures of which -1 means unknown.
func knownSum(a, b float64) float64 {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

func (is *InstanceSeries) usage(f, t time.Duration, tenants map[string]float64) Usage {
	u := Usage{Instance: is.Name, BackgroundAnonMB: -1, SharedMB: -1}
	if is.SharedExceptBuffers >= 0 {
		u.SharedMB = float64(is.SharedExceptBuffers) / (1 << 20)
	}
	sm := is.Samples
	n := len(sm)
	if n == 0 {
		return u
	}
	ts := func(i int) time.Duration { return sm[i].T }
	diff := func(v func(i int) float64) float64 { return between(n, ts, v, f, t) }
	u.CPUUser = diff(func(i int) float64 { return sm[i].CPUUser })
	u.CPUSys = diff(func(i int) float64 { return sm[i].CPUSys })
	u.CPU = u.CPUUser + u.CPUSys
	if is.Whole { // neither IO nor a split to read: no process seen
		u.Whole = true
		u.IOOps = -1
		u.MemPeakMB = float64(max(is.peakCurrent(f, t), 0)) / (1 << 20)
		return u
	}
	u.IOReadBytes = int64(diff(func(i int) float64 { return float64(sm[i].IOReadBytes) }) + 0.5)
	u.IOWriteBytes = int64(diff(func(i int) float64 { return float64(sm[i].IOWriteBytes) }) + 0.5)
	u.IOOps = -1
	if n > 0 && sm[n-1].IOReadOps >= 0 && sm[n-1].IOWriteOps >= 0 {
		u.IOOps = int64(diff(func(i int) float64 { return float64(sm[i].IOReadOps + sm[i].IOWriteOps) }) + 0.5)
	}
	for k, name := range is.Tenants {
		c := diff(func(i int) float64 {
			if k >= len(sm[i].TenantUser) {
				return 0
			}
			return sm[i].TenantUser[k] + sm[i].TenantSys[k]
		})
		switch k {
		case catBackground:
			u.BackgroundCPU = c
		case catMonitor:
			u.MonitorCPU = c
		case catOther:
			u.OtherCPU = c
		default:
			tenants[name] += c
			u.ForegroundCPU += c
		}
	}
	i0, i1 := bracket(n, ts, f, t)
	var peak, pss, rss int64
	for i := i0; i <= i1; i++ {
		peak = max(peak, sm[i].MemCurrent)
		pss = max(pss, sm[i].PSS)
		rss = max(rss, sm[i].RSS)
	}
	if sm[i1].MemPeak > sm[i0].MemPeak {
		peak = max(peak, sm[i1].MemPeak)
	}
	switch {
	case sm[i1].MemCurrent >= 0:
	case pss > 0:
		peak = pss
	default:
		peak = rss
	}
	u.MemPeakMB = float64(peak) / (1 << 20)
	// PSS rounds are rarer than the others (PSSInterval): a window that
	// holds none takes the last one before it.
	bg := int64(-1)
	for i := i0; i <= i1; i++ {
		bg = max(bg, sm[i].BackgroundAnon)
	}
	for i := i0 - 1; bg < 0 && i >= 0; i-- {
		bg = sm[i].BackgroundAnon
	}
	if bg >= 0 {
		u.BackgroundAnonMB = float64(bg) / (1 << 20)
	}
	return u
}

// bracket finds the samples around [f, t]: the last at or before f and
// the first at or after t (the ends of the series when there are none).
func bracket(n int, ts func(int) time.Duration, f, t time.Duration) (int, int) {
	i1 := sort.Search(n, func(i int) bool { return ts(i) >= t })
	if i1 == n {
		i1 = n - 1
	}
	i0 := sort.Search(n, func(i int) bool { return ts(i) > f }) - 1
	i0 = min(max(i0, 0), i1)
	return i0, i1
}

// between is the change of a cumulative counter from f to t, its value at
// each end interpolated linearly between samples.
func between(n int, ts func(int) time.Duration, v func(int) float64, f, t time.Duration) float64 {
	if n == 0 || t <= f {
		return 0
	}
	return at(n, ts, v, t) - at(n, ts, v, f)
}

func at(n int, ts func(int) time.Duration, v func(int) float64, x time.Duration) float64 {
	i := sort.Search(n, func(i int) bool { return ts(i) >= x })
	switch {
	case i == 0:
		return v(0)
	case i == n:
		return v(n - 1)
	}
	a, b := ts(i-1), ts(i)
	if b == a {
		return v(i)
	}
	r := float64(x-a) / float64(b-a)
	return v(i-1) + r*(v(i)-v(i-1))
}

// tenantAnon adds each tenant's largest private memory sampled around
// [f, t] (the samples that bracket it) to out, in MiB.
func (is *InstanceSeries) tenantAnon(f, t time.Duration, out map[string]float64) {
	sm := is.Samples
	n := len(sm)
	if n == 0 {
		return
	}
	i0, i1 := bracket(n, func(i int) time.Duration { return sm[i].T }, f, t)
	// No fallback to a round long before the window, unlike the
	// background's: a tenant's sessions then (its loading) are not those
	// of the workload.
	for k := firstTenant; k < len(is.Tenants); k++ {
		var most int64 = -1
		for i := i0; i <= i1; i++ {
			if k < len(sm[i].TenantAnon) {
				most = max(most, sm[i].TenantAnon[k])
			}
		}
		if most >= 0 {
			out[is.Tenants[k]] = max(out[is.Tenants[k]], float64(most)/(1<<20))
		}
	}
}
