package spec

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
)

func mustExpandSpec(t *testing.T, src string) (*Spec, *Plan) {
	t.Helper()
	s := mustParse(t, src)
	p, problems := Expand(s)
	if len(problems) > 0 {
		t.Fatalf("Expand: %s", joinProblems(problems))
	}
	return s, p
}

// slotValues is each tenant's mean target per result slot.
func slotValues(s *Spec, r Run) [][]float64 {
	var out [][]float64
	for _, t := range s.LoadPlan(&r).Tenants {
		var row []float64
		for j, from := range t.Windows {
			to := t.Profile.End()
			if j+1 < len(t.Windows) {
				to = t.Windows[j+1]
			}
			row = append(row, t.Profile.Mean(from, to))
		}
		out = append(out, row)
	}
	return out
}

func TestOpenLoad(t *testing.T) {
	s, p := mustExpandSpec(t, "name: t\n"+"workload:\n  name: tpcb\n  clients: 4\n  load: {shape: open, rate: [100, 250.5]}\n")
	if s.Workload.Load.Arrivals != "poisson" || s.Workload.Load.OnFull != "queue" {
		t.Errorf("open defaults not filled: %+v", s.Workload.Load)
	}
	if len(p.Runs) != 2 || p.Runs[0].Rate != 100 || p.Runs[1].Rate != 250.5 {
		t.Fatalf("rate is a dimension: %+v", p.Runs)
	}
	r := p.Runs[1]
	lp := s.LoadPlan(&r)
	// Oracle 2014 ("Open Workload Model"): a pool twice the expected concurrency (workload.clients)
	if r.Clients != 8 || lp.Shape != (load.Open{Arrivals: "poisson", Pool: 8, OnFull: "queue"}) || lp.Tenants[0].Conns != 8 {
		t.Errorf("pool: run clients %d, load %+v", r.Clients, lp.Shape)
	}
	if got := lp.Tenants[0].Profile.Mean(0, time.Minute); got != 250.5 {
		t.Errorf("rate profile mean %v", got)
	}
	if lp.Scheduled() {
		t.Error("a constant rate has no result slots")
	}
	s, p = mustExpandSpec(t, "name: t\n"+"workload:\n  name: tpcb\n  load: {shape: open, rate: 10, pool: 3, on_full: drop, arrivals: uniform}\n")
	if lp := s.LoadPlan(&p.Runs[0]); p.Runs[0].Clients != 3 || lp.Shape != (load.Open{Arrivals: "uniform", Pool: 3, OnFull: "drop"}) {
		t.Errorf("explicit pool: %+v", lp.Shape)
	}
}

// Zhang et al. 2025, section II-C, with tau = 110: the elasticity patterns
// come out as the paper's numbers, one slot a minute, and the phase lasts the
// 3 slots.
func TestElasticityPatternPlan(t *testing.T) {
	s, p := mustExpandSpec(t, "name: t\n"+`tenancy: {tenants: 2}
workload:
  name: tpcb
  pattern: {name: [single-peak, large-spike, single-valley, zero-valley], tau: 110}
`)
	if s.Workload.Duration.D() != 3*time.Minute {
		t.Errorf("duration %s, want the pattern's 3 x 1m", s.Workload.Duration)
	}
	want := map[string][]float64{"single-peak": {0, 110, 0}, "large-spike": {11, 88, 11},
		"single-valley": {44, 22, 44}, "zero-valley": {55, 0, 55}}
	if len(p.Runs) != 4 {
		t.Fatalf("%d runs, want one per pattern", len(p.Runs))
	}
	for _, r := range p.Runs {
		got := slotValues(s, r)
		if !reflect.DeepEqual(got, [][]float64{want[r.Pattern], want[r.Pattern]}) {
			t.Errorf("%s: %v", r.Pattern, got)
		}
		if r.Clients != int(max(want[r.Pattern][0], want[r.Pattern][1])) || s.LoadPlan(&r).Pattern != r.Pattern {
			t.Errorf("%s: %d clients", r.Pattern, r.Clients)
		}
	}
}

