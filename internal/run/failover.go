package run

import (
	"github.com/tenantbench/tenantbench/internal/provider"
)

// moved is the interference's news of a fail-over (interfere.Env.Moved):
// to, a promoted replica, now serves the tenants of from, which the fault
// killed. Their placements move to it, so that their clients' next
// connections (workloadConnect) and the checks after the workload go
// there; the pooler, which the provider put in front of to, is listed
// under it; and from's end is no failure of the run.
func (e *execution) moved(from, to *provider.Instance) {
	e.placeMu.Lock()
	defer e.placeMu.Unlock()
	for i := range e.placements {
		if e.placements[i].Instance == from {
			e.placements[i].Instance = to
		}
	}
	if pool, ok := e.pools[from.Name]; ok {
		delete(e.pools, from.Name)
		e.pools[to.Name] = pool
	}
	if u, ok := e.poolUse[from.Name]; ok {
		delete(e.poolUse, from.Name)
		e.poolUse[to.Name] = u
	}
	if e.replaced == nil {
		e.replaced = map[string]string{}
	}
	e.replaced[from.Name] = to.Name
	e.logf("instance %s failed over to %s", from.Name, to.Name)
}

// failedOver says a fail-over killed inst on purpose.
func (e *execution) failedOver(inst *provider.Instance) bool {
	e.placeMu.RLock()
	defer e.placeMu.RUnlock()
	_, ok := e.replaced[inst.Name]
	return ok
}
