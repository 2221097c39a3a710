package run

import (
	"context"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/driver"
	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
)

// interference is the run's interference on the workload phase: the
// events the plan checked, started with the phase's clock and stopped
// when the phase ends (also on failure and Ctrl-C: Stop ends every noise
// and thaws every frozen server).
type interference struct {
	events []interfere.Event
	runner *interfere.Runner
	start  time.Time
	idle0  *procfs.CPUStat
	// driver is the driver's cgroup while the phase runs, nil when no
	// event targets it (drivergroup.go).
	driver *cgroup.Group
}

// startsWith returns the driver's Started hook: it starts the run's
// events with the phase's clock and notes the host's CPU times.
func (e *execution) startsWith(ctx context.Context, phase time.Duration) func(time.Time, *driver.Watch) {
	events, _ := interfere.Parse(e.spec.InterferenceOf(&e.run.Run)) // checked by plan
	e.interf = &interference{events: events}
	return func(start time.Time, w *driver.Watch) {
		in := e.interf
		in.start = start
		if st, err := hostCPU(); err == nil {
			in.idle0 = &st
		}
		if len(events) == 0 {
			return
		}
		env := &interfere.Env{Servers: map[string]*provider.Instance{}, WorkDir: e.workDir, Ledger: e.opts.Ledger,
			Log: e.logf, Commits: w, Driver: in.driver, Moved: e.moved, Beside: driver.Beside}
		for _, inst := range e.instances {
			env.Servers[inst.Name] = inst
		}
		for _, p := range e.placements {
			env.Tenants = append(env.Tenants, interfere.Tenant{Name: p.Tenant, Role: p.Role, Server: p.Instance.Name})
		}
		in.runner = interfere.Start(ctx, events, phase, env, start)
	}
}

// stopInterference ends the run's events and keeps what they did, and
// the host's idle CPU over the phase.
func (e *execution) stopInterference() {
	in := e.interf
	if in == nil || in.start.IsZero() {
		return
	}
	if in.idle0 != nil {
		if st, err := hostCPU(); err == nil {
			busy := func(s procfs.CPUStat) float64 {
				return s.User + s.Nice + s.System + s.IRQ + s.SoftIRQ + s.Steal
			}
			idle := func(s procfs.CPUStat) float64 { return s.Idle + s.Iowait }
			di, db := idle(st)-idle(*in.idle0), busy(st)-busy(*in.idle0)
			if di+db > 0 {
				pct := 100 * di / (di + db)
				e.hostIdle = &pct
			}
		}
	}
	if in.runner == nil {
		return
	}
	e.events = []results.Event{}
	for _, r := range in.runner.Stop() {
		e.events = append(e.events, eventOf(r, in.start))
	}
}

// hostCPU is the machine's CPU times now.
func hostCPU() (procfs.CPUStat, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return procfs.CPUStat{}, err
	}
	st, err := fs.Stat()
	return st.CPUTotal, err
}

// eventOf is an occurrence as events.csv holds it, its times in seconds
// since the phase started.
func eventOf(r interfere.Record, start time.Time) results.Event {
	sec := func(t time.Time) *float64 {
		if t.IsZero() {
			return nil
		}
		s := t.Sub(start).Seconds()
		return &s
	}
	ev := results.Event{AtS: r.Start.Sub(start).Seconds(), EndS: r.End.Sub(start).Seconds(), Kind: r.Kind,
		Target: r.Target, Params: r.Params, Fault: r.Fault, Tenants: r.Tenants, DownS: sec(r.Observed.Down),
		ReadyS: sec(r.Observed.Ready), ResumedS: sec(r.Resumed), Observed: r.Observed.Note, Recovery: r.Recovery}
	ev.Promoted = r.Observed.Promoted
	if d := r.Observed.Promotion; d > 0 {
		ms := float64(d) / float64(time.Millisecond)
		ev.PromotionMS = &ms
	}
	if r.Observed.Requested > 0 {
		req, ach := r.Observed.Requested, r.Observed.Achieved
		ev.Requested, ev.Achieved = &req, &ach
	}
	if r.Err != nil {
		ev.Error = r.Err.Error()
	}
	return ev
}

// faults says whether the run injects faults: its clients' lost
// connections are then what was asked for, not a failure of the run.
func (e *execution) faults() bool {
	if e.interf == nil {
		return false
	}
	for _, ev := range e.interf.events {
		if ev.Kind.Fault() {
			return true
		}
	}
	return false
}
