package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// checkSUT checks sut.engine and sut.provider against the registries and
// asks the engine about what only it knows: which settings a spec may
// set and the least memory a server runs with. It returns the engine, nil
// when sut.engine names none.
func checkSUT(s *spec.Spec, regs Registries) (engine.Engine, []spec.Problem) {
	var out []spec.Problem
	if _, ok := regs.Providers[s.SUT.Provider]; !ok {
		out = append(out, spec.Problem{Path: "sut.provider", Value: spec.Shown(s.SUT.Provider),
			Allowed: "must be one of " + strings.Join(regs.Providers.Names(), ", ")})
	}
	eng, ok := regs.Engines[s.SUT.Engine]
	if !ok {
		return nil, append(out, spec.Problem{Path: "sut.engine", Value: spec.Shown(s.SUT.Engine),
			Allowed: "must be one of " + strings.Join(regs.Engines.Names(), ", ")})
	}
	for _, key := range slices.Sorted(maps.Keys(s.SUT.Settings)) {
		if msg := eng.SettingRule(key); msg != "" {
			out = append(out, spec.Problem{Path: spec.Join("sut.settings", key), Allowed: msg})
		}
	}
	for i, c := range s.Workload.Cases {
		for _, key := range slices.Sorted(maps.Keys(c.Settings)) {
			if msg := eng.SettingRule(key); msg != "" {
				out = append(out, spec.Problem{Path: spec.Join(spec.Join(spec.Index("workload.cases", i), "settings"), key), Allowed: msg})
			}
		}
	}
	if m := s.SUT.Resources.Memory; m > 0 && int64(m) < eng.MinMemory() {
		least := spec.ByteSize(eng.MinMemory())
		out = append(out, spec.Problem{Path: "sut.resources.memory", Value: m.String(), Allowed: fmt.Sprintf(
			"must be 0 (unlimited) or at least %s: a %s server needs that much to run a benchmark", least, eng.Name())})
	}
	return eng, out
}
