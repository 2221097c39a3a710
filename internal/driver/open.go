package driver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
)

// arrivals hands a tenant's arrivals (load/open.go) to its pool of clients
// and counts them per second of their intended start. A client that is
// free claims the next arrival and sleeps until it is due: so an arrival
// is claimed only by a free connection, and one that is already due when
// claimed found none free at its time; it waited for one (queue) or is
// dropped (drop). There is no dispatcher goroutine and no timer per
// arrival; a claim is a short critical section.
type arrivals struct {
	mu   sync.Mutex
	seq  *load.Arrivals
	drop bool
	end  time.Duration // no arrival at or after end
	done bool
	// per second of intended start
	arrived, queued, dropped []int64
}

func newArrivals(t *load.Tenant, o load.Loop, seed uint64, end time.Duration) *arrivals {
	n := int(end/time.Second) + 1
	return &arrivals{seq: load.NewArrivals(&t.Profile, o.Arrivals, seed), drop: o.OnFull == load.OnFullDrop, end: end,
		arrived: make([]int64, n), queued: make([]int64, n), dropped: make([]int64, n)}
}

// claim returns the intended start of the next arrival for a client free
// at now (both since the phase started), and false when there are no
// more.
func (a *arrivals) claim(now time.Duration) (time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.done {
		t, ok := a.seq.Next()
		if !ok || t >= a.end {
			a.done = true
			break
		}
		sec := t / time.Second
		a.arrived[sec]++
		if t < now {
			if a.drop {
				a.dropped[sec]++
				continue
			}
			a.queued[sec]++
		}
		return t, true
	}
	return 0, false
}

// finish counts the arrivals due before the end that no client claimed,
// because every connection stayed busy until the end: they were not
// served, so they count as dropped. Those due at or after until (the
// phase was cut there) were never owed and are not counted. Call it when
// the clients have stopped.
func (a *arrivals) finish(until time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.done {
		t, ok := a.seq.Next()
		if !ok || t >= a.end || t >= until {
			a.done = true
			break
		}
		sec := t / time.Second
		a.arrived[sec]++
		a.dropped[sec]++
	}
}

// openLoop runs one connection of an open load's pool: claim the next
// arrival, wait for its intended start, run it. Latency is timed from the
// intended start, so time spent waiting for a free connection counts
// (coordinated omission corrected); service time, from the actual start,
// is recorded beside it. No lock other than the claim, no allocation of
// its own per transaction.
func (w *worker) openLoop(a *arrivals, stopped *atomic.Bool, halted context.Context, start, end time.Time) {
	defer w.rec.Flush()
	stop := halted.Done()
	bg := context.Background()
	// now is the clock's last reading: the end of the previous
	// transaction, or the wake-up for this one. Each arrival reads the
	// clock twice: when it starts and when it ends.
	now := time.Now()
	for !stopped.Load() {
		if w.client == nil {
			if !w.reconnect(halted, end) {
				return
			}
			now = time.Now()
			continue
		}
		if !now.Before(end) {
			return
		}
		due, ok := a.claim(now.Sub(start))
		if !ok {
			return
		}
		intended, t0 := start.Add(due), now
		if intended.After(now) {
			if t0, ok = w.sleep.untilPrecise(intended, now, stop); !ok {
				return
			}
		} else {
			t0 = time.Now() // it queued: it starts now, after the claim
		}
		typ := w.client.Pick()
		err := w.client.Run(bg, typ)
		t1 := time.Now()
		now = t1
		if err == nil {
			if t1.Before(end) {
				w.rec.RecordOpen(typ, t1, t1.Sub(intended), t1.Sub(t0))
			}
		} else if !w.failed(err, typ, t1, end, stopped) {
			return
		}
		w.redialDue()
	}
}
