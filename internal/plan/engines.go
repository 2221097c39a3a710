package plan

import (
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// engines are the engines of sut.engine the registry has, by name: a
// matrix dimension (spec/engines.go). Every check that depends on the
// engine asks each of them, naming the engine in what it refuses; an
// engine the registry lacks is left out (checkSUT refused it).
type engines map[string]engine.Engine

// each calls f for every known engine of s, in sut.engine's order.
func (e engines) each(s *spec.Spec, f func(name string, eng engine.Engine)) {
	for _, name := range s.SUT.Engine {
		if eng, ok := e[name]; ok {
			f(name, eng)
		}
	}
}

// first is the first engine of sut.engine, nil when the registry lacks
// it: the engine of what the spec runs once, not per run (calibrate, the
// tpcb probe's server).
func (e engines) first(s *spec.Spec) engine.Engine {
	if len(s.SUT.Engine) == 0 {
		return nil
	}
	return e[s.SUT.Engine[0]]
}

// enginePath is the path of the i-th engine of sut.engine.
func enginePath(s *spec.Spec, i int) string {
	if len(s.SUT.Engine) > 1 {
		return spec.Index("sut.engine", i)
	}
	return "sut.engine"
}

// onEngine is " (engine NAME)" when the spec has several engines, so that
// a problem of one engine's run says which; "" with one.
func onEngine(s *spec.Spec, name string) string {
	if len(s.SUT.Engine) > 1 {
		return " (engine " + name + ")"
	}
	return ""
}

// versionsOf is each engine's version when sut.engine lists several and
// sut.version is keyed by engine (those that ask for one), nil otherwise:
// with one engine Plan.Version says it.
func versionsOf(s *spec.Spec) map[string]string {
	if len(s.SUT.Engine) < 2 || len(s.SUT.EngineVersions) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, e := range s.SUT.Engine {
		if v := s.SUT.VersionOf(e); v != "" {
			out[e] = v
		}
	}
	return out
}

// mostMemory is the known engine whose least memory is the largest, nil
// for none.
func (e engines) mostMemory(s *spec.Spec) engine.Engine {
	var out engine.Engine
	e.each(s, func(_ string, eng engine.Engine) {
		if out == nil || eng.MinMemory() > out.MinMemory() {
			out = eng
		}
	})
	return out
}
