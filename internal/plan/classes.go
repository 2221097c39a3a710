package plan

import (
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// checkClasses checks what tenancy.classes asks of the registries: each
// class's workload name, its options and scale as that workload reads
// them, and that every tenancy model can hold every class's workload.
// The spec's own rules (names, shares, counts) are package spec's.
func checkClasses(s *spec.Spec, regs Registries) []spec.Problem {
	var out []spec.Problem
	main, mainErr := regs.Workloads.Build(&s.Workload, 1)
	for i, c := range s.Tenancy.Classes {
		p := spec.Index("tenancy.classes", i)
		own := c.Workload != "" && c.Workload != s.Workload.Name
		if own {
			if _, ok := regs.Workloads[c.Workload]; !ok {
				out = append(out, spec.Problem{Path: spec.Join(p, "workload"), Value: spec.Shown(c.Workload),
					Allowed: spec.OneOf(c.Workload, regs.Workloads.Names())})
				continue
			}
		}
		if !own && spec.IsNull(&c.Options) && c.Scale == nil {
			continue // the run's workload, checked as workload.*
		}
		w := classWorkload(s, &c)
		problems := regs.Workloads.Check(w)
		for _, pr := range problems {
			switch {
			case strings.HasPrefix(pr.Path, "workload.options"):
				rest := strings.TrimPrefix(pr.Path, "workload.options")
				if own || !spec.IsNull(&c.Options) {
					pr.Path = spec.Join(p, "options") + rest
					if !own {
						pr.Path += " with workload.options"
					}
				}
			case strings.HasPrefix(pr.Path, "workload.scale"):
				if c.Scale == nil {
					continue // the run's scale: reported as workload.scale
				}
				pr.Path = spec.Join(p, "scale")
			}
			out = append(out, pr)
		}
		if len(problems) > 0 || mainErr != nil {
			continue
		}
		cw, err := regs.Workloads.Build(w, 1)
		if err != nil {
			continue
		}
		out = append(out, holds(s, regs, p, &c, own, cw)...)
		_, streams := cw.(workload.Streamer)
		if _, mainStreams := main.(workload.Streamer); own && streams != mainStreams {
			out = append(out, spec.Problem{Path: spec.Join(p, "workload"), Value: c.Workload, Allowed: fmt.Sprintf(
				"query streams (which end a run when they are done) and transactions cannot be mixed in one run yet; "+
					"workload.name %s and this class's workload must both run query streams or neither", s.Workload.Name)})
		}
	}
	return out
}

// classWorkload is the workload a class's tenants build, as the registry
// checks it: its own name and options, or the run's options with the
// class's over them, and its scale.
func classWorkload(s *spec.Spec, c *spec.Class) *spec.Workload {
	w := s.Workload
	w.Cases = nil // checked as workload.cases
	if c.Workload != "" && c.Workload != s.Workload.Name {
		w.Name, w.Options = c.Workload, c.Options
	} else if !spec.IsNull(&c.Options) {
		w.Options = *spec.MergeOptions(&s.Workload.Options, &c.Options)
	}
	if c.Scale != nil {
		w.Scale = spec.Floats{*c.Scale}
	}
	return &w
}

// holds checks that every tenancy model can hold the class's workload:
// a model that accepts only some workloads is asked (accepter), and a
// model whose tenants share tables holds tenants of one workload, scale
// and options only.
func holds(s *spec.Spec, regs Registries, p string, c *spec.Class, own bool, cw workload.Workload) []spec.Problem {
	var out []spec.Problem
	for _, name := range s.Tenancy.Model {
		m, ok := regs.Models[name]
		if !ok {
			continue // checkModels reports it
		}
		if a, ok := m.(accepter); ok && own {
			if why := a.Accepts(cw); why != "" {
				out = append(out, spec.Problem{Path: spec.Join(p, "workload"), Value: c.Workload, Allowed: fmt.Sprintf(
					"the %s model cannot hold it: %s: %s", name, why, strings.Join(accepted(a, regs.Workloads), ", "))})
				continue
			}
		}
		if _, ok := m.(tenancy.TableSharer); ok {
			out = append(out, spec.Problem{Path: p, Value: c.Name, Allowed: fmt.Sprintf(
				"the %s model keeps every tenant in the same tables, so its tenants share one workload, scale and options; "+
					"a class there may change clients, rate and sla only", name)})
		}
	}
	return out
}

// checkClassConnections checks a max_connections the spec sets against
// each run's servers when tenants have classes (checkConnections counts
// tenants alike) or the run's fail-overs leave its clients more
// connections on one server (Run.FailoverShare): after the plan is built,
// it knows every server's need.
func checkClassConnections(p *Plan) []spec.Problem {
	if p.Spec == nil {
		return nil
	}
	classes := p.Spec.Tenancy.Classes != nil
	var out []spec.Problem
	seen := map[string]bool{}
	for _, r := range p.Runs {
		if !classes && r.FailoverShare <= 1 {
			continue
		}
		v, ok := r.Settings["max_connections"]
		if !ok {
			continue
		}
		path := settingPath(p.Spec, &r.Run, p.EngineOf(&r), "max_connections")
		if seen[path+"="+v] {
			continue
		}
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(v), &n); err != nil {
			continue // checkConnections reports it
		}
		why := "its tenants' classes"
		if r.FailoverShare > 1 {
			why = fmt.Sprintf("the replica connections its clients hold after its fail-overs (failover_share %d: %d times their own)",
				r.FailoverShare, r.FailoverShare)
		}
		for _, in := range r.Instances {
			if n < in.MaxConnections {
				seen[path+"="+v] = true
				out = append(out, spec.Problem{Path: path, Value: v, Allowed: fmt.Sprintf(
					"too few: run %s's server %s needs at least %d for %s; raise it or leave it out and tenantbench sets it",
					r.ID, in.Name, in.MaxConnections, why)})
				break
			}
		}
	}
	return out
}

// settingPath is where the spec writes run r's value of a setting of
// engine: its case's entry when the case sets it, else sut.settings (the
// list's element holding r's value when it is a list), so that a problem
// with the value names the line to change.
func settingPath(s *spec.Spec, r *spec.Run, engine, key string) string {
	if r.Case != "" {
		for i, c := range s.CaseList() {
			if _, set := c.SettingsOf(engine)[key]; set && c.Name == r.Case {
				return c.SettingPath(i, engine, key)
			}
		}
	}
	base := s.SUT.SettingPath(engine, key)
	for i, v := range s.SUT.SettingsOf(engine)[key] {
		if v == r.Settings[key] {
			return spec.Index(base, i)
		}
	}
	return base
}
