package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// checkPooler checks sut.pooler: a kind package pooler knows, one of its
// modes, a pool of at least one connection, a provider that can start it,
// an engine it can stand in front of, and the program installed. It
// returns the pooler the runs ask for, nil for none.
func checkPooler(s *spec.Spec, regs Registries, engs engines) (*pooler.Config, []spec.Problem) {
	p := s.SUT.Pooler
	if p == nil {
		return nil, nil
	}
	var out []spec.Problem
	k, ok := pooler.Lookup(p.Kind)
	if !ok {
		out = append(out, spec.Problem{Path: "sut.pooler.kind", Value: spec.Shown(p.Kind),
			Allowed: "must be one of " + strings.Join(pooler.Names(), ", ") + spec.Suggest(p.Kind, pooler.Names())})
	} else if !slices.Contains(k.Modes(), p.Mode) {
		out = append(out, spec.Problem{Path: "sut.pooler.mode", Value: spec.Shown(p.Mode),
			Allowed: "must be one of " + strings.Join(k.Modes(), ", ") + spec.Suggest(p.Mode, k.Modes())})
	}
	if p.PoolSize < 1 {
		out = append(out, spec.Problem{Path: "sut.pooler.pool_size", Value: fmt.Sprint(p.PoolSize),
			Allowed: "must be at least 1: the server connections of each tenant's pool"})
	}
	if f, ok := regs.Providers[s.SUT.Provider]; ok && !f.Pools {
		out = append(out, spec.Problem{Path: "sut.pooler", Value: p.Kind,
			Allowed: "provider " + s.SUT.Provider + " cannot start a connection pooler; remove sut.pooler"})
	}
	engs.each(s, func(_ string, eng engine.Engine) {
		if _, ok := eng.(engine.Pooled); !ok {
			out = append(out, spec.Problem{Path: "sut.pooler", Value: p.Kind,
				Allowed: "engine " + eng.Name() + " cannot run behind a connection pooler; remove sut.pooler"})
		}
	})
	if k != nil && len(out) == 0 {
		out = append(out, checkUnnamed(s, regs, k)...)
	}
	if len(out) > 0 {
		return nil, out
	}
	return poolerOf(s), nil
}

// checkUnnamed finds the pooler's program and, when the installed
// version cannot keep a client's named prepared statements in the mode
// asked (pgbouncer before 1.21 in transaction mode), refuses each
// workload of the spec whose clients cannot run theirs unnamed
// (workload.RunsUnnamed).
func checkUnnamed(s *spec.Spec, regs Registries, k pooler.Kind) []spec.Problem {
	p := s.SUT.Pooler
	bin, err := k.Find()
	if err != nil {
		return []spec.Problem{{Path: "sut.pooler.kind", Value: p.Kind, Allowed: err.Error()}}
	}
	version, err := k.Version(bin)
	if err != nil {
		return []spec.Problem{{Path: "sut.pooler.kind", Value: p.Kind, Allowed: err.Error()}}
	}
	if k.NamedStatements(version, p.Mode) {
		return nil
	}
	names := map[string]string{s.Workload.Name: "workload.name"}
	for i, c := range s.Tenancy.Classes {
		if c.Workload != "" {
			names[c.Workload] = spec.Join(spec.Index("tenancy.classes", i), "workload")
		}
	}
	var can []string
	for _, name := range regs.Workloads.Names() {
		if w, err := regs.Workloads.Build(&spec.Workload{Name: name}, 1); err == nil && workload.RunsUnnamed(w) {
			can = append(can, name)
		}
	}
	var out []spec.Problem
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if slices.Contains(can, name) {
			continue
		}
		if _, err := regs.Workloads.Build(&spec.Workload{Name: name}, 1); err != nil {
			continue // the workload's own check names it
		}
		out = append(out, spec.Problem{Path: names[name], Value: name, Allowed: fmt.Sprintf(
			"prepares named statements that %s %s cannot keep in %s mode (1.21 and later can); use sut.pooler.mode session, or a workload that runs its statements unnamed: %s",
			p.Kind, version, p.Mode, strings.Join(can, ", "))})
	}
	return out
}

// poolerOf is the checked sut.pooler as plan.json records it.
func poolerOf(s *spec.Spec) *pooler.Config {
	if p := s.SUT.Pooler; p != nil {
		return &pooler.Config{Kind: p.Kind, Mode: p.Mode, PoolSize: p.PoolSize}
	}
	return nil
}

// checkPoolSize refuses a pool that holds fewer server connections than
// a tenant has clients in a mode where each client holds one for its
// whole session: the clients beyond the pool would wait for a session
// to end, and the driver's clients never end theirs.
func checkPoolSize(p *Plan) []spec.Problem {
	c := p.Pooler
	if c == nil {
		return nil
	}
	k, ok := pooler.Lookup(c.Kind)
	if !ok || !k.Holds(c.Mode) {
		return nil
	}
	most := 0
	for _, r := range p.Runs {
		for _, t := range r.TenantList {
			most = max(most, t.Conns)
		}
	}
	if most <= c.PoolSize {
		return nil
	}
	return []spec.Problem{{Path: "sut.pooler.pool_size", Value: fmt.Sprint(c.PoolSize), Allowed: fmt.Sprintf(
		"must be at least %d, the most connections a tenant opens: in %s mode each client holds a server connection for its whole session, and the others would wait for ever; or use mode transaction",
		most, c.Mode)}}
}

// checkSessionState refuses, behind a pooler whose mode keeps no session
// for a client (pgbouncer's transaction mode), a workload option that
// keeps state in the session (workload.SessionBound): the state would
// stay on one server connection while the client's transactions move
// between them. Each tenant's workload is asked as it builds it, case
// and class options merged; one problem per option path.
func checkSessionState(p *Plan, regs Registries) []spec.Problem {
	c := p.Pooler
	if c == nil || p.Spec == nil {
		return nil
	}
	k, ok := pooler.Lookup(c.Kind)
	if !ok || k.Holds(c.Mode) {
		return nil
	}
	classes := map[string]int{}
	for i, cl := range p.Spec.Tenancy.Classes {
		classes[cl.Name] = i
	}
	var out []spec.Problem
	seen := map[string]bool{}
	for ri := range p.Runs {
		r := &p.Runs[ri]
		for i, tw := range p.TenantWorkloads(r) {
			w, err := regs.Workloads.Build(tw.Spec, tw.Scale)
			if err != nil {
				continue // the workload's own check names it
			}
			sb, ok := w.(workload.SessionBound)
			if !ok {
				continue
			}
			option, value, why := sb.SessionState()
			if option == "" {
				continue
			}
			path := "workload.options"
			if i < len(r.TenantList) {
				if ci, ok := classes[r.TenantList[i].Class]; ok && r.TenantList[i].Class != "" {
					path = spec.Join(spec.Index("tenancy.classes", ci), "options")
				}
			}
			path = spec.Join(path, option)
			if seen[path+"="+value] {
				continue
			}
			seen[path+"="+value] = true
			out = append(out, spec.Problem{Path: path, Value: value, Allowed: fmt.Sprintf(
				"%s in %s mode: %s", c.Kind, c.Mode, why)})
		}
	}
	return out
}
