package interfere

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/metrics"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Env is what the runner needs of a run.
type Env struct {
	// Servers are the run's servers by name.
	Servers map[string]*provider.Instance
	// Tenants are the run's tenants in the driver's order (Commits counts
	// them by this index).
	Tenants []Tenant
	// WorkDir is the run's work directory: on the servers' filesystem, so
	// that io noise writes where their data is.
	WorkDir string
	// Ledger is told of every process the noise starts, and of its end.
	Ledger Ledger
	// Log says what happens, a line at a time; nil for nothing.
	Log func(format string, a ...any)
	// Commits tells the first commit of each tenant after a time: the
	// driver's, set when the phase starts. nil: F is not measured.
	Commits Commits
	// Driver is the driver's own cgroup while the workload runs, nil
	// when no event targets it.
	Driver *cgroup.Group
	// Moved is told that a fail-over put to in the place of from, as
	// soon as to accepts writes: the run moves from's tenants (their
	// endpoint) to it. nil: nobody is told.
	Moved func(from, to *provider.Instance)
	// Beside runs an instant kind's steps (a restart, a fail-over) so
	// that the driver's event loops, which may hold every OS thread of
	// the process while the clients run, let those steps use the network
	// as they go (driver.Beside). nil runs them as they are.
	Beside func(func())

	mu sync.Mutex // Servers, which a fail-over changes
}

// moved puts to in the place of from: a later event naming from's
// server or tenants acts on to. Then it tells the run.
func (env *Env) moved(from, to *provider.Instance) {
	env.mu.Lock()
	for name, s := range env.Servers {
		if s == from {
			env.Servers[name] = to
		}
	}
	env.mu.Unlock()
	if env.Moved != nil {
		env.Moved(from, to)
	}
	if env.Commits != nil {
		env.Commits.Redial() // to its endpoint, which the run has just set
	}
}

// server is the running server named name, nil for none.
func (env *Env) server(name string) *provider.Instance {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.Servers[name]
}

// Tenant is one tenant of a run: its name, its role on its server, and
// the server's name.
type Tenant struct {
	Name, Role, Server string
}

// Commits is the driver's record of the first committed transaction of
// a tenant (by index) ending after a time.
type Commits interface {
	// Arm makes First report the first commit of tenant ending after
	// after; a first commit already seen after it is kept.
	Arm(tenant int, after time.Time)
	First(tenant int) (time.Time, bool)
	// Redial has the clients that wait to reconnect try again now: the
	// fault's server is back, or another took its place.
	Redial()
}

// Ledger is where a run records the processes noise starts, so that a
// tenantbench killed meanwhile leaves a record of what to end.
type Ledger interface {
	Started(p Process)
	Ended(p Process)
}

// Process is a process interference started: its pid and start time
// (clock ticks since boot, which tell it from a later process with the
// pid) and the cgroup made for it ("" when none).
type Process struct {
	Name       string `json:"name"`
	Pid        int    `json:"pid"`
	Start      uint64 `json:"start"`
	Cgroup     string `json:"cgroup,omitempty"`
	CgroupMode string `json:"cgroup_mode,omitempty"`
}

// Target is an occurrence's target, resolved on the running servers.
type Target struct {
	Name   string             // as written, "host" when none was
	Server *provider.Instance // nil for the host and the driver
	// Driver is the driver's cgroup when the target is the driver.
	Driver *cgroup.Group
	// Tenants are the indexes of the tenants the occurrence affects: a
	// server's every tenant, or the one a tenant target names when the
	// kind acts on sessions (kill-backends).
	Tenants []int
}

// Record is one occurrence as it happened.
type Record struct {
	Kind, Target, Params string
	Fault                bool
	Planned              time.Duration // At, since the phase started
	Start, End           time.Time     // injection and end
	Observed             Observed
	Err                  error
	Tenants              []string // affected
	// Recovery is what "throughput is back" means for a fault's R.
	Recovery metrics.Recovery
	// Resumed is the first commit of the affected tenants after the
	// fault took their service down (the later of the injection and
	// Observed.Down), every one of them having committed by then: t_s of
	// Zhang et al. 2025, eq. 3. Zero when not measured or never.
	Resumed time.Time
}

// Runner injects a run's events during its workload phase.
type Runner struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	recs   []Record
}

// Start schedules every occurrence of events relative to start, the
// workload phase's start, over a phase of length phase. Stop ends them.
// ctx is the run's: when it ends (Ctrl-C, a failed run) every occurrence
// ends at once; Stop, at the phase's end, lets an instant fault that is
// under way finish (Occurrence.run).
func Start(ctx context.Context, events []Event, phase time.Duration, env *Env, start time.Time) *Runner {
	whole := ctx
	ctx, cancel := context.WithCancel(ctx)
	r := &Runner{cancel: cancel}
	for i := range events {
		ev := &events[i]
		if ev.Off() {
			continue
		}
		for n, at := range ev.Occurrences(phase) {
			o := &Occurrence{Event: ev, N: n, At: at, env: env}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				t := time.NewTimer(time.Until(start.Add(at)))
				defer t.Stop()
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				r.add(o.run(ctx, whole))
			}()
		}
	}
	return r
}

