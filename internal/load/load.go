// Package load describes how hard each tenant is driven over the workload
// phase: the load shape (closed: clients; open: arrivals per second), the
// schedule the target follows (time slots, ramping stages, a sinusoid,
// start and stop times) and the pattern library of Zhang et al. 2025. It is
// pure: profiles, arrival times and patterns are computed here, executed by
// internal/driver. It imports nothing of tenantbench, so internal/spec
// resolves a spec's load into a Plan while it expands the runs.
package load

import "time"

// Plan is the load of one run: its shape and each tenant's schedule.
type Plan struct {
	// Shape is the run's load shape, configured and resolved: Closed or
	// Open (shape.go).
	Shape   Shape
	Tenants []Tenant
	// Pattern names the CloudyBench pattern the schedules come from, if any.
	Pattern string
}

// Tenant is one tenant's load.
type Tenant struct {
	// Profile is the target over the phase: clients (closed) or arrivals
	// per second (open).
	Profile Profile
	// Varies is false when the target is one constant over the whole
	// phase: a closed load then runs exactly as without a schedule.
	Varies bool
	// Conns is how many connections the tenant opens: the most clients of
	// its profile (closed), or the pool (open).
	Conns int
	// Windows are the starts of the result slots (slots.csv), whole
	// seconds; nil when the run has no schedule.
	Windows []time.Duration
}

// Scheduled reports whether the plan has result slots.
func (p *Plan) Scheduled() bool {
	for _, t := range p.Tenants {
		if len(t.Windows) > 0 {
			return true
		}
	}
	return false
}
