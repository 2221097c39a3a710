package driver

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// testReplicaProbe: two clients read (select-only) from a "replica" (a
// second session on the same server, named so that it can be ended on its
// own) whose sessions are terminated 0.5 s into the phase and which
// refuses connections until 2 s. Each client loses its replica session
// once, reconnects without it and keeps committing on its primary; the
// tenant's probe finds the replica back and each client reconnects once
// more. Reconnecting on a timer to try the replica (every 250 ms) made
// about six more primary connections per client over the same outage.
func testReplicaProbe(t *testing.T, tn Tenant, inst *provider.Instance) {
	tn.Clients = 2
	const app = "driver-test-replica"
	var down atomic.Bool
	var primaries, replicasBack atomic.Int64
	primary := tn.Connect
	tn.Connect = func(ctx context.Context) (workload.Conn, error) {
		primaries.Add(1)
		return primary(ctx)
	}
	tn.Replicas = []workload.Connect{func(ctx context.Context) (workload.Conn, error) {
		if down.Load() {
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
	outage := make(chan error, 1)
	started := func(time.Time, *Watch) {
		go func() {
			time.Sleep(500 * time.Millisecond)
			down.Store(true)
			_, err := admin.Exec(context.Background(),
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app)
			time.Sleep(1500 * time.Millisecond)
			replicasBack.Store(0)
			down.Store(false)
			outage <- err
		}()
	}
	res, err := Run(context.Background(), []Tenant{tn}, Options{Duration: 3500 * time.Millisecond, Started: started})
	if err != nil {
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
	n := primaries.Load()
	t.Logf("primary connections %d, replica connections after the outage %d, committed %d, connection failures %d",
		n, replicasBack.Load(), tr.All.Committed, lost)
	// 2 at the start, 2 after losing the replica, 2 once it is back; a
	// client caught by the outage between its two reconnections may make
	// one more.
	if n < 6 || n > 8 {
		t.Errorf("%d primary connections for 2 clients over a replica's 1.5 s outage, want 6 to 8", n)
	}
	// The probe's, then each client's.
	if b := replicasBack.Load(); b < 3 {
		t.Errorf("%d replica connections after the outage, want the probe's and the 2 clients'", b)
	}
	if lost == 0 || tr.ConnLost == "" {
		t.Errorf("the replica's sessions ended, yet %d connection failures (lost: %q)", lost, tr.ConnLost)
	}
	if tr.All.Committed < 1000 {
		t.Errorf("%d committed: the clients should read on through the outage", tr.All.Committed)
	}
}