func TestMultiTenancyPatternPlan(t *testing.T) {
	s, p := mustExpandSpec(t, "name: t\n"+`tenancy: {tenants: 3}
workload:
  name: tpcb
  pattern: {name: [high-contention, staggered-low], tau: 100, slot: 10s}
`)
	if got := slotValues(s, p.Runs[0]); !reflect.DeepEqual(got, [][]float64{{10, 10, 10}, {30, 30, 30}, {80, 80, 80}}) {
		t.Errorf("high-contention: %v", got)
	}
	if got := slotValues(s, p.Runs[1]); !reflect.DeepEqual(got, [][]float64{{10, 0, 0}, {0, 20, 0}, {0, 0, 30}}) {
		t.Errorf("staggered-low: %v", got)
	}
	if p.Runs[0].Clients != 80 || p.Runs[1].Clients != 30 {
		t.Errorf("connections %d and %d", p.Runs[0].Clients, p.Runs[1].Clients)
	}
}

func TestSchedulePlan(t *testing.T) {
	s, p := mustExpandSpec(t, "name: t\n"+`tenancy: {tenants: 3}
workload:
  name: tpcb
  warmup: 10s
  schedule:
    slot: 20s
    slots: [4, 0, 8]
    stagger: 5s
    tenants:
      - {stages: [{duration: 0s, target: 2}, {duration: 60s, target: 6}], start: 0s}
      - {stop: 40s}
`)
	r := p.Runs[0]
	lp := s.LoadPlan(&r)
	if r.Clients != 8 {
		t.Errorf("connections %d, want the most clients, 8", r.Clients)
	}
	t0, t1, t2 := lp.Tenants[0], lp.Tenants[1], lp.Tenants[2]
	if t0.Profile.At(30*time.Second) != 4 || len(t0.Windows) != 1 || t0.Conns != 6 {
		t.Errorf("tenant 1 ramps 2 -> 6 over its one stage: %+v", t0)
	}
	if t1.Profile.At(4*time.Second) != 0 || t1.Profile.At(5*time.Second) != 4 || t1.Profile.At(45*time.Second) != 0 {
		t.Errorf("tenant 2 starts at 5 s (stagger) and stops at 40 s: %+v", t1.Profile)
	}
	if t2.Profile.At(9*time.Second) != 0 || t2.Profile.At(10*time.Second) != 4 || t2.Profile.At(59*time.Second) != 8 {
		t.Errorf("tenant 3 starts at 10 s: %+v", t2.Profile)
	}
	if !reflect.DeepEqual(t2.Windows, []time.Duration{0, 20 * time.Second, 40 * time.Second}) {
		t.Errorf("windows %v", t2.Windows)
	}
}

// Oracle 2014, Test 4: the same sinusoid for every tenant, shifted.
func TestSinusoidPlan(t *testing.T) {
	s, p := mustExpandSpec(t, "name: t\n"+`tenancy: {tenants: 2}
workload:
  name: tpcb
  duration: 2m
  clients: 2
  load: {shape: open}
  schedule:
    slot: 30s
    sinusoid: {mean: 100, amplitude: 50, period: 60s, shift: 15s}
`)
	r := p.Runs[0]
	lp := s.LoadPlan(&r)
	a, b := lp.Tenants[0].Profile, lp.Tenants[1].Profile
	if a.At(15*time.Second) != 150 || b.At(30*time.Second) != 150 || b.At(15*time.Second) != 100 {
		t.Errorf("peaks: tenant 1 at 15 s %v, tenant 2 at 30 s %v", a.At(15*time.Second), b.At(30*time.Second))
	}
	if r.Clients != 4 || len(lp.Tenants[0].Windows) != 4 {
		t.Errorf("pool %d, windows %v", r.Clients, lp.Tenants[0].Windows)
	}
}

