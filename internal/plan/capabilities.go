package plan

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// checkProviderCan asks the provider, before any server exists, whether
// it can run the spec's engine (Factory.Engine) and give its servers what
// the spec's interference needs of them (Factory.Can): a restart, a
// freeze, a fail-over, a cgroup for noise beside a server; and the
// engine whether a fail-over can promote its replicas (engine.Promoter). What it cannot give is
// refused here rather than when the run reaches it.
func checkProviderCan(s *spec.Spec, regs Registries, engs engines) []spec.Problem {
	f, ok := regs.Providers[s.SUT.Provider]
	if !ok {
		return nil // checkSUT refused it
	}
	var out []spec.Problem
	engs.each(s, func(_ string, eng engine.Engine) {
		if f.Engine == nil {
			return
		}
		if why := f.Engine(eng); why != "" {
			out = append(out, spec.Problem{Path: "sut.engine", Value: eng.Name(), Allowed: fmt.Sprintf(
				"provider %s cannot run it: %s", f.Name, why)})
		}
	})
	seen := map[string]bool{}
	for _, v := range s.InterferenceVariants() {
		events, bad := interfere.Parse(v.List)
		if len(bad) > 0 {
			continue // parseInterference reports them
		}
		problems := interfere.CheckProvider(events, f.Can, f.Name)
		for i := range events {
			ev := &events[i]
			if !interfere.Promotes(ev) || ev.Off() {
				continue
			}
			engs.each(s, func(_ string, eng engine.Engine) {
				if _, ok := eng.(engine.Promoter); !ok {
					problems = append(problems, spec.Problem{Path: ev.Path + ".kind", Value: ev.Kind.Name(), Allowed: fmt.Sprintf(
						"needs an engine whose replicas can be promoted, and engine %s cannot", eng.Name())})
				}
			})
		}
		for _, pr := range problems {
			pr.Path = v.Reroot(pr.Path)
			if k := pr.Path + "\x00" + pr.Allowed; !seen[k] {
				seen[k] = true
				out = append(out, pr)
			}
		}
	}
	return out
}
