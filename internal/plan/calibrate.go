package plan

import "github.com/tenantbench/tenantbench/internal/spec"

// Calibration builds the plan `tenantbench calibrate` measures: one run of
// one tenant of the spec's first model, on one server of its first
// engine, at its first scale and the first value of every setting, with room for clients
// connections. It checks the spec as Build does, with one exception:
// workload.pattern.tau may be missing or unusable, since finding it is
// what calibrating is for.
func Calibration(path string, regs Registries, clients int) (*Plan, []spec.Problem) {
	s, pl, problems := spec.LoadPlaced(path)
	if s == nil {
		return nil, problems
	}
	// Calibration runs one tenant on one server, which gets all of
	// sut.resources whatever divide says: the memory check sees that.
	one := *s
	one.SUT.Resources.Divide = false
	engs, _, more := checkRegistered(&one, regs, Here())
	for _, pr := range more {
		problems = append(problems, pl.Place(pr))
	}
	kept := problems[:0]
	for _, pr := range problems {
		if s.Workload.Pattern == nil || pr.Path != "workload.pattern.tau" {
			kept = append(kept, pr)
		}
	}
	if len(kept) > 0 {
		spec.SortProblems(kept)
		return nil, kept
	}
	// The first engine of sut.engine, with its settings.
	sr := spec.Run{Index: 1, ID: "calibrate", Engine: s.SUT.Engine[0], Model: s.Tenancy.Model[0], Tenants: 1, Scale: s.Workload.Scale[0],
		Clients: clients, Repetition: 1, Settings: map[string]string{}, Provision: spec.ProvisionLoad}
	for k, v := range s.SUT.SettingsOf(sr.Engine) {
		sr.Settings[k] = v[0]
	}
	sr.Seed = spec.RunSeed(s.Seed, &sr)
	sp := &spec.Plan{Spec: s, Runs: []spec.Run{sr}}
	more = nil
	for _, pr := range regs.Workloads.CheckPlan(sp) {
		more = append(more, pl.Place(pr))
	}
	if len(more) > 0 {
		return nil, more
	}
	r, err := resolveRun(s, &sr, regs, engs.first(s), Machine{}, replicaReads(s, regs))
	if err != nil {
		return nil, []spec.Problem{{Path: "workload", Allowed: err.Error()}}
	}
	p := &Plan{Name: s.Name, Engine: sr.Engine, Provider: s.SUT.Provider, Version: s.SUT.VersionOf(sr.Engine),
		Workload: s.Workload.Name, Spec: s, Load: loadOf(&s.Workload), Runs: []Run{r}}
	return p, nil
}
