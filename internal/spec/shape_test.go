package spec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
)

// paced is a third load shape, defined here as a new shape would be in its
// own file of internal/load: arrivals at an even rate on a pool of exactly
// workload.clients connections. Registering it is the only other line; spec
// decodes, checks, resolves and describes it without a change.
type paced struct{}

func (paced) Name() string                          { return "paced" }
func (paced) Keys() []string                        { return []string{"rate"} }
func (paced) Defaults(*load.Settings)               {}
func (p paced) Configure(*load.Settings) load.Shape { return p }
func (paced) Target() load.Target {
	return load.Target{Unit: "paced arrivals per second", Tau: "the paced rate at the resource limit"}
}
func (paced) Conns(_ float64, clients int) int { return clients }
func (p paced) Resolve(int) load.Shape         { return p }
func (paced) Describe(bool) string             { return "paced arrivals on workload.clients connections" }
func (paced) Loop() load.Loop {
	return load.Loop{Runner: load.ArrivalLoop, Arrivals: load.ArrivalsUniform, OnFull: load.OnFullQueue}
}

func (paced) Check(s *load.Settings, c load.Context) []load.Issue {
	switch {
	case c.SetsTarget && s.Rate != nil:
		return []load.Issue{{Key: "load.rate", Allowed: "the schedule sets the paced rate: remove workload.load.rate"}}
	case !c.SetsTarget && s.Rate == nil:
		return []load.Issue{{Key: "load.rate", Allowed: "required for shape: paced"}}
	case s.Rate != nil:
		return []load.Issue{{Key: "load.rate", Each: func(v float64) string {
			if v <= 0 || v > 1000 {
				return "must be 1..1000 paced arrivals per second"
			}
			return ""
		}}}
	}
	return nil
}

func (paced) CheckTarget(x float64, _ load.Context) string {
	if x > 1000 {
		return fmt.Sprintf("must be at most %d paced arrivals per second", 1000)
	}
	return ""
}

func TestThirdShape(t *testing.T) {
	undo := load.Register(paced{})
	registered := true
	defer func() {
		if registered {
			undo()
		}
	}()

	s, p := mustExpandSpec(t, "name: t\nworkload:\n  name: tpcb\n  clients: 3\n  load: {shape: paced, rate: [5, 10]}\n")
	if len(p.Runs) != 2 || p.Runs[1].Rate != 10 || p.Runs[1].Clients != 3 {
		t.Fatalf("the rate is a dimension and the pool is workload.clients: %+v", p.Runs)
	}
	lp := s.LoadPlan(&p.Runs[1])
	if lp.Shape != (paced{}) || lp.Tenants[0].Conns != 3 || lp.Tenants[0].Profile.Mean(0, time.Minute) != 10 {
		t.Errorf("load plan: shape %v, tenant %+v", lp.Shape, lp.Tenants[0])
	}
	if d := s.Workload.describe(); d != "paced arrivals on workload.clients connections" {
		t.Errorf("describe: %q", d)
	}

	for _, c := range []struct{ name, src, path, value, allows string }{
		{"rate missing", "load: {shape: paced}", "workload.load.rate", "", "required for shape: paced"},
		{"rate too high", "load: {shape: paced, rate: [5, 2000]}", "workload.load.rate[1]", "2000", "1..1000 paced"},
		{"think of closed", "load: {shape: paced, rate: 5, think: 1s}", "workload.load.think", "", "applies to shape: closed only"},
		{"pool of open", "load: {shape: paced, rate: 5, pool: 4}", "workload.load.pool", "", "applies to shape: open only"},
		{"rate of paced with closed", "load: {think: 1s, rate: 5}", "workload.load.rate", "", "applies to shape: open or paced only"},
		{"slot above the shape's limit", "load: {shape: paced}\n  schedule: {slots: [2000]}\n  duration: 1m", "workload.schedule.slots[0]", "2000", "at most 1000 paced arrivals"},
		{"shape listed", "load: {shape: ajar}", "workload.load.shape", "ajar", "must be one of closed, open, paced"},
	} {
		problemAt(t, c.name, "name: t\nworkload:\n  name: tpcb\n  "+c.src+"\n", c.path, c.value, c.allows)
	}

	undo()
	registered = false
	problemAt(t, "unregistered", "name: t\nworkload:\n  name: tpcb\n  load: {shape: paced, rate: 5}\n",
		"workload.load.shape", "paced", "must be closed or open")
}

// problemAt fails unless parsing src reports a problem at path with value
// and an allowed text containing allows.
func problemAt(t *testing.T, name, src, path, value, allows string) {
	t.Helper()
	_, problems := Parse([]byte(src))
	for _, p := range problems {
		if p.Path == path {
			if p.Value != value || !strings.Contains(p.Allowed, allows) {
				t.Errorf("%s: got %q (value %q); want value %q, allowed containing %q", name, p.Error(), p.Value, value, allows)
			}
			return
		}
	}
	t.Errorf("%s: no problem at %s; got:\n%s", name, path, joinProblems(problems))
}
