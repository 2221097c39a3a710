package plan

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/provision"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Build reads the spec file at path and resolves it. Every problem is
// returned at once, each placed on its line of the file; the plan is nil
// when there is any.
func Build(path string, regs Registries) (*Plan, []spec.Problem) {
	s, pl, problems := spec.LoadPlaced(path)
	return resolve(s, pl, problems, regs, Here())
}

// BuildBytes is Build for a spec held in memory.
func BuildBytes(data []byte, regs Registries) (*Plan, []spec.Problem) {
	s, pl, problems := spec.ParsePlaced(data)
	return resolve(s, pl, problems, regs, Here())
}

// resolve runs the checks that need the registries and the machine on a
// parsed spec, then expands and resolves it. The checks of one layer run
// even when another found problems, so that a user sees every problem
// in one go; only the per-run checks wait for a valid spec.
func resolve(s *spec.Spec, pl spec.Placer, problems []spec.Problem, regs Registries, m Machine) (*Plan, []spec.Problem) {
	if s == nil {
		return nil, problems
	}
	engs, links, more := checkRegistered(s, regs, m)
	server, warnings := checkEngineServers(s, engs)
	if eng := engs.mostMemory(s); eng != nil {
		// The engine that needs most memory a server says whether a
		// divided limit is enough for every engine's runs.
		more = append(more, checkDivide(s, regs, eng)...)
	}
	var p *Plan
	if len(problems)+len(more) == 0 {
		sp := spec.ExpandValid(s)
		more = append(more, regs.Workloads.CheckPlan(sp)...)
		engs.each(s, func(name string, eng engine.Engine) {
			more = append(more, checkConnections(s, regs, name, eng)...)
		})
		if len(more) == 0 {
			var err error
			if p, err = build(s, sp, regs, engs, m); err != nil {
				more = append(more, spec.Problem{Path: "workload", Allowed: err.Error()})
			} else {
				setNetworks(p, links) // with the emulator chosen on this machine
				f := regs.Providers[p.Provider]
				// the user's servers and a cluster's pods are not this machine's processes
				more = append(more, checkMachine(p, engs, m, f.Servers || f.Cluster)...)
				more = append(more, checkInterference(p)...)
				more = append(more, checkClassConnections(p)...)
				more = append(more, checkPoolSize(p)...)
				more = append(more, checkVolumes(p, p.dataBytes, m)...)
				more = append(more, checkSessionState(p, regs)...)
				more = append(more, checkReplicaNames(p, regs)...)
			}
		}
	}
	for _, pr := range more {
		problems = append(problems, pl.Place(pr))
	}
	// The server refuses what another check refused already (a
	// max_connections that is not a number): one problem a path.
	seen := map[string]bool{}
	for _, pr := range problems {
		seen[pr.Path] = true
	}
	for _, pr := range server {
		if pr = pl.Place(pr); !seen[pr.Path] {
			problems = append(problems, pr)
		}
	}
	if len(problems) > 0 {
		spec.SortProblems(problems)
		return nil, problems
	}
	for _, w := range warnings {
		p.Warnings = append(p.Warnings, pl.Place(w))
	}
	spec.SortProblems(p.Warnings)
	return p, nil
}

// checkRegistered runs the checks that need the registries and the
// machine but not a valid spec: the engines and provider, the workload and
// its options, the tenancy models and the memory limit, each check that
// depends on the engine once per engine of sut.engine. It returns the
// engines the registry has.
func checkRegistered(s *spec.Spec, regs Registries, m Machine) (engines, map[string]*netns.Link, []spec.Problem) {
	engs, more := checkSUT(s, regs)
	more = append(more, checkServers(s, regs, engs)...)
	more = append(more, checkCluster(s, regs)...)
	more = append(more, checkProviderCan(s, regs, engs)...)
	more = suggestNames(more, map[string]suggestion{
		"sut.provider": {s.SUT.Provider, regs.Providers.Names()},
	})
	more = append(more, regs.Workloads.Check(&s.Workload)...)
	more = append(more, checkModels(s, regs, engs)...)
	engs.each(s, func(name string, eng engine.Engine) {
		more = append(more, checkEngineForms(s, regs, name, eng)...)
	})
	more = append(more, checkProbe(s, regs)...)
	more = append(more, checkPlacement(s, regs)...)
	more = append(more, checkElastic(s, regs)...)
	more = append(more, parseInterference(s)...)
	more = append(more, checkGuards(s)...)
	more = append(more, checkClasses(s, regs)...)
	more = append(more, checkCaseWorkloads(s, regs, engs)...)
	more = append(more, checkPoolers(s, regs, engs)...)
	links, bad := checkNetworks(s, regs, m)
	more = append(more, bad...)
	more = append(more, checkReplicas(s, regs, engs)...)
	return engs, links, append(more, checkMemory(s, regs, m)...)
}

