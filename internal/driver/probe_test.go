package driver

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// testReplicaProbe: two clients read (select-only) from a "replica" (a
// second session on the same server, named so that it can be ended on its
// own) whose sessions are terminated 0.3 s into the phase and which
// refuses connections until 1.5 s after both clients have reconnected
// without it. Each client loses its replica session once, reconnects
// without it and keeps committing on its primary; the tenant's probe
// finds the replica back and each client reconnects once more. The
// outage follows the clients, not the clock, so that a loaded machine
// only makes it longer; reconnecting on a timer to try the replica (every
// 250 ms) made about six more primary connections per client over it.
func testReplicaProbe(t *testing.T, tn Tenant, inst *provider.Instance) {
	tn.Clients = 2
	const app = "driver-test-replica"
	var down atomic.Bool
	var primaries, refused, replicasBack atomic.Int64
	primary := tn.Connect
	tn.Connect = func(ctx context.Context) (workload.Conn, error) {
		primaries.Add(1)
		return primary(ctx)
	}
	tn.Replicas = []workload.Connect{func(ctx context.Context) (workload.Conn, error) {
		if down.Load() {
			refused.Add(1)
			return nil, errors.New("the replica is restarting (refused by the test)")
		}
		c, err := primary(ctx)
		if err != nil {
			return nil, err
		}
		pg, _ := workload.PG(c)
		if _, err := pg.Exec(ctx, "SET application_name = '"+app+"'"); err != nil {
			c.Close(ctx)
			return nil, err
		}
		replicasBack.Add(1)
		return c, nil
	}}
	admin := pgtest.Connect(t, inst, "postgres")
	defer admin.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// waitFor fails the outage when cond does not hold within 20 s.
	waitFor := func(what string, cond func() bool) error {
		if !pollUntil(cond) {
			return fmt.Errorf("after 20 s, not yet %s: %d primary connections, %d refused, %d replica connections after the outage",
				what, primaries.Load(), refused.Load(), replicasBack.Load())
		}
		return nil
	}
	outage := make(chan error, 1)
	started := func(time.Time, *Watch) {
		go func() {
			defer cancel() // the phase ends once the outage has played out
			time.Sleep(300 * time.Millisecond)
			down.Store(true)
			if _, err := admin.Exec(context.Background(),
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app); err != nil {
				outage <- err
				return
			}
			// Both clients reconnected and missed the replica (2
			// refusals), and the probe tried it too.
			if err := waitFor("reconnected without the replica", func() bool { return primaries.Load() >= 4 && refused.Load() >= 3 }); err != nil {
				outage <- err
				return
			}
			time.Sleep(1500 * time.Millisecond)
			down.Store(false)
			err := waitFor("back on the replica", func() bool { return replicasBack.Load() >= 5 && primaries.Load() >= 6 })
			// Room for a reconnection too many to show.
			time.Sleep(300 * time.Millisecond)
			outage <- err
		}()
	}
	res, err := Run(ctx, []Tenant{tn}, Options{Duration: 60 * time.Second, Started: started})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if err := <-outage; err != nil {
		t.Fatal(err)
	}
	tr := res.Tenants[0]
	var lost int64
	for _, f := range tr.Failures {
		if f.Class == "connection" {
			lost += f.Count
		}
	}
	for _, f := range tr.Failures {
		t.Logf("failure: %s %s x%d at %.3f-%.3f s: %s", f.Txn, f.Class, f.Count, f.First.Seconds(), f.Last.Seconds(), f.Message)
	}
	n, back := primaries.Load(), replicasBack.Load()
	t.Logf("primary connections %d, replica connections %d (2 before the outage), refused %d, committed %d, connection failures %d",
		n, back, refused.Load(), tr.All.Committed, lost)
	// 2 at the start, 2 after losing the replica, 2 once it is back. A
	// client slow to reconnect on a loaded machine may miss the replica
	// after the probe last reached it, and so reconnect once more: each
	// extra reconnection is one more missed replica. On a timer each
	// client reconnected about six times more over the 1.5 s.
	extra := n - 6
	if extra < 0 || extra > 2 {
		t.Errorf("%d primary connections for 2 clients over the replica's outage, want 6 to 8", n)
	}
	// 2 at the start; after the outage the probe's, then each client's.
	if back < 5 {
		t.Errorf("%d replica connections, want 2 before the outage and at least 3 after (the probe's, each client's)", back)
	}
	// Each client's lost read and its reconnection without the replica,
	// and one more miss per extra reconnection.
	if lost != 4+extra || tr.ConnLost == "" {
		t.Errorf("%d connection failures (lost: %q) with %d primary connections, want %d", lost, tr.ConnLost, n, 4+extra)
	}
	if tr.All.Committed < 100 {
		t.Errorf("%d committed: the clients should read on through the outage", tr.All.Committed)
	}
}

// pollUntil checks cond every 5 ms until it holds (true) or 20 s have
// passed (false): how the tests of outages follow the clients.
func pollUntil(cond func() bool) bool {
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