// Bad input: every mistake is reported with its path
// before anything starts.
func TestLoadProblems(t *testing.T) {
	for _, c := range []struct {
		name, src, path, value, allows string
	}{
		{"rate zero", "load: {shape: open, rate: 0}", "workload.load.rate", "0", "greater than 0"},
		{"rate negative in list", "load: {shape: open, rate: [10, -5]}", "workload.load.rate[1]", "-5", "greater than 0"},
		{"rate text", "load: {shape: open, rate: fast}", "workload.load.rate", "fast", "must be a number"},
		{"rate missing", "load: {shape: open}", "workload.load.rate", "", "required for shape: open"},
		{"rate with closed", "load: {rate: 5}", "workload.load.rate", "", "applies to shape: open only"},
		{"think with open", "load: {shape: open, rate: 5, think: 1s}", "workload.load.think", "", "applies to shape: closed only"},
		{"shape", "load: {shape: ajar}", "workload.load.shape", "ajar", "must be closed or open"},
		{"arrivals", "load: {shape: open, rate: 5, arrivals: bursty}", "workload.load.arrivals", "bursty", "must be poisson or uniform"},
		{"on_full", "load: {shape: open, rate: 5, on_full: wait}", "workload.load.on_full", "wait", "must be queue or drop"},
		{"pool with clients", "clients: 4\n  load: {shape: open, rate: 5, pool: 8}", "workload.clients", "", "has no use"},
		{"clients with schedule", "clients: 4\n  schedule: {slots: [1, 2]}\n  duration: 2m", "workload.clients", "", "sets the clients"},
		{"slot negative", "schedule: {slot: 60s, slots: [1, -2, 3]}\n  duration: 3m", "workload.schedule.slots[1]", "-2", "0 or more"},
		{"slot not a number", "schedule: {slots: [1, x, 3]}\n  duration: 3m", "workload.schedule.slots[1]", "x", "must be a number"},
		{"slot fraction of a client", "schedule: {slots: [1.5]}", "workload.schedule.slots[0]", "1.5", "whole number of clients"},
		{"slot length", "schedule: {slot: 1.5s, slots: [1]}", "workload.schedule.slot", "1.5s", "whole number of seconds"},
		{"schedule too short", "schedule: {slots: [1, 2]}\n  duration: 1m", "workload.schedule.slots", "", "lasts 2m (2 slots of 1m) but the workload phase lasts 1m"},
		{"two kinds", "schedule: {slots: [1], stages: [{duration: 1m, target: 2}]}", "workload.schedule", "", "one of slots, stages and sinusoid"},
		{"stage target", "schedule: {stages: [{duration: 1m, target: -1}]}", "workload.schedule.stages[0].target", "-1", "0 or more"},
		{"amplitude", "schedule: {sinusoid: {mean: 5, amplitude: 6, period: 1m}}", "workload.schedule.sinusoid.amplitude", "6", "0..mean"},
		{"stop before start", "schedule: {start: 30s, stop: 20s}", "workload.schedule.stop", "20s", "after start"},
		{"stagger too long", "schedule: {stagger: 30s}\ntenancy: {tenants: 3}", "workload.schedule.stagger", "30s", "tenant 3 of 3 would start at 1m"},
		{"too many tenant schedules", "schedule: {tenants: [{start: 1s}, {start: 2s}, {start: 3s}]}\ntenancy: {tenants: [2, 4]}", "workload.schedule.tenants", "", "the run with 2 tenants has only 2"},
		{"tau missing", "pattern: {name: single-peak}", "workload.pattern.tau", "", "required"},
		{"tau text", "pattern: {name: single-peak, tau: lots}", "workload.pattern.tau", "lots", "must be a number"},
		{"pattern unknown", "pattern: {name: double-peak, tau: 5}\n  duration: 3m", "workload.pattern.name", "double-peak", "must be one of single-peak"},
		{"custom negative", "pattern: {name: custom, tau: 10, levels: [10, -5]}\n  duration: 2m", "workload.pattern.levels[1]", "-5", "0 or more"},
		{"custom not numeric", "pattern: {name: custom, tau: 10, levels: [10, ten]}\n  duration: 2m", "workload.pattern.levels[1]", "ten", "must be a number"},
		{"custom too many tenants", "pattern: {name: custom, tau: 10, tenants: [[1], [2], [3]]}\n  duration: 1m\ntenancy: {tenants: 2}", "workload.pattern.tenants", "", "the run has 2 tenants"},
		{"shares count", "pattern: {name: high-contention, tau: 10, shares: [50, 50]}\n  duration: 3m\ntenancy: {tenants: 3}", "workload.pattern.shares", "", "2 shares for 3 tenants"},
		{"staggered-low many", "pattern: {name: staggered-low, tau: 10, slot: 1s}\n  duration: 12s\ntenancy: {tenants: 12}", "workload.pattern", "", "at most 9 tenants"},
		{"pattern length", "pattern: {name: single-peak, tau: 10}\n  duration: 1m", "workload.pattern", "", "lasts 3m"},
		{"shares unused", "pattern: {name: single-peak, tau: 10, shares: [100]}", "workload.pattern.shares", "", "not used by the pattern single-peak"},
		{"pattern and schedule", "pattern: {name: single-peak, tau: 10}\n  schedule: {stagger: 1s}", "workload.pattern", "", "cannot be combined"},
		{"pattern rounds to nothing", "pattern: {name: large-spike, tau: 0.4}", "workload.pattern.tau", "0.4", "gives no load at all"},
		{"pattern too big", "pattern: {name: single-peak, tau: 20000}", "workload.pattern.tau", "20000", "peaks at 20000 clients"},
		{"unknown key", "schedule: {slotz: [1]}", "workload.schedule.slotz", "", "did you mean slot?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "name: t\nworkload:\n  name: tpcb\n  " + c.src + "\n"
			_, problems := Parse([]byte(src))
			var p *Problem
			for i := range problems {
				if problems[i].Path == c.path {
					p = &problems[i]
				}
			}
			if p == nil {
				t.Fatalf("no problem at %s; got:\n%s", c.path, joinProblems(problems))
			}
			if p.Value != c.value || !strings.Contains(p.Allowed, c.allows) {
				t.Errorf("got %q (value %q)\nwant value %q, allowed containing %q", p.Error(), p.Value, c.value, c.allows)
			}
			if len(problems) > 1 {
				t.Logf("also: %s", joinProblems(problems))
			}
		})
	}
}