// suggestion is a name as written and the names it must be one of.
type suggestion struct {
	value string
	names []string
}

// suggestNames adds "did you mean" to the problems of the paths of names
// that checkSUT refuses, so that every registry's names are suggested
// like the spec's own.
func suggestNames(problems []spec.Problem, names map[string]suggestion) []spec.Problem {
	for i, p := range problems {
		if n, ok := names[p.Path]; ok && !strings.Contains(p.Allowed, "did you mean") {
			problems[i].Allowed += spec.Suggest(n.value, n.names)
		}
	}
	return problems
}

// build resolves every run of the expanded spec.
func build(s *spec.Spec, sp *spec.Plan, regs Registries, engs engines, m Machine) (*Plan, error) {
	w := &s.Workload
	p := &Plan{Name: s.Name, Engine: s.SUT.Engine[0], Provider: s.SUT.Provider, Version: s.SUT.VersionOf(s.SUT.Engine[0]),
		Versions: versionsOf(s),
		Workload: w.Name, SettingKeys: sp.SettingKeys, InterferenceKeys: sp.InterferenceKeys, Spec: s,
		Resources: resourcesOf(s.SUT.Resources),
		Load:      loadOf(w),
		Pooler:    poolerOf(s.SUT.Pooler),
		Network:   networkOf(s.SUT.Network),
		Dimensions: Dimensions{Engines: enginesDimension(s), Models: s.Tenancy.Model, Tenants: s.Tenancy.Tenants, Scales: s.Workload.Scale,
			Clients: s.Workload.Clients, Repeat: s.Repeat, Cases: len(w.Cases),
			Storage: s.SUT.Storage.Kind, Volumes: s.SUT.Storage.Volume, CPUPolicies: s.SUT.Resources.CPUPolicy,
			Placements: placementNames(s)},
		Order: s.RunOrder(), OrderDefault: s.OrderDefaulted(), Servers: servers(s, regs), models: regs.Models,
		Cluster: clusterOf(s, regs)}
	if s.Probe != nil {
		p.Probe = &Probe{Every: s.Probe.Every, What: s.Probe.What}
	}
	var err error
	if p.StreamsEnd, err = streamsEnd(s, sp, regs); err != nil {
		return nil, err
	}
	rr := replicaReads(s, regs)
	p.Replication, p.Reads, p.ReplicaUser = rr.Replication, rr.Reads, rr.ReplicaUser
	for i := range sp.Runs {
		r, err := resolveRun(s, &sp.Runs[i], regs, engs[sp.Runs[i].Engine], m, rr)
		if err != nil {
			return nil, err
		}
		d, err := sizeVolumes(s, &sp.Runs[i], &r, regs)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID, err)
		}
		if d > 0 {
			if p.dataBytes == nil {
				p.dataBytes = map[string]int64{}
			}
			p.dataBytes[r.ID] = d
		}
		p.Runs = append(p.Runs, r)
	}
	p.Loads = loadsOf(p.Runs)
	return p, nil
}

// enginesDimension is sut.engine when it lists several engines, nil
// with one (plan.json then reads as before: the plan's engine).
func enginesDimension(s *spec.Spec) []string {
	if len(s.SUT.Engine) > 1 {
		return s.SUT.Engine
	}
	return nil
}

