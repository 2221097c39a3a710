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
	if sc := s.SUT.Resources.Schedule; sc != nil {
		for i, sl := range sc.Slots {
			if m := sl.Memory; m != nil && *m > 0 && int64(*m) < eng.MinMemory() {
				out = append(out, spec.Problem{Path: spec.Index("sut.resources.schedule.slots", i) + ".memory", Value: m.String(),
					Allowed: fmt.Sprintf("must be at least %s: a %s server needs that much to run a benchmark",
						spec.ByteSize(eng.MinMemory()), eng.Name())})
			}
		}
	}
	return eng, out
}

// checkServer asks an engine that can (engine.SettingsChecker) about the
// server the plan will run: whether its version can be had, and whether
// it takes every value of sut.settings (each value of a list) and of each
// case's settings. Keys the engine's SettingRule refuses, and values the
// spec refuses itself, are left to those checks. It returns problems and
// warnings, the version's at sut.version.
func checkServer(s *spec.Spec, eng engine.Engine) (problems, warnings []spec.Problem) {
	sc, ok := eng.(engine.SettingsChecker)
	if !ok {
		return nil, nil
	}
	type setting struct{ path, value string }
	askedVersion := false
	ask := func(set map[string]setting) {
		values := map[string]string{}
		for k, st := range set {
			values[k] = st.value
		}
		refused, warned := sc.CheckSettings(s.SUT.Version, values)
		for _, r := range []struct {
			msgs map[string]string
			to   *[]spec.Problem
		}{{refused, &problems}, {warned, &warnings}} {
			for _, key := range slices.Sorted(maps.Keys(r.msgs)) {
				if key == "" {
					if !askedVersion {
						*r.to = append(*r.to, spec.Problem{Path: "sut.version", Value: spec.Shown(s.SUT.Version), Allowed: r.msgs[key]})
					}
					continue
				}
				*r.to = append(*r.to, spec.Problem{Path: set[key].path, Value: spec.Shown(set[key].value), Allowed: r.msgs[key]})
			}
		}
		askedVersion = true
	}
	// checkable: the spec's own checks refuse an empty value or one with
	// a line break or NUL, the engine's rule a key it owns.
	checkable := func(key, value string) bool {
		return eng.SettingRule(key) == "" && value != "" && !strings.ContainsAny(value, "\n\r\x00")
	}
	for i := 0; ; i++ {
		set := map[string]setting{}
		more := false
		for key, values := range s.SUT.Settings {
			if i >= len(values) {
				continue
			}
			more = true
			if !checkable(key, values[i]) {
				continue
			}
			path := spec.Join("sut.settings", key)
			if len(values) > 1 {
				path = spec.Index(path, i)
			}
			set[key] = setting{path, values[i]}
		}
		if !more && i > 0 {
			break
		}
		ask(set) // the first call also asks for the version, settings or none
		if !more {
			break
		}
	}
	for i, c := range s.Workload.Cases {
		set := map[string]setting{}
		for key, value := range c.Settings {
			if checkable(key, value) {
				set[key] = setting{spec.Join(spec.Join(spec.Index("workload.cases", i), "settings"), key), value}
			}
		}
		if len(set) > 0 {
			ask(set)
		}
	}
	return problems, warnings
}