func TestLoadRoundTrip(t *testing.T) {
	for _, src := range []string{
		"name: t\nworkload:\n  name: tpcb\n  load: {shape: open, rate: [10, 20], pool: 4, on_full: drop}\n",
		"name: t\nworkload:\n  name: tpcb\n  load: {think: 10ms}\n  schedule:\n    slot: 30s\n    slots: [1, 0, 2]\n    stagger: 5s\n    tenants: [{slots: [3, 3, 3], start: 0s}, {stop: 1m}]\ntenancy: {tenants: 3}\n",
		"name: t\nworkload:\n  name: tpcb\n  schedule: {stages: [{duration: 10s, target: 5}, {duration: 50s, target: 1}]}\n",
		"name: t\nworkload:\n  name: tpcb\n  load: {shape: open}\n  schedule: {sinusoid: {mean: 10, amplitude: 5, period: 20s, shift: 2s}}\n",
		"name: t\nworkload:\n  name: tpcb\n  pattern: {name: [high-contention, custom], tau: 30, shares: [20, 80], tenants: [[10, 20, 30]]}\ntenancy: {tenants: 2}\n",
	} {
		roundTrip(t, mustParse(t, src))
	}
}

// Validate checks specs built in Go too.
func TestValidateLoadSpecs(t *testing.T) {
	s := valid()
	s.Workload.Pattern = &Pattern{Name: Strings{"single-peak"}, Slot: Duration(time.Minute), Slots: 3, Delta: 20}
	s.Workload.Duration = Duration(3 * time.Minute)
	problems := Validate(s)
	if len(problems) != 1 || problems[0].Path != "workload.pattern.tau" {
		t.Errorf("want tau required, got:\n%s", joinProblems(problems))
	}
	s.Workload.Pattern.Tau = 5
	if problems := Validate(s); len(problems) > 0 {
		t.Errorf("valid pattern: %s", joinProblems(problems))
	}
	s.Workload.Load = LoadShape{Shape: "open", Rate: Floats{}}
	s.Workload.Pattern = nil
	s.Workload.Duration = Duration(time.Minute)
	if problems := Validate(s); len(problems) != 1 || !strings.Contains(problems[0].Allowed, "must not be an empty list") {
		t.Errorf("empty rate list: %s", joinProblems(problems))
	}
}