// Stop ends the occurrences still running (noise stopped, a frozen
// server thawed), waits for them, and returns every record in the order
// of injection.
func (r *Runner) Stop() []Record {
	if r == nil {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	sort.SliceStable(r.recs, func(i, j int) bool { return r.recs[i].Start.Before(r.recs[j].Start) })
	return r.recs
}

func (r *Runner) add(rec Record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

// resolve finds the occurrence's target among the running servers.
func (o *Occurrence) resolve() error {
	ev, env := o.Event, o.env
	t := Target{Name: ev.Target}
	if t.Name == "" || t.Name == HostTarget {
		t.Name = HostTarget
		o.Target = t
		return nil
	}
	if t.Name == DriverTarget {
		if env.Driver == nil {
			return fmt.Errorf("target driver: the driver runs in no cgroup of its own (cgroups unavailable?)")
		}
		t.Driver = env.Driver
		o.Target = t
		return nil
	}
	server := ""
	if env.server(t.Name) != nil {
		server = t.Name
	}
	tenant := -1
	for i, tn := range env.Tenants {
		if tn.Name == t.Name {
			tenant = i
			if server == "" {
				server = tn.Server
			}
		}
	}
	t.Server = env.server(server)
	if t.Server == nil {
		return fmt.Errorf("target %s is no server or tenant of the run", t.Name)
	}
	if _, sessions := ev.Kind.(sessionKind); sessions && tenant >= 0 && server != t.Name {
		t.Tenants = []int{tenant}
	} else {
		for i, tn := range env.Tenants {
			if tn.Server == server {
				t.Tenants = append(t.Tenants, i)
			}
		}
	}
	o.Target = t
	return nil
}

// sessionKind is a kind that acts on a tenant's sessions rather than on
// its whole server.
type sessionKind interface{ sessions() }

// run injects the occurrence and, for a fault, waits until its tenants
// commit again (or the phase ends: ctx). A lasting kind (noise, a
// freeze) ends with ctx. An instant one (a restart, a crash, a
// fail-over) is injected under whole, the run's context, and so runs to
// its end when the phase ends under it: cut half-way it would leave its
// server down, or its standbys without a primary, for the consistency
// check and the teardown, and record an error the experiment did not
// make. Its own steps are bounded (a restart's and a promotion's waits).
func (o *Occurrence) run(ctx, whole context.Context) Record {
	ev := o.Event
	rec := Record{Kind: ev.Kind.Name(), Target: ev.Target, Params: ev.Params.String(), Fault: ev.Kind.Fault(), Planned: o.At}
	if r, ok := ev.Params.(recovered); ok {
		rec.Recovery = r.recovery()
	}
	if rec.Target == "" {
		rec.Target = HostTarget
	}
	rec.Start = time.Now()
	if err := o.resolve(); err != nil {
		rec.Err, rec.End = err, time.Now()
		return rec
	}
	for _, i := range o.Target.Tenants {
		rec.Tenants = append(rec.Tenants, o.env.Tenants[i].Name)
	}
	c := o.env.Commits
	inject := ctx
	if !ev.Kind.Lasts() {
		inject = whole
	}
	if rec.Fault && c != nil {
		for _, i := range o.Target.Tenants {
			c.Arm(i, rec.Start)
		}
		// Armed again the moment the server goes down, not once the
		// fault returns: the commits in between (on a promoted server,
		// or on the primary while a replica restarts) end the outage.
		inject = provider.WithDown(inject, func(down time.Time) {
			if down.After(rec.Start) {
				for _, i := range o.Target.Tenants {
					c.Arm(i, down)
				}
			}
		})
	}
	o.logf("%s %s at %.1f s", rec.Kind, rec.Target, o.At.Seconds())
	injectIt := func() { rec.Observed, rec.Err = ev.Kind.Inject(inject, o) }
	if o.env.Beside != nil && !ev.Kind.Lasts() {
		o.env.Beside(injectIt)
	} else {
		injectIt()
	}
	rec.End = time.Now()
	if rec.Fault && c != nil {
		c.Redial() // the server is back (a restart, a crash's recovery)
	}
	if rec.Err != nil {
		o.logf("%s %s: %v", rec.Kind, rec.Target, rec.Err)
	}
	if !rec.Fault || c == nil || len(o.Target.Tenants) == 0 {
		return rec
	}
	from := rec.Start
	if d := rec.Observed.Down; d.After(from) {
		from = d
		for _, i := range o.Target.Tenants {
			c.Arm(i, from)
		}
	}
	rec.Resumed = o.waitResumed(ctx, c)
	return rec
}

// waitResumed waits until every affected tenant has committed after its
// arming and returns the latest of those first commits; zero when the
// phase ended first.
func (o *Occurrence) waitResumed(ctx context.Context, c Commits) time.Time {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		var last time.Time
		all := true
		for _, i := range o.Target.Tenants {
			t, ok := c.First(i)
			if !ok {
				all = false
				break
			}
			if t.After(last) {
				last = t
			}
		}
		if all {
			return last
		}
		select {
		case <-ctx.Done():
			return time.Time{}
		case <-tick.C:
		}
	}
}

func (o *Occurrence) logf(format string, a ...any) {
	if o.env.Log != nil {
		o.env.Log(format, a...)
	}
}

// sleep waits d or until ctx ends; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
