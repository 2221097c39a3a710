package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/isolation"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// accepter is a tenancy model that holds only some workloads (the
// shared-table model needs tables with a tenant key).
type accepter interface {
	// Accepts says why the model cannot hold w, "" when it can.
	Accepts(w workload.Workload) string
}

// perServer is how many tenants share one server of model m.
func perServer(m tenancy.Model, tenants int) int {
	n := max(1, m.Instances(tenants))
	return (tenants + n - 1) / n
}

// neededConnections is the least max_connections one server of a run
// needs when its tenants are alike: serverConnections of its tenants.
func neededConnections(m tenancy.Model, eng engine.Engine, guards []string, tenants, clients int, audit bool) int {
	each := make([]int, perServer(m, tenants))
	for i := range each {
		each[i] = clients
	}
	return serverConnections(eng, guards, each, audit)
}

// serverConnections is the least max_connections of a server whose
// tenants open conns connections each: their sum (with each tenant's
// connection_limit margin when that guard is on) plus the connections the
// engine reserves. It counts a tenant's connections as every connection it
// opens at once, ingest included: whoever loads data must stay within
// that. The isolation audit (audit) runs after the workload with the
// tenants' own sessions, isolation.Sessions at most at once on a server.
func serverConnections(eng engine.Engine, guards []string, conns []int, audit bool) int {
	n := 0
	for _, c := range conns {
		n += tenancy.GuardedConns(guards, c)
	}
	if audit {
		n = max(n, isolation.Sessions)
	}
	return n + eng.ConnectionReserve()
}

// checkGuards checks tenancy.guards against the guards tenancy has: each
// known, none twice.
func checkGuards(s *spec.Spec) []spec.Problem {
	var out []spec.Problem
	seen := map[string]bool{}
	for i, name := range s.Tenancy.Guards {
		path := spec.Index("tenancy.guards", i)
		switch _, ok := tenancy.LookupGuard(name); {
		case !ok:
			out = append(out, spec.Problem{Path: path, Value: spec.Shown(name), Allowed: spec.OneOf(name, tenancy.GuardNames())})
		case seen[name]:
			out = append(out, spec.Problem{Path: path, Value: spec.Shown(name), Allowed: "is listed twice; list each guard once"})
		}
		seen[name] = true
	}
	return out
}

// checkModels checks every tenancy.model against the registry, and that
// the model can run on each engine of sut.engine and hold the workload.
func checkModels(s *spec.Spec, regs Registries, engs engines) []spec.Problem {
	var out []spec.Problem
	var w workload.Workload // built once, when a model asks
	for i, name := range s.Tenancy.Model {
		path := spec.Index("tenancy.model", i)
		m, ok := regs.Models[name]
		if !ok {
			out = append(out, spec.Problem{Path: path, Value: name, Allowed: spec.OneOf(name, regs.Models.Names())})
			continue
		}
		refused := false
		engs.each(s, func(_ string, eng engine.Engine) {
			if why := tenancy.AcceptsEngine(m, eng); why != "" {
				refused = true
				out = append(out, spec.Problem{Path: path, Value: name, Allowed: fmt.Sprintf("%s (sut.engine is %s; models it runs: %s)",
					why, eng.Name(), strings.Join(enginesModels(regs.Models, eng), ", "))})
			}
		})
		if refused {
			continue
		}
		a, ok := m.(accepter)
		if !ok {
			continue
		}
		if w == nil {
			var err error
			if w, err = regs.Workloads.Build(&s.Workload, 1); err != nil {
				continue // the workload's own check reports it
			}
		}
		if why := a.Accepts(w); why != "" {
			out = append(out, spec.Problem{Path: path, Value: name, Allowed: fmt.Sprintf("%s: %s (workload.name is %s)",
				why, strings.Join(accepted(a, regs.Workloads), ", "), s.Workload.Name)})
		}
	}
	return out
}

// checkEngineForms checks that the workload has a form for the engine
// (workload.RunsOn) and that the isolation audit can probe it
// (isolation.RunsOn); eng is nil when sut.engine is unknown.
func checkEngineForms(s *spec.Spec, regs Registries, name string, eng engine.Engine) []spec.Problem {
	if eng == nil {
		return nil
	}
	var out []spec.Problem
	// The options as this engine's runs take them: its sections merged in.
	view := s.Workload.ForEngine(name)
	if w, err := regs.Workloads.Build(view, 1); err == nil && !workload.RunsOn(w, eng) {
		var on []string
		for _, name := range regs.Workloads.Names() {
			if o, err := regs.Workloads.Build(&spec.Workload{Name: name}, 1); err == nil && workload.RunsOn(o, eng) {
				on = append(on, name)
			}
		}
		out = append(out, spec.Problem{Path: "workload.name", Value: s.Workload.Name, Allowed: fmt.Sprintf(
			"has no form for %s (sut.engine); workloads that run on %s: %s", eng.Name(), eng.Name(), strings.Join(on, ", "))})
	} else if err == nil {
		for _, p := range regs.Workloads.CheckEngineOptions(view, eng) {
			p.Path = s.Workload.EngineOptionPath(name, p.Path)
			if len(s.SUT.Engine) > 1 && !strings.Contains(p.Path, "."+name+".") {
				p.Allowed += fmt.Sprintf("; or give %s's runs their own value under %s (the other engines keep theirs)",
					name, spec.OptionsSection(p.Path, name))
			}
			out = append(out, p)
		}
	}
	if s.Tenancy.Isolation == spec.IsolationAudit && !isolation.RunsOn(eng) {
		out = append(out, spec.Problem{Path: "tenancy.isolation", Value: s.Tenancy.Isolation, Allowed: fmt.Sprintf(
			"the isolation audit's probes are written for PostgreSQL; with %s (sut.engine) use off", eng.Name())})
	}
	return out
}

