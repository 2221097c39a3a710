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

// checkPoolers checks the pooler of each placement (spec.SUT.Placements:
// sut.pooler, or each of sut.placement's), one problem a path.
func checkPoolers(s *spec.Spec, regs Registries, engs engines) []spec.Problem {
	var out []spec.Problem
	seen := map[string]bool{}
	for i, pl := range s.SUT.Placements() {
		for _, pr := range checkPooler(s, pl.Pooler, s.SUT.PlacementPath(i), regs, engs) {
			// Two placements in a mode that cannot keep named statements
			// refuse the same workload at the same path.
			if k := pr.Path + "\x00" + pr.Allowed; !seen[k] {
				seen[k] = true
				out = append(out, pr)
			}
		}
	}
	return out
}

// checkPooler checks pooler p of a placement written at path ("sut" or
// "sut.placement[1]"): a kind package pooler knows, one of its modes, a
// pool of at least one connection, a provider that can start it, an
// engine it can stand in front of, and the program installed.
func checkPooler(s *spec.Spec, p *spec.Pooler, path string, regs Registries, engs engines) []spec.Problem {
	if p == nil {
		return nil
	}
	at := func(key string) string { return spec.Join(path, key) }
	var out []spec.Problem
	k, ok := pooler.Lookup(p.Kind)
	if !ok {
		out = append(out, spec.Problem{Path: at("pooler.kind"), Value: spec.Shown(p.Kind),
			Allowed: "must be one of " + strings.Join(pooler.Names(), ", ") + spec.Suggest(p.Kind, pooler.Names())})
	} else if !slices.Contains(k.Modes(), p.Mode) {
		out = append(out, spec.Problem{Path: at("pooler.mode"), Value: spec.Shown(p.Mode),
			Allowed: "must be one of " + strings.Join(k.Modes(), ", ") + spec.Suggest(p.Mode, k.Modes())})
	}
	if p.PoolSize < 1 {
		out = append(out, spec.Problem{Path: at("pooler.pool_size"), Value: fmt.Sprint(p.PoolSize),
			Allowed: "must be at least 1: the server connections of each tenant's pool"})
	}
	if f, ok := regs.Providers[s.SUT.Provider]; ok && !f.Pools {
		out = append(out, spec.Problem{Path: at("pooler"), Value: p.Kind,
			Allowed: "provider " + s.SUT.Provider + " cannot start a connection pooler; remove " + at("pooler")})
	}
	engs.each(s, func(_ string, eng engine.Engine) {
		if _, ok := eng.(engine.Pooled); !ok {
			out = append(out, spec.Problem{Path: at("pooler"), Value: p.Kind,
				Allowed: "engine " + eng.Name() + " cannot run behind a connection pooler; remove " + at("pooler")})
		}
	})
	if k != nil && len(out) == 0 {
		out = append(out, checkUnnamed(s, p, path, regs, k)...)
	}
	return out
}

// checkUnnamed finds the pooler's program and, when the installed
// version cannot keep a client's named prepared statements in the mode
// asked (pgbouncer before 1.21 in transaction mode), refuses each
// workload of the spec whose clients cannot run theirs unnamed
// (workload.RunsUnnamed).
func checkUnnamed(s *spec.Spec, p *spec.Pooler, path string, regs Registries, k pooler.Kind) []spec.Problem {
	version, err := installed(k)
	if err != nil {
		return []spec.Problem{{Path: spec.Join(path, "pooler.kind"), Value: p.Kind, Allowed: err.Error()}}
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
	for i := range s.Workload.Cases {
		if c := &s.Workload.Cases[i]; c.OwnWorkload(&s.Workload) {
			names[c.Workload] = spec.Join(spec.Index("workload.cases", i), "workload")
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
			"prepares named statements that %s %s cannot keep in %s mode (1.21 and later can); use %s session, or a workload that runs its statements unnamed: %s",
			p.Kind, version, p.Mode, spec.Join(path, "pooler.mode"), strings.Join(can, ", "))})
	}
	return out
}

// installed is the version of pooler k's program on this machine, which
// says whether it keeps named statements (pooler.Kind.NamedStatements).
func installed(k pooler.Kind) (string, error) {
	bin, err := k.Find()
	if err != nil {
		return "", err
	}
	return k.Version(bin)
}

// poolerOf is a checked pooler as plan.json records it, nil for none.
func poolerOf(p *spec.Pooler) *pooler.Config {
	if p != nil {
		return &pooler.Config{Kind: p.Kind, Mode: p.Mode, PoolSize: p.PoolSize}
	}
	return nil
}

