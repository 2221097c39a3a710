package interfere

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// needer is a kind that needs a capability of the server it targets,
// which the plan asks the provider for (Factory.Can) before any server
// exists.
type needer interface{ needs() provider.Capability }

func (restart) needs() provider.Capability { return provider.CanRestart }
func (crash) needs() provider.Capability   { return provider.CanRestart }
func (freeze) needs() provider.Capability  { return provider.CanFreeze }

// CheckProvider refuses the events whose kind needs what the run's
// provider cannot give its servers: a fault it cannot inject, noise
// beside a server that is not in a cgroup of this machine. can is the
// provider's Factory.Can (nil: it can do everything), name its name.
// Noise on the host or the driver, and kill-backends (SQL), need nothing
// of the provider.
func CheckProvider(events []Event, can func(provider.Capability) string, name string) []spec.Problem {
	if can == nil {
		return nil
	}
	var out []spec.Problem
	for i := range events {
		ev := &events[i]
		if ev.Off() {
			continue
		}
		switch k := ev.Kind.(type) {
		case needer:
			if why := can(k.needs()); why != "" {
				out = append(out, spec.Problem{Path: ev.Path + ".kind", Value: ev.Kind.Name(), Allowed: fmt.Sprintf(
					"needs the provider to %s, and provider %s cannot: %s", k.needs(), name, why)})
			}
		case stressKind:
			if ev.Target == "" || ev.Target == HostTarget || ev.Target == DriverTarget {
				continue
			}
			if why := can(provider.InCgroup); why != "" {
				out = append(out, spec.Problem{Path: ev.Path + ".target", Value: ev.Target, Allowed: fmt.Sprintf(
					"noise aimed at a server needs the provider to %s, and provider %s cannot: %s; target %s or %s instead",
					provider.InCgroup, name, why, HostTarget, DriverTarget)})
			}
		}
	}
	return dedupe(out)
}