// resolveRun is one run with its instances, tenants and options, on its
// engine eng; reads is replicaReads' answer for the spec.
func resolveRun(s *spec.Spec, sr *spec.Run, regs Registries, eng engine.Engine, m Machine, reads *Plan) (Run, error) {
	model := regs.Models[sr.Model]
	place, _ := s.SUT.PlacementOf(sr.Placement)
	r := Run{Run: *sr, Workload: s.WorkloadOf(sr).Name, WarmupS: s.Workload.Warmup.D().Seconds(),
		DurationS: s.Workload.Duration.D().Seconds(), Transport: place.Transport, Isolation: s.Tenancy.Isolation,
		Guards: s.Tenancy.Guards, Pooler: poolerOf(place.Pooler), Network: networkOf(place.Network)}
	st := provision.Choose(model, eng, s.Workload.Provision, sr.Tenants, regs.Providers[s.SUT.Provider].Clones)
	r.Provisioning, r.Provision = st.Name(), spec.ProvisionLoad
	if st.Clones() {
		r.Provision = spec.ProvisionClone
	}
	node := &s.Workload.Options
	if sr.Options != nil {
		node = sr.Options
	}
	if node.Kind != 0 {
		b, err := yaml.Marshal(node)
		if err != nil {
			return r, fmt.Errorf("run %s: workload.options: %w", sr.ID, err)
		}
		r.Options = string(b)
	}
	var err error
	if r.Interaction, err = interactionOf(s, sr, regs); err != nil {
		return r, fmt.Errorf("run %s: %w", sr.ID, err)
	}
	// What the run's case picks beyond numbers (spec/casepick.go).
	r.Scores = s.ScoresOf(sr)
	if a := s.AutoscaleOf(sr); a != s.SUT.Resources.Autoscale {
		r.Autoscale = autoscaleOf(a)
	}
	if w := s.WorkloadOf(sr); w.Pattern != s.Workload.Pattern {
		r.CasePattern = patternOf(w.Pattern)
	}
	if w := s.WorkloadOf(sr); w.Name != s.Workload.Name {
		if built, err := regs.Workloads.Build(&w, sr.Scale); err == nil {
			r.ReplicaUser = workload.UsesReplicas(built)
		}
	}
	names := tenancy.TenantNames(sr.Tenants)
	members := s.Members(sr)
	conns := map[string]int{}
	for i, n := range names {
		m := &members[i]
		t := Tenant{Name: n, Class: m.Name, Scale: m.Scale, Conns: m.Conns, SLA: m.SLA}
		if m.Class >= 0 {
			// A class's own workload or options: kept per tenant, so that
			// plan.json says what each tenant ran.
			if m.Workload != s.Workload.Name {
				t.Workload = m.Workload
			}
			if m.Options != nil && m.Options.Kind != 0 && m.Options != node {
				b, err := yaml.Marshal(m.Options)
				if err != nil {
					return r, fmt.Errorf("run %s: tenancy.classes options: %w", sr.ID, err)
				}
				t.Options = string(b)
			}
		}
		conns[n] = m.Conns
		r.TenantList = append(r.TenantList, t)
	}
	n := model.Instances(sr.Tenants)
	// Asked of two tenants: with one, every model has one server.
	r.ServerPerTenant = model.Instances(2) == 2
	res := s.SUT.Resources
	cpus, mem := res.CPUs, int64(res.Memory)
	if res.Divide && n > 1 {
		// Equal total resources across models: S servers get 1/S each
		// (Erdelt and Rabl 2026, section 4.1, gave each of S containers
		// 480/S GB).
		cpus, mem = cpus/float64(n), mem/int64(n)
	}
	per := perServer(model, sr.Tenants)
	share := failoverShare(s, &r, reads)
	if share > 1 {
		r.FailoverShare = share
	}
	for k := range n {
		in := Instance{Name: "shared", CPUs: cpus, MemoryBytes: mem}
		if n > 1 {
			in.Name = names[k]
		}
		in.Tenants = names[k*per : min((k+1)*per, len(names))]
		// The connections of its tenants: sr.Clients each when they are
		// alike, their classes' otherwise; more after a fail-over.
		each := make([]int, len(in.Tenants))
		for i, t := range in.Tenants {
			each[i] = sr.Clients
			if s.Tenancy.Classes != nil {
				each[i] = conns[t]
			}
			each[i] *= share
			if p := place.Pooler; p != nil {
				// The pooler keeps a tenant's server connections open
				// after its clients are gone (until pgbouncer's
				// server_idle_timeout), while the check and the audit
				// connect direct.
				each[i] += p.PoolSize
			}
		}
		in.MaxConnections = serverConnections(eng, s.Tenancy.Guards, each, s.Tenancy.Isolation == spec.IsolationAudit)
		if ss := servers(s, regs); k < len(ss) {
			// One server each, in the order sut.servers names them.
			in.Server = ss[k].Name
		}
		r.Instances = append(r.Instances, in)
	}
	limits := make([]float64, len(r.Instances))
	for k, in := range r.Instances {
		limits[k] = in.CPUs
	}
	cores := m.Cores
	if len(cores) == 0 {
		cores = hereCores()
	}
	for k, c := range placeCores(sr.CPUPolicy, limits, cores) {
		r.Instances[k].Cores = c
	}
	return r, nil
}

