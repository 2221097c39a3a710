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
// asks each engine about what only it knows: which settings a spec may
// set and the least memory a server runs with. It returns the engines
// the registry has.
func checkSUT(s *spec.Spec, regs Registries) (engines, []spec.Problem) {
	var out []spec.Problem
	if _, ok := regs.Providers[s.SUT.Provider]; !ok {
		out = append(out, spec.Problem{Path: "sut.provider", Value: spec.Shown(s.SUT.Provider),
			Allowed: "must be one of " + strings.Join(regs.Providers.Names(), ", ")})
	}
	engs := engines{}
	for i, name := range s.SUT.Engine {
		eng, ok := regs.Engines[name]
		if !ok {
			out = append(out, spec.Problem{Path: enginePath(s, i), Value: spec.Shown(name),
				Allowed: "must be one of " + strings.Join(regs.Engines.Names(), ", ") + spec.Suggest(name, regs.Engines.Names())})
			continue
		}
		engs[name] = eng
	}
	engs.each(s, func(name string, eng engine.Engine) {
		set := s.SUT.SettingsOf(name)
		for _, key := range slices.Sorted(maps.Keys(set)) {
			if msg := eng.SettingRule(key); msg != "" {
				out = append(out, spec.Problem{Path: s.SUT.SettingPath(name, key), Allowed: msg + onEngine(s, name)})
			}
		}
		for i, c := range s.Workload.Cases {
			for _, key := range slices.Sorted(maps.Keys(c.SettingsOf(name))) {
				if msg := eng.SettingRule(key); msg != "" {
					out = append(out, spec.Problem{Path: c.SettingPath(i, name, key), Allowed: msg + onEngine(s, name)})
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
	})
	return engs, out
}

// checkServers asks checkServer of each engine.
func checkEngineServers(s *spec.Spec, engs engines) (problems, warnings []spec.Problem) {
	engs.each(s, func(name string, eng engine.Engine) {
		p, w := checkServer(s, name, eng)
		problems, warnings = append(problems, p...), append(warnings, w...)
	})
	return problems, warnings
}

// checkServer asks an engine that can (engine.SettingsChecker) about the
// server the plan will run: whether its version can be had, and whether
// it takes every value of sut.settings (each value of a list) and of each
// case's settings. Keys the engine's SettingRule refuses, and values the
// spec refuses itself, are left to those checks. It returns problems and
// warnings, the version's at sut.version (or the engine's entry there).
func checkServer(s *spec.Spec, name string, eng engine.Engine) (problems, warnings []spec.Problem) {
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
		refused, warned := sc.CheckSettings(s.SUT.VersionOf(name), values)
		for _, r := range []struct {
			msgs map[string]string
			to   *[]spec.Problem
		}{{refused, &problems}, {warned, &warnings}} {
			for _, key := range slices.Sorted(maps.Keys(r.msgs)) {
				if key == "" {
					if !askedVersion {
						*r.to = append(*r.to, spec.Problem{Path: s.SUT.VersionPath(name), Value: spec.Shown(s.SUT.VersionOf(name)),
							Allowed: r.msgs[key]})
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
		for key, values := range s.SUT.SettingsOf(name) {
			if i >= len(values) {
				continue
			}
			more = true
			if !checkable(key, values[i]) {
				continue
			}
			path := s.SUT.SettingPath(name, key)
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
		for key, value := range c.SettingsOf(name) {
			if checkable(key, value) {
				set[key] = setting{c.SettingPath(i, name, key), value}
			}
		}
		if len(set) > 0 {
			ask(set)
		}
	}
	return problems, warnings
}