// checkPoolSize refuses a pool that holds fewer server connections than
// a tenant has clients in a mode where each client holds one for its
// whole session: the clients beyond the pool would wait for a session
// to end, and the driver's clients never end theirs. Each placement's
// pooler is held against its own runs.
func checkPoolSize(p *Plan) []spec.Problem {
	type need struct {
		c    *pooler.Config
		most int
	}
	byPlace := map[string]*need{}
	var order []string
	for _, r := range p.Runs {
		c := r.Pooler
		if c == nil {
			continue
		}
		if k, ok := pooler.Lookup(c.Kind); !ok || !k.Holds(c.Mode) {
			continue
		}
		n := byPlace[r.Placement]
		if n == nil {
			n = &need{c: c}
			byPlace[r.Placement] = n
			order = append(order, r.Placement)
		}
		for _, t := range r.TenantList {
			n.most = max(n.most, t.Conns)
		}
	}
	var out []spec.Problem
	for _, name := range order {
		n := byPlace[name]
		if n.most <= n.c.PoolSize {
			continue
		}
		out = append(out, spec.Problem{Path: spec.Join(p.placementPath(name), "pooler.pool_size"), Value: fmt.Sprint(n.c.PoolSize), Allowed: fmt.Sprintf(
			"must be at least %d, the most connections a tenant opens: in %s mode each client holds a server connection for its whole session, and the others would wait for ever; or use mode transaction",
			n.most, n.c.Mode)})
	}
	return out
}

// checkSessionState refuses, behind a pooler whose mode keeps no session
// for a client (pgbouncer's transaction mode), a workload option that
// keeps state in the session (workload.SessionBound): the state would
// stay on one server connection while the client's transactions move
// between them. Each tenant's workload is asked as it builds it, case
// and class options merged; one problem per option path.
func checkSessionState(p *Plan, regs Registries) []spec.Problem {
	if p.Spec == nil {
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
		c := r.Pooler
		if c == nil {
			continue
		}
		if k, ok := pooler.Lookup(c.Kind); !ok || k.Holds(c.Mode) {
			continue
		}
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
			where := ""
			if r.Placement != "" {
				where = " (placement " + r.Placement + ")"
			}
			out = append(out, spec.Problem{Path: path, Value: value, Allowed: fmt.Sprintf(
				"%s in %s mode%s: %s", c.Kind, c.Mode, where, why)})
		}
	}
	return out
}

// checkReplicaNames refuses workload.reads: replicas behind a pooler
// that cannot keep named statements in its mode (pooler.Kind.
// NamedStatements with the installed version: pgbouncer before 1.21 in
// transaction mode) for a run with replicas and a tenant whose workload
// reads there with named statements (workload.NamedReplicaReads): its
// clients would fail as they connect. The problem is at workload.reads
// and names the pooler's mode at its placement's path, and the tenant's
// workload where a class or case writes it. (A workload that reads the
// replicas by design, workload.ReplicaUser, must run its statements
// unnamed behind such a pooler in the first place: checkUnnamed.)
func checkReplicaNames(p *Plan, regs Registries) []spec.Problem {
	if p.Spec == nil || p.Reads != spec.ReadsReplicas {
		return nil
	}
	versions := map[string]string{}
	var out []spec.Problem
	seen := map[string]bool{}
	for ri := range p.Runs {
		r := &p.Runs[ri]
		c := r.Pooler
		if c == nil || r.Replicas == 0 {
			continue
		}
		k, ok := pooler.Lookup(c.Kind)
		if !ok {
			continue // checkPooler names it
		}
		version, ok := versions[c.Kind]
		if !ok {
			var err error
			if version, err = installed(k); err != nil {
				continue // checkUnnamed names it
			}
			versions[c.Kind] = version
		}
		if k.NamedStatements(version, c.Mode) {
			continue
		}
		mode := spec.Join(p.placementPath(r.Placement), "pooler.mode")
		for i, tw := range p.TenantWorkloads(r) {
			w, err := regs.Workloads.Build(tw.Spec, tw.Scale)
			if err != nil {
				continue // the workload's own check names it
			}
			why := workload.ReplicaReadsNamed(w)
			if why == "" {
				continue
			}
			name := tw.Spec.Name
			if at := p.tenantWorkloadPath(r, i); at != "workload.name" {
				name += " (" + at + ")"
			}
			if seen[name+"\x00"+mode] {
				continue
			}
			seen[name+"\x00"+mode] = true
			out = append(out, spec.Problem{Path: "workload.reads", Value: p.Reads, Allowed: fmt.Sprintf(
				"workload %s cannot read the replicas behind %s %s in %s mode (%s), which keeps no named statement: %s; use workload.reads %s, %s session, or no pooler",
				name, c.Kind, version, c.Mode, mode, why, spec.ReadsPrimary, mode)})
		}
	}
	return out
}

// tenantWorkloadPath is where tenant i of run r has its workload written:
// its class's own workload, else its case's, else workload.name. (A
// problem about it is written at workload.reads, whose line the user
// reads; this says which workload, when the spec has several.)
func (p *Plan) tenantWorkloadPath(r *Run, i int) string {
	s := p.Spec
	if i < len(r.TenantList) && r.TenantList[i].Class != "" {
		for ci, cl := range s.Tenancy.Classes {
			if cl.Name == r.TenantList[i].Class && cl.Workload != "" {
				return spec.Join(spec.Index("tenancy.classes", ci), "workload")
			}
		}
	}
	for ci := range s.Workload.Cases {
		if c := &s.Workload.Cases[ci]; c.Name == r.Case && c.OwnWorkload(&s.Workload) {
			return spec.Join(spec.Index("workload.cases", ci), "workload")
		}
	}
	return "workload.name"
}