// interactionOf asks the workload run sr builds (its case's options
// merged in) how it sends its transactions: "" when it has one way only.
func interactionOf(s *spec.Spec, sr *spec.Run, regs Registries) (string, error) {
	w := s.WorkloadOf(sr)
	built, err := regs.Workloads.Build(&w, sr.Scale)
	if err != nil {
		return "", err
	}
	if i, ok := built.(workload.Interactor); ok {
		return i.Interaction(), nil
	}
	return "", nil
}

// streamsEnd says whether the plan's workload runs query streams, whose
// clients stop when they have run their queries (workload.Finisher), so
// that a run may end before its duration.
func streamsEnd(s *spec.Spec, sp *spec.Plan, regs Registries) (bool, error) {
	if len(sp.Runs) == 0 {
		return false, nil
	}
	w, err := regs.Workloads.Build(&s.Workload, sp.Runs[0].Scale)
	if err != nil {
		return false, err
	}
	_, ok := w.(workload.Streamer)
	return ok, nil
}

// patternOf is a pattern of the spec as the plan shows it.
func patternOf(pt *spec.Pattern) *Pattern {
	return &Pattern{Names: pt.Name, Tau: pt.Tau, SlotS: time.Duration(pt.Slot).Seconds()}
}

func loadOf(w *spec.Workload) Load {
	l := Load{Description: w.Describe(), Unit: w.Unit(), Rates: w.RateTargets(), Varies: w.Schedule != nil || w.Pattern != nil}
	if sc := w.Schedule; sc != nil {
		switch {
		case sc.Slots != nil:
			l.Schedule = fmt.Sprintf("schedule of %d slots of %s", len(sc.Slots), sc.Slot)
		case sc.Stages != nil:
			l.Schedule = fmt.Sprintf("schedule of %d stages", len(sc.Stages))
		case sc.Sinusoid != nil:
			l.Schedule = "sinusoid schedule"
		default:
			l.Schedule = "schedule"
		}
	}
	if pt := w.Pattern; pt != nil {
		l.Pattern = patternOf(pt)
	}
	for _, c := range w.Cases {
		l.Varies = l.Varies || c.Pattern != nil
	}
	return l
}

// parseInterference reads the interference list, every value of a
// list-valued param (a matrix dimension) as a single value: a problem of
// one value names its index ("interference[0].params.load[2]").
func parseInterference(s *spec.Spec) []spec.Problem {
	var out []spec.Problem
	seen := map[string]bool{}
	for _, v := range s.InterferenceVariants() {
		_, bad := interfere.Parse(v.List)
		for _, pr := range bad {
			pr.Path = v.Reroot(pr.Path)
			if v.Param != "" && pr.Path == v.Param {
				pr.Path = fmt.Sprintf("%s[%d]", pr.Path, v.Index)
			}
			if k := pr.Path + "\x00" + pr.Allowed; !seen[k] {
				seen[k] = true
				out = append(out, pr)
			}
		}
	}
	return out
}

// checkInterference checks the spec's interference events against each
// run: within its workload phase, on servers or tenants it has, no
// overlapping freezes. A problem common to several runs is said once.
func checkInterference(p *Plan) []spec.Problem {
	var out []spec.Problem
	seen := map[string]bool{}
	for i := range p.Runs {
		r := &p.Runs[i]
		events, bad := interfere.Parse(p.Spec.InterferenceOf(&r.Run))
		if len(bad) > 0 || len(events) == 0 {
			continue // reported by checkRegistered
		}
		var servers []interfere.Server
		for _, in := range r.Instances {
			sv := interfere.Server{Name: in.Name, Tenants: in.Tenants}
			if len(in.Tenants) > 0 { // a template no tenant uses gets none
				sv.Replicas = r.Replicas
			}
			servers = append(servers, sv)
		}
		phase := time.Duration((r.WarmupS + r.DurationS) * float64(time.Second))
		for _, pr := range interfere.Check(events, phase, servers, fmt.Sprintf("run %s (model %s, %d tenants)", r.ID, r.Model, r.Tenants)) {
			pr.Path = p.Spec.InterferencePath(&r.Run, pr.Path)
			if k := pr.Path + pr.Allowed; !seen[k] {
				seen[k] = true
				out = append(out, pr)
			}
		}
	}
	return out
}
