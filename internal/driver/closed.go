package driver

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// closedLoop runs one client of the closed shape (load/closed.go): a
// transaction, then the think time, then the next; a workload.Pacer client
// (TPC-C's terminal) adds its keying time before and its think time after,
// both outside the measured latency (clause 5.2.5.1). Latency is timed from
// the actual start. Under a schedule the client runs only while the
// tenant's target is at least its index + 0.5 and idles, connected,
// otherwise. A workload.Finisher client stops when it is done. It is the
// hot path: no lock, no allocation of its own per transaction.
func (w *worker) closedLoop(stopped *atomic.Bool, halted context.Context, start, end time.Time) {
	defer w.rec.Flush()
	stop := halted.Done()
	var prof *load.Profile
	if w.tenant.Load != nil && w.tenant.Load.Varies {
		prof = &w.tenant.Load.Profile
	}
	think := w.think
	// Transactions run under a context without a Done channel: pgx then
	// arms no context watcher per query; cancellation closes the socket.
	bg := context.Background()
	for !stopped.Load() {
		if w.client == nil {
			if !w.reconnect(halted, end) {
				return
			}
			continue
		}
		if prof != nil {
			now := time.Now()
			if at := now.Sub(start); !load.Active(prof, w.index, at) {
				next, ok := load.NextActive(prof, w.index, at)
				if !ok || !start.Add(next).Before(end) || !w.sleep.until(start.Add(next), stop) {
					return
				}
				continue
			}
		}
		typ := w.client.Pick()
		var thinkAfter time.Duration
		if w.pacer != nil {
			keying, think := w.pacer.Pace(typ)
			if keying > 0 && !w.sleep.until(time.Now().Add(keying), stop) {
				return
			}
			thinkAfter = think
		}
		t0 := time.Now()
		if !t0.Before(end) {
			return
		}
		fin := w.fin // a failure may drop the client
		err := w.client.Run(bg, typ)
		t1 := time.Now()
		if err == nil {
			if t1.Before(end) {
				w.rec.Record(typ, t1, t1.Sub(t0))
			}
		} else if !w.failed(err, typ, t1, end, stopped) {
			return
		}
		if fin != nil && fin.Done() {
			return // the client's work is done (a TPC-H stream)
		}
		w.redialDue()
		if pause := think + thinkAfter; pause > 0 && !w.sleep.until(time.Now().Add(pause), stop) {
			return
		}
	}
}

// failed records a transaction that returned err and drops a lost
// connection; false means the run is stopping.
func (w *worker) failed(err error, typ int, t1, end time.Time, stopped *atomic.Bool) bool {
	if errors.Is(err, workload.ErrRollback) {
		if t1.Before(end) {
			w.rec.Rollback(typ, t1)
		}
		return true
	}
	if stopped.Load() {
		return false // the watchdog closed the socket: not the tenant's failure
	}
	if t1.Before(end) {
		w.rec.Fail(typ, t1, Classify(err), err)
	}
	if w.conn.IsClosed() {
		if w.lost == "" {
			w.lost, w.lostAt = err.Error(), t1.Sub(w.rec.c.start)
		}
		w.release()
	}
	return true
}

// reconnectTimeout bounds one attempt to reconnect: long enough for a
// loaded server to fork a backend and authenticate, short enough that a
// server that stopped answering costs a retry, not the rest of the phase.
const reconnectTimeout = 5 * time.Second

// reconnect opens a new connection for a client that lost its own, with
// a growing pause between attempts; false means the run is over (halted:
// the clients are stopped).
func (w *worker) reconnect(halted context.Context, end time.Time) bool {
	// An attempt ends at the phase's end, when the run stops, or after
	// reconnectTimeout: a server that accepted the connection but never
	// answers its startup held a client that waited without a bound
	// (under a loaded machine, after a fail-over) past the phase's end.
	deadline := time.Now().Add(reconnectTimeout)
	if end.Before(deadline) {
		deadline = end
	}
	ctx, cancel := context.WithDeadline(halted, deadline)
	defer cancel()
	watch := w.rec.c.watch
	var redials uint64
	if watch != nil {
		redials = watch.redials.Load()
	}
	err := w.redial(ctx)
	now := time.Now()
	if !now.Before(end) {
		return false
	}
	if err == nil {
		w.backoff = 0
		return true
	}
	w.rec.Fail(connectTxn, now, "connection", err)
	// Short pauses: a restarted server is found within 200 ms of
	// accepting connections again, and within 25 ms once the fault's
	// runner says so (Watch.Redial), which bounds how much a client adds
	// to the measured time to resume service (F); each attempt is counted.
	w.backoff = min(max(2*w.backoff, redialSlice), maxPause)
	at := now.Add(w.backoff)
	if watch == nil {
		return w.sleep.until(at, halted.Done())
	}
	// In slices, so that Watch.Redial cuts the pause short; a Redial
	// during the attempt ends it at once.
	for watch.redials.Load() == redials {
		next := time.Now().Add(redialSlice)
		if !next.Before(at) {
			return w.sleep.until(at, halted.Done())
		}
		if !w.sleep.until(next, halted.Done()) {
			return false
		}
	}
	return true
}

// redialSlice is the shortest pause between attempts to reconnect, and
// how soon after Watch.Redial a pausing client tries again.
const redialSlice = 25 * time.Millisecond

// maxPause is the longest pause between attempts to reconnect (a var for
// the driver's tests).
var maxPause = 200 * time.Millisecond
