package tpcb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestTextRows: LOAD DATA's lines are COPY's rows, field for field.
func TestTextRows(t *testing.T) {
	for _, c := range []struct {
		row  []byte
		want string
	}{
		{encodeBranch(nil, 3), "3\t0\t\\N\n"},
		{encodeTeller(nil, 11), "11\t2\t0\t\\N\n"},
		{encodeAccount(nil, 100001, false), "100001\t2\t0\t\n"},
		{encodeAccount(nil, 5000000000, true), "5000000000\t50000\t0\t\n"},
	} {
		got, err := textRow(nil, c.row)
		if err != nil || string(got) != c.want {
			t.Errorf("textRow = %q, %v; want %q", got, err, c.want)
		}
	}
}

// maxMariaAllocs bound the allocations of a transaction of each script on
// MariaDB (measured: see TestMariaDB's log), so that a change that adds
// some per statement is seen.
var maxMariaAllocs = map[string]float64{SelectOnly: 10, SimpleUpdate: 35, TPCBLike: 45}

// TestMariaDB loads tpcb into a tenant of a MariaDB server, runs every
// script, and checks the tables: consistent after the transactions, a
// violation found once an account is changed behind the history's back.
func TestMariaDB(t *testing.T) {
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inst := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}))
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context) (workload.Conn, error) {
		return inst.Engine.ClientConn(ctx, ps[0].DSN("tcp"), nil)
	}
	w := newWorkload(t, 1, withScripts(map[string]int{TPCBLike: 1, SimpleUpdate: 1, SelectOnly: 1}))
	conn, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var loaded int64
	if err := w.Ingest(ctx, connect, func(n int64) { loaded = n }); err != nil {
		t.Fatal(err)
	}
	if loaded != w.Rows() {
		t.Errorf("progress says %d rows, want %d", loaded, w.Rows())
	}
	if err := w.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	cc, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close(ctx)
	client, err := w.NewClient(ctx, cc, workload.ClientInfo{Seed: 7, Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(w.TxnNames()))
	for i := 0; i < 300; i++ {
		typ := client.Pick()
		if err := client.Run(ctx, typ); err != nil {
			t.Fatalf("%s: %v", w.TxnNames()[typ], err)
		}
		counts[typ]++
	}
	for i, n := range counts {
		if n == 0 {
			t.Errorf("script %s never ran", w.TxnNames()[i])
		}
	}
	// The hot path goes to the driver's connection itself: what a
	// transaction still allocates is the driver's own (its result, its
	// rows, their column descriptions, boxed values).
	for i, name := range w.TxnNames() {
		allocs := testing.AllocsPerRun(50, func() {
			if err := client.Run(ctx, i); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		})
		t.Logf("%s on MariaDB: %.0f allocations per transaction", name, allocs)
		if limit := maxMariaAllocs[name]; allocs > limit {
			t.Errorf("%s on MariaDB: %.0f allocations per transaction, want at most %.0f", name, allocs, limit)
		}
	}
	check := w.(workload.Checker)
	if v, err := check.Check(ctx, conn); err != nil || len(v) > 0 {
		t.Fatalf("after the transactions: %v %v", v, err)
	}
	mc, _ := mariadb.Of(conn)
	if err := mc.Exec(ctx, "update pgbench_accounts set abalance = abalance + 1 where aid = 1"); err != nil {
		t.Fatal(err)
	}
	if v, err := check.Check(ctx, conn); err != nil || len(v) != 1 || !strings.Contains(v[0], "sum(abalance)") {
		t.Errorf("after a change the history does not hold: %v %v, want the abalance violation", v, err)
	}
}
