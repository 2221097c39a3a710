package plan

import (
	"fmt"
	"io"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// Probe is the spec's speed probe (spec.Probe): before every run or every
// round, what it measures.
type Probe struct {
	Every string `json:"every"`
	What  string `json:"what"`
}

// EveryRound says the probe runs once per round, before the round's first
// run, rather than before every run.
func (p *Probe) EveryRound() bool { return p.Every == spec.ProbeEveryRound }

// Loads counts how often the plan's runs load data from the generator.
// Every run starts servers of its own and provisions them (package
// provision): a run that clones loads its first tenant and copies it to
// the others, any other run loads every tenant. Nothing of a run is kept
// for the next, so a run loads the same whatever ran before it, and no
// order of the runs adds a load to the blocked order's.
type Loads struct {
	// Runs is how many runs load their data: every run.
	Runs int `json:"runs"`
	// Tenants is how many tenants load, in all; the others get a copy.
	Tenants int `json:"tenants"`
	// Reloads is how many loads the plan's order adds to the blocked
	// order's.
	Reloads int `json:"reloads"`
}

// loadsOf counts the loads of runs in their order, and those the order
// forces against the blocked order of the same runs.
func loadsOf(runs []Run) Loads {
	count := func(runs []Run) Loads {
		var l Loads
		for i := range runs {
			l.Runs++
			if runs[i].Provision == spec.ProvisionClone {
				l.Tenants++
			} else {
				l.Tenants += runs[i].Tenants
			}
		}
		return l
	}
	l, blocked := count(runs), count(blockedOrder(runs))
	l.Reloads = l.Tenants - blocked.Tenants
	return l
}

// blockedOrder is runs with each point's rounds back to back.
func blockedOrder(runs []Run) []Run {
	out := make([]Run, len(runs))
	copy(out, runs)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].Point < out[j-1].Point ||
			out[j].Point == out[j-1].Point && out[j].Round < out[j-1].Round); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// writeOrder says what the order costs in loading and when the probe
// runs, under the plan's table.
func (p *Plan) writeOrder(w io.Writer) error {
	l := p.Loads
	if p.Dimensions.Repeat > 1 || !p.OrderDefault {
		copies := ""
		if l.Tenants < sumTenants(p.Runs) {
			copies = fmt.Sprintf(", %d by copy", sumTenants(p.Runs)-l.Tenants)
		}
		if _, err := fmt.Fprintf(w, "data: every run starts its own servers and loads its data (%d tenant loads in %d runs%s); the %s order forces %d reload(s)\n",
			l.Tenants, l.Runs, copies, p.Order, l.Reloads); err != nil {
			return err
		}
	}
	if p.Probe != nil {
		when := "before every run"
		if p.Probe.EveryRound() {
			when = "before every round"
		}
		if _, err := fmt.Fprintf(w, "probe: %s, %s (probe.csv, results.csv host_speed)\n", p.Probe.What, when); err != nil {
			return err
		}
	}
	return nil
}

func sumTenants(runs []Run) int {
	n := 0
	for i := range runs {
		n += runs[i].Tenants
	}
	return n
}

// checkProbe refuses a tpcb probe when this tenantbench has no tpcb
// workload to run it with.
func checkProbe(s *spec.Spec, regs Registries) []spec.Problem {
	if s.Probe == nil || s.Probe.What != spec.ProbeTPCB {
		return nil
	}
	if _, ok := regs.Workloads[spec.ProbeWorkload]; ok {
		return nil
	}
	return []spec.Problem{{Path: "probe.what", Value: s.Probe.What,
		Allowed: "needs the " + spec.ProbeWorkload + " workload, which this tenantbench does not have; use cpu"}}
}