// enginesModels are the registered models that run on eng.
func enginesModels(models tenancy.Models, eng engine.Engine) []string {
	var out []string
	for _, name := range models.Names() {
		if tenancy.AcceptsEngine(models[name], eng) == "" {
			out = append(out, name)
		}
	}
	return out
}

// accepted are the registered workloads model a can hold, at their
// default options.
func accepted(a accepter, reg workload.Registry) []string {
	var out []string
	for _, name := range reg.Names() {
		w, err := reg.Build(&spec.Workload{Name: name}, 1)
		if err == nil && a.Accepts(w) == "" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// checkDivide: with sut.resources.divide a model of several servers gives
// each a share of the totals, which must still run a server.
func checkDivide(s *spec.Spec, regs Registries, eng engine.Engine) []spec.Problem {
	r := s.SUT.Resources
	least := spec.ByteSize(eng.MinMemory())
	if !r.Divide || r.Memory < 0 || (r.Memory > 0 && r.Memory < least) {
		return nil
	}
	most := 0
	for _, t := range s.Tenancy.Tenants {
		if t >= 1 && t <= spec.MaxTenants && t > most {
			most = t
		}
	}
	if most == 0 {
		return nil
	}
	var out []spec.Problem
	done := map[string]bool{}
	for _, name := range s.Tenancy.Model {
		m, ok := regs.Models[name]
		if !ok {
			continue
		}
		n := m.Instances(most)
		if n < 2 {
			continue
		}
		if r.Memory > 0 && r.Memory/spec.ByteSize(n) < least && !done["memory"] {
			done["memory"] = true
			out = append(out, spec.Problem{Path: "sut.resources.memory", Value: r.Memory.String(), Allowed: fmt.Sprintf(
				"with divide: true the %s model gives each of %d servers %s; each needs at least %s, so give at least %s",
				name, n, (r.Memory / spec.ByteSize(n)).String(), least, least*spec.ByteSize(n))})
		}
		if r.CPUs > 0 && r.CPUs/float64(n) < spec.MinCPUs && !done["cpus"] {
			done["cpus"] = true
			out = append(out, spec.Problem{Path: "sut.resources.cpus", Value: fmt.Sprint(r.CPUs), Allowed: fmt.Sprintf(
				"with divide: true the %s model gives each of %d servers %.4g CPUs; each needs at least %g, so give at least %g",
				name, n, r.CPUs/float64(n), spec.MinCPUs, spec.MinCPUs*float64(n))})
		}
	}
	return out
}

// checkConnections checks a given max_connections of engine name (eng)
// against the runs that use it: one problem per too small value, naming
// the run that needs most. A case that sets max_connections or clients is
// checked with its own.
func checkConnections(s *spec.Spec, regs Registries, name string, eng engine.Engine) []spec.Problem {
	if s.Tenancy.Classes != nil {
		return nil // tenants differ: checkClassConnections, on the built plan
	}
	var out []spec.Problem
	for ci, c := range s.CaseList() {
		values, ok := s.SUT.SettingsOf(name)["max_connections"]
		base, single := s.SUT.SettingPath(name, "max_connections"), false
		if val, set := c.SettingsOf(name)["max_connections"]; set {
			values, ok = spec.Values{val}, true
			base, single = c.SettingPath(ci, name, "max_connections"), true
		}
		if !ok {
			continue
		}
		clients := []int(s.Workload.Clients)
		if c.Clients != nil {
			clients = []int{*c.Clients}
		}
		need, at := 0, ""
		for _, model := range s.Tenancy.Model {
			m := regs.Models[model]
			for _, t := range s.Tenancy.Tenants {
				for _, cl := range clients {
					// With a schedule, a pattern or an open load, the run's
					// connections per tenant come from the load.
					for _, conns := range s.Conns(&c, t, cl) {
						if n := neededConnections(m, eng, s.Tenancy.Guards, t, conns, s.Tenancy.Isolation == spec.IsolationAudit); n > need {
							need, at = n, fmt.Sprintf("model %s with %d tenants x %d clients", model, t, conns)
						}
					}
				}
			}
		}
		if c.Name != "" {
			at = "case " + c.Name + ", " + at
		}
		if len(s.SUT.Engine) > 1 {
			at = "engine " + name + ", " + at
		}
		if g := tenancy.GuardedConns(s.Tenancy.Guards, 0); g > 0 {
			at += fmt.Sprintf(", each tenant's CONNECTION LIMIT %d above its clients (tenancy.guards: %s)", g, tenancy.GuardConnectionLimit)
		}
		for i, val := range values {
			path := spec.Index(base, i)
			if single {
				path = base
			}
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil {
				if val == "" || strings.ContainsAny(val, "\n\r\x00") {
					continue // the spec's own rule reports it
				}
				out = append(out, spec.Problem{Path: path, Value: spec.Shown(val),
					Allowed: "must be a whole number (tenantbench checks it against the connections each run needs)"})
				continue
			}
			if need > 0 && n < need {
				out = append(out, spec.Problem{Path: path, Value: spec.Shown(val), Allowed: fmt.Sprintf("too few: the run of %s needs at least %d "+
					"(clients of the tenants on one server + %d reserved); raise it or leave it out and tenantbench sets it",
					at, need, eng.ConnectionReserve())})
			}
		}
	}
	return out
}
