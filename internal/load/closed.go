package load

import (
	"fmt"
	"math"
	"time"
)

// Closed is the closed load shape: a number of clients per tenant, each
// running transactions back to back, pausing Think after each. The next
// transaction starts only when the previous one ended, so the load
// follows the system's speed (Oracle 2014, "Test Methodology", on why this
// is unrealistic for OLTP: the open shape is the alternative).
//
// Under a schedule the number of clients follows the tenant's Profile:
// every client connects when the phase starts, and client k (from 0)
// runs while the target is at least k + 0.5 (the target rounded to the
// nearest whole number of clients), idle otherwise. A client busy when
// its slot ends finishes its transaction first.
type Closed struct {
	Think time.Duration
}

func init() { register(Closed{}) }

// Name is "closed".
func (Closed) Name() string { return "closed" }

// Keys: think.
func (Closed) Keys() []string { return []string{"think"} }

// Defaults: think is 0s.
func (Closed) Defaults(*Settings) {}

// Check: think is 0s or longer; under a schedule or pattern, which gives
// the clients, workload.clients is not written.
func (Closed) Check(s *Settings, c Context) []Issue {
	var out []Issue
	if s.Think < 0 {
		out = append(out, Issue{Key: "load.think", Value: true, Allowed: "must be 0s or longer"})
	}
	if c.SetsTarget && c.Clients {
		out = append(out, Issue{Key: "clients", Allowed: "the schedule or pattern sets the clients of a closed load: remove workload.clients"})
	}
	return out
}

// Configure takes the think time.
func (Closed) Configure(s *Settings) Shape { return Closed{Think: s.Think} }

// Target: whole clients.
func (Closed) Target() Target {
	return Target{Unit: "clients", Clients: true,
		Tau: "the concurrency at which the system reaches its resource limit (Zhang et al. 2025: tau = 110); `tenantbench calibrate` finds it"}
}

// CheckTarget: a whole number of clients within the limit.
func (Closed) CheckTarget(x float64, c Context) string {
	if x != math.Trunc(x) || x > float64(c.MaxClients) {
		return fmt.Sprintf("must be a whole number of clients, 0..%d", c.MaxClients)
	}
	return ""
}

// Conns is the peak rounded to whole clients: every client connects when
// the phase starts.
func (Closed) Conns(peak float64, _ int) int { return roundClients(peak) }

// Resolve: the clients follow the profile, nothing to resolve.
func (c Closed) Resolve(int) Shape { return c }

// Describe is "" for the plain closed loop.
func (c Closed) Describe(scheduled bool) string {
	if c.Think == 0 && !scheduled {
		return ""
	}
	d := "closed"
	if c.Think > 0 {
		d += ", think " + durationText(c.Think)
	}
	return d
}

// Loop is the client loop with the think time.
func (c Closed) Loop() Loop { return Loop{Runner: ClientLoop, Think: c.Think} }

// Active reports whether client k runs at t under p.
func Active(p *Profile, k int, t time.Duration) bool { return p.At(t) >= float64(k)+0.5 }

// NextActive is when client k runs next at or after t under p, and false
// when it never does again.
func NextActive(p *Profile, k int, t time.Duration) (time.Duration, bool) {
	return p.NextAtLeast(t, float64(k)+0.5)
}

// Clients is how many clients run at t under p.
func Clients(p *Profile, t time.Duration) int { return roundClients(p.At(t)) }
