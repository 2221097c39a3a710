package results

import (
	"math"
	"path/filepath"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// LimitChange is one change of a server's limits during the workload
// phase (sut.resources.schedule or autoscale), a row of
// runs/<id>/limits.csv: at_s on the phase's clock (as events.csv), the
// instance, why (start, schedule, autoscale, restore), the limits before
// and after (0: none), the utilization autoscale measured, and the
// error of a change that could not be made.
type LimitChange struct {
	AtS            float64  `json:"at_s"`
	Instance       string   `json:"instance"`
	Reason         string   `json:"reason"`
	OldCPUs        float64  `json:"cpus_old"`
	NewCPUs        float64  `json:"cpus_new"`
	OldMemoryBytes int64    `json:"memory_old_bytes"`
	NewMemoryBytes int64    `json:"memory_new_bytes"`
	Utilization    *float64 `json:"utilization,omitempty"`
	Error          string   `json:"error,omitempty"`
}

// LimitsHeader is limits.csv's header.
var LimitsHeader = []string{"at_s", "instance", "reason", "cpus_old", "cpus_new", "memory_old_bytes",
	"memory_new_bytes", "utilization", "error"}

// WriteLimits writes runs/<id>/limits.csv.
func (d *Dir) WriteLimits(id string, changes []LimitChange) error {
	rows := make([][]string, 0, len(changes))
	for _, c := range changes {
		rows = append(rows, []string{ftoa(c.AtS), c.Instance, c.Reason, strconv.FormatFloat(c.OldCPUs, 'f', -1, 64),
			strconv.FormatFloat(c.NewCPUs, 'f', -1, 64), strconv.FormatInt(c.OldMemoryBytes, 10),
			strconv.FormatInt(c.NewMemoryBytes, 10), optional(c.Utilization), c.Error})
	}
	return d.writeCSV(filepath.Join("runs", id, "limits.csv"), LimitsHeader, rows)
}

// Elastic is what E1 priced (summary.json provider.elastic): the
// resources held over the measured workload and where each came from,
// "limit" (the limits in force, integrated over time: limits.csv, or the
// static ones) or "measured" (cpu_s; mem_peak_mb over the measured time),
// and their cost in dollars.
type Elastic struct {
	CPUSeconds      float64 `json:"cpu_s"`
	MemoryGBSeconds float64 `json:"memory_gb_s"`
	IOOps           float64 `json:"io_ops"`
	CPUFrom         string  `json:"cpu_from"`
	MemoryFrom      string  `json:"memory_from"`
	USD             float64 `json:"usd"`
}

// stepsOf are an instance's limits over the phase: its changes that were
// made, or, when the run changed none, the limits it was started with
// (from 0) when they are enforced.
func stepsOf(in Instance, changes []LimitChange) []metrics.Step {
	var out []metrics.Step
	for _, c := range changes {
		if c.Instance == in.Name && c.Error == "" {
			out = append(out, metrics.Step{AtS: c.AtS, CPUs: c.NewCPUs, MemoryGB: float64(c.NewMemoryBytes) / (1 << 30)})
		}
	}
	if out == nil && in.LimitsEnforced {
		out = []metrics.Step{{CPUs: in.CPUs, MemoryGB: float64(in.MemoryBytes) / (1 << 30)}}
	}
	return out
}

// elastic adds Zhang et al.'s (2025) E1-Score (eq. 2): the average TPS
// over the cost in dollars of the measured workload's CPU, memory and IO
// (metrics.E1Score). CPU and memory are the limits in force integrated
// over the measured part, server by server (limits.csv); a quantity some
// server held without a limit for a while is priced by use instead, as
// PricedResources does: cpu_s, and the peak memory over the measured
// time. IO is the block IO operations counted, none where the monitor
// counts none. Absent when neither limited nor measured.
func (o *Observations) elastic(sum *Summary) {
	w := o.Workload
	if sum.NotMeasured != "" || w == nil || len(sum.Instances) == 0 {
		return
	}
	a := &sum.Provider
	from := o.Warmup.Seconds()
	secs := w.Duration.Seconds()
	var e Elastic
	cpuLimited, memLimited := true, true
	for _, in := range sum.Instances {
		h, err := metrics.Integrate(stepsOf(in, o.Limits), from, from+secs)
		if err != nil {
			return
		}
		e.CPUSeconds += h.CPUSeconds
		e.MemoryGBSeconds += h.MemoryGBSeconds
		cpuLimited = cpuLimited && h.CPULimited
		memLimited = memLimited && h.MemoryLimited
	}
	e.CPUFrom, e.MemoryFrom = "limit", "limit"
	if !cpuLimited {
		if a.CPUS == nil {
			return
		}
		e.CPUSeconds, e.CPUFrom = *a.CPUS, "measured"
	}
	if !memLimited {
		if a.MemPeakMB == nil {
			return
		}
		e.MemoryGBSeconds, e.MemoryFrom = *a.MemPeakMB/1024*secs, "measured"
	}
	if m := o.Monitor; m != nil && m.IOOps > 0 {
		e.IOOps = float64(m.IOOps)
	}
	c, err := metrics.ElasticCost(e.CPUSeconds, e.MemoryGBSeconds, e.IOOps, o.Prices)
	if err != nil {
		return
	}
	e.USD = c.CPU + c.Memory + c.IO
	if s, err := metrics.E1Score(a.TPS, c); err == nil && !math.IsNaN(s) {
		a.Elastic, a.E1Score = &e, ptr(s)
	}
}
