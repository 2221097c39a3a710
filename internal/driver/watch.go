package driver

import (
	"sync/atomic"
	"time"
)

// Watch tells, per tenant, the first committed transaction ending after
// a time a caller arms it with: when service resumed after a fault (t_s
// of Zhang et al. 2025, eq. 3), to the nanosecond of the commit rather
// than the second of the series. The recorder's cost while disarmed is
// one atomic load per transaction, and it allocates nothing.
type Watch struct {
	tenants []tenantWatch
	redials atomic.Uint64 // Redial's calls
}

type tenantWatch struct {
	after atomic.Int64 // unix ns; 0: disarmed
	first atomic.Int64 // unix ns of the first commit after it; 0: none yet
	_     [48]byte     // one cache line each: tenants' clients do not share one
}

func newWatch(tenants int) *Watch { return &Watch{tenants: make([]tenantWatch, tenants)} }

// Arm makes First report tenant's first commit ending after after; a
// first commit already seen after it is kept.
func (w *Watch) Arm(tenant int, after time.Time) {
	t := &w.tenants[tenant]
	ns := after.UnixNano()
	t.after.Store(ns)
	if f := t.first.Load(); f != 0 && f <= ns {
		t.first.CompareAndSwap(f, 0)
	}
}

// First is tenant's first commit after the time it was armed with.
func (w *Watch) First(tenant int) (time.Time, bool) {
	f := w.tenants[tenant].first.Load()
	if f == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, f), true
}

// commit notes a commit of tenant ending at end.
func (w *Watch) commit(tenant int, end time.Time) {
	t := &w.tenants[tenant]
	a := t.after.Load()
	if a == 0 || t.first.Load() != 0 {
		return
	}
	if ns := end.UnixNano(); ns > a {
		t.first.CompareAndSwap(0, ns)
	}
}

// Redial has every client that waits to reconnect try again within
// redialSlice: the fault's server is back, or another took its place
// (a fail-over's promoted server accepts writes). Otherwise the rest of
// the client's pause, up to 200 ms, would be the driver's own share of
// the time to resume service (F).
func (w *Watch) Redial() { w.redials.Add(1) }
