package lag

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestLagMeasuresApplyDelay runs every operation against a primary whose
// replica applies each commit 200 ms after it was made
// (recovery_min_apply_delay): the lag measured of each is that delay,
// within 10 %, the change is on the replica afterwards, and the
// histograms hold the measured part only.
func TestLagMeasuresApplyDelay(t *testing.T) {
	const delay = 200 * time.Millisecond
	prim := pgtest.Start(t, pgtest.Settings(map[string]string{"recovery_min_apply_delay": "200ms"}))
	ctx := context.Background()
	w, err := New(0.01, Options{Insert: 40, Update: 30, Delete: 30, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, prim, "postgres")
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context) (workload.Conn, error) { return pgx.Connect(ctx, prim.AdminDSN("postgres")) }
	if err := w.Ingest(ctx, connect, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	// Made after post-ingest, as a run makes them: the copy holds the
	// loaded table (a change made before would show 200 ms later).
	rep := pgtest.Replicas(t, prim, 1, false)[0]
	rc := pgtest.Connect(t, rep, "postgres")
	cl, err := w.NewClient(ctx, conn, workload.ClientInfo{Index: 0, Clients: 1, Seed: 7, Replicas: []workload.Conn{rc}})
	if err != nil {
		t.Fatal(err)
	}
	// Before the measured part: run, not counted.
	if err := cl.Run(ctx, 0); err != nil {
		t.Fatal(err)
	}
	lw := w.(*Workload)
	lw.Measure(time.Now(), time.Now().Add(time.Hour))
	for typ := range lw.TxnNames() {
		for range 4 {
			if err := cl.Run(ctx, typ); err != nil {
				t.Fatalf("%s: %v", lw.TxnNames()[typ], err)
			}
		}
	}
	lags := lw.Lags()
	if len(lags) != 3 {
		t.Fatalf("%d histograms, want one per operation", len(lags))
	}
	for _, l := range lags {
		mean := time.Duration(l.Hist.Mean() * float64(time.Microsecond))
		if l.Hist.TotalCount() != 4 || l.Replica != 0 {
			t.Errorf("%s: %d changes on replica %d, want 4 on 0", l.Op, l.Hist.TotalCount(), l.Replica)
		}
		if math.Abs(float64(mean-delay)) > 0.1*float64(delay) {
			t.Errorf("%s: mean lag %v, want %v within 10 %%", l.Op, mean, delay)
		}
		t.Logf("%s: mean %v, max %v", l.Op, mean, time.Duration(l.Hist.Max())*time.Microsecond)
	}
	var onPrimary, onReplica int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM lag_rows").Scan(&onPrimary); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * delay)
	if err := rc.QueryRow(ctx, "SELECT count(*) FROM lag_rows").Scan(&onReplica); err != nil {
		t.Fatal(err)
	}
	if onPrimary != onReplica || onPrimary != 100+5-4 {
		t.Errorf("%d rows on the primary, %d on the replica, want %d on both", onPrimary, onReplica, 100+5-4)
	}
	if provider.Role(rep) != "replica" {
		t.Errorf("role %s", provider.Role(rep))
	}
}
