package load

import "time"

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

// Active reports whether client k runs at t under p.
func Active(p *Profile, k int, t time.Duration) bool { return p.At(t) >= float64(k)+0.5 }

// NextActive is when client k runs next at or after t under p, and false
// when it never does again.
func NextActive(p *Profile, k int, t time.Duration) (time.Duration, bool) {
	return p.NextAtLeast(t, float64(k)+0.5)
}

// Clients is how many clients run at t under p.
func Clients(p *Profile, t time.Duration) int {
	v := p.At(t)
	if v < 0.5 {
		return 0
	}
	return int(v + 0.5)
}
