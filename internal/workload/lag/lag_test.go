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
// replica applies each commit 500 ms after it was made
// (recovery_min_apply_delay): the lag measured of each is that delay,
// within 10 % (the median of 6, and a delay long enough that the tens of
// milliseconds a loaded machine adds or takes, the replica's startup
// process waking late, the client reading the commit late, stay within
// it), the change is on
// the replica afterwards, and the histograms hold the measured part
// only.
func TestLagMeasuresApplyDelay(t *testing.T) {
	const delay = 500 * time.Millisecond
	prim := pgtest.Start(t, pgtest.Settings(map[string]string{"recovery_min_apply_delay": "500ms"}))
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
	// loaded table (a change made before would show 500 ms later).
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
		for range 6 {
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
		median := time.Duration(l.Hist.ValueAtQuantile(50)) * time.Microsecond
		if l.Hist.TotalCount() != 6 || l.Replica != 0 {
			t.Errorf("%s: %d changes on replica %d, want 6 on 0", l.Op, l.Hist.TotalCount(), l.Replica)
		}
		if math.Abs(float64(median-delay)) > 0.1*float64(delay) {
			t.Errorf("%s: median lag %v, want %v within 10 %%", l.Op, median, delay)
		}
		t.Logf("%s: median %v, mean %.1f ms, max %v", l.Op, median, l.Hist.Mean()/1000, time.Duration(l.Hist.Max())*time.Microsecond)
	}
	var onPrimary, onReplica int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM lag_rows").Scan(&onPrimary); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * delay)
	if err := rc.QueryRow(ctx, "SELECT count(*) FROM lag_rows").Scan(&onReplica); err != nil {
		t.Fatal(err)
	}
	if onPrimary != onReplica || onPrimary != 100+7-6 {
		t.Errorf("%d rows on the primary, %d on the replica, want %d on both", onPrimary, onReplica, 100+7-6)
	}
	if provider.Role(rep) != "replica" {
		t.Errorf("role %s", provider.Role(rep))
	}
}
