package tenancy

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/sales"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

// TestSharedTableIsolation: in the shared-table model each tenant's role
// reads, changes and adds only the rows of its key range, reads the shared
// tables, and creates nothing; the owner is bound by the policies too.
func TestSharedTableIsolation(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Start(t)
	ps, err := SharedTable{}.Place(ctx, []*provider.Instance{inst}, TenantNames(2))
	if err != nil {
		t.Fatal(err)
	}
	oc, err := ConnectOwner(ctx, inst)
	if err != nil {
		t.Fatal(err)
	}
	owner := oc.(*pgx.Conn)
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, "create table acc (k int, v int); create table common (v int); insert into common values (7)"); err != nil {
		t.Fatal(err)
	}
	ranges := func(i int) (int64, int64) { return int64(i*10 + 1), int64(i*10 + 10) }
	if err := (SharedTable{}).Share(ctx, inst, ps, []workload.KeyColumn{{Table: "acc", Column: "k"}}, ranges); err != nil {
		t.Fatal(err)
	}
	c1, c2 := connectAs(t, ps[0]), connectAs(t, ps[1])
	if _, err := c1.Exec(ctx, "insert into acc values (1, 100), (10, 100)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Exec(ctx, "insert into acc values (11, 200)"); err != nil {
		t.Fatal(err)
	}
	count := func(c *pgx.Conn, sql string) int64 {
		t.Helper()
		var n int64
		if err := c.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	if n := count(c1, "select count(*) from acc"); n != 2 {
		t.Errorf("t01 sees %d rows, want its 2", n)
	}
	if n := count(c1, "select count(*) from acc where k = 11"); n != 0 {
		t.Errorf("t01 reads t02's row")
	}
	if tag, err := c1.Exec(ctx, "update acc set v = 0 where k = 11"); err != nil || tag.RowsAffected() != 0 {
		t.Errorf("t01 updating t02's row: %d rows, %v", tag.RowsAffected(), err)
	}
	if tag, err := c1.Exec(ctx, "delete from acc"); err != nil || tag.RowsAffected() != 2 {
		t.Errorf("t01 deleting all rows: %d rows (want its 2), %v", tag.RowsAffected(), err)
	}
	if n := count(c2, "select sum(v) from acc"); n != 200 {
		t.Errorf("t02's row changed: sum %d", n)
	}
	for _, stmt := range []string{
		"insert into acc values (11, 1)",             // another tenant's key
		"update common set v = 0",                    // shared read-only
		"create table mine (v int)",                  // no creating
		"alter table acc disable row level security", // not the owner
	} {
		if _, err := c1.Exec(ctx, stmt); sqlstate(err) != "42501" {
			t.Errorf("t01: %s: %v, want permission denied (42501)", stmt, err)
		}
	}
	if n := count(c1, "select v from common"); n != 7 {
		t.Errorf("t01 reads %d from the shared table", n)
	}
	if n := count(owner, "select count(*) from acc"); n != 0 {
		t.Errorf("the owner sees %d rows, want none: row-level security is forced", n)
	}
	other := ps[0]
	other.Database = "postgres"
	if c, err := pgx.Connect(ctx, other.DSN("tcp")); err == nil {
		c.Close(ctx)
		t.Error("t01 could connect to database postgres")
	}
}

// TestSharedTableAccepts: the shared-table model holds exactly the
// workloads whose tables carry a tenant key.
func TestSharedTableAccepts(t *testing.T) {
	r := workload.Registry{}
	r.Add(tpcb.Factory())
	r.Add(sales.Factory())
	r.Add(tpcc.Factory())
	for _, name := range r.Names() {
		w, err := r.Build(&spec.Workload{Name: name}, 1)
		if err != nil {
			t.Fatal(err)
		}
		_, keyed := w.(workload.Shared)
		if accepted := (SharedTable{}).Accepts(w) == ""; keyed != accepted {
			t.Errorf("workload %s: implements workload.Shared %v, accepted by the shared-table model %v", name, keyed, accepted)
		}
		// The other models hold every workload.
		for mn, m := range Builtin() {
			accepted := Accepts(m, w) == ""
			if want := mn != "shared-table" || keyed; accepted != want {
				t.Errorf("model %s accepts workload %s: %v, want %v (%q)", mn, name, accepted, want, Accepts(m, w))
			}
		}
	}
}
