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
// freeze, a cgroup for noise beside a server. What it cannot give is
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
		for _, pr := range interfere.CheckProvider(events, f.Can, f.Name) {
			pr.Path = v.Reroot(pr.Path)
			if k := pr.Path + "\x00" + pr.Allowed; !seen[k] {
				seen[k] = true
				out = append(out, pr)
			}
		}
	}
	return out
}
