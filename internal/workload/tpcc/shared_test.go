package tpcc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

func forTenant(t testing.TB, w *Workload, index, tenants int) *Workload {
	t.Helper()
	k, err := w.ForTenant(workload.TenantKey{Index: index, Tenants: tenants})
	if err != nil {
		t.Fatal(err)
	}
	return k.(*Workload)
}

// TestKeyRanges: the tenants' warehouse ranges are disjoint and cover
// 1 .. T x W in order.
func TestKeyRanges(t *testing.T) {
	w := mustWorkload(t, 3, DefaultOptions())
	next := int64(1)
	for i := range 4 {
		lo, hi := w.KeyRange(workload.TenantKey{Index: i, Tenants: 4})
		if lo != next || hi != lo+2 {
			t.Errorf("tenant %d: warehouses %d..%d, want %d..%d", i, lo, hi, next, next+2)
		}
		next = hi + 1
	}
	if len(w.KeyColumns()) != 8 {
		t.Errorf("%d keyed tables, want the 8 but ITEM", len(w.KeyColumns()))
	}
	for _, bad := range []workload.TenantKey{{Index: -1, Tenants: 2}, {Index: 2, Tenants: 2}, {Index: 0, Tenants: 0}} {
		if _, err := w.ForTenant(bad); err == nil {
			t.Errorf("ForTenant(%+v) accepted", bad)
		}
	}
	if _, err := forTenant(t, w, 0, 1).ForTenant(workload.TenantKey{Index: 0, Tenants: 1}); err == nil {
		t.Error("ForTenant of a tenant's workload accepted")
	}
}

// copyRows splits COPY binary data into rows of fields.
func copyRows(t *testing.T, data []byte) [][][]byte {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(workload.CopyHeader)) {
		t.Fatal("no COPY header")
	}
	data = data[len(workload.CopyHeader):]
	var rows [][][]byte
	for {
		n := int16(binary.BigEndian.Uint16(data))
		data = data[2:]
		if n == -1 {
			return rows
		}
		row := make([][]byte, n)
		for i := range row {
			l := int32(binary.BigEndian.Uint32(data))
			data = data[4:]
			if l >= 0 {
				row[i], data = data[:l], data[l:]
			}
		}
		rows = append(rows, row)
	}
}

// warehouseFields are the columns of each table holding a warehouse
// number.
var warehouseFields = map[table][]int{
	tWarehouse: {0}, tDistrict: {1}, tCustomer: {2}, tHistory: {2, 4}, tOrders: {2}, tNewOrder: {2},
	tOrderLine: {2, 5}, tStock: {1},
}

// TestTenantGeneration: a tenant of shared tables generates the rows of a
// tenant with tables of its own, its warehouse numbers moved into its
// range and nothing else changed.
func TestTenantGeneration(t *testing.T) {
	own := mustWorkload(t, 2, DefaultOptions())
	shared := forTenant(t, own, 2, 3) // warehouses 5 and 6
	if got, want := shared.Rows(), own.Rows()-items; got != want {
		t.Errorf("Rows() = %d, want %d (no items)", got, want)
	}
	g := newGenerator(own.seed, own.k, loadTime)
	gs := newGenerator(shared.seed, shared.k, loadTime)
	gs.first = shared.first
	for _, tb := range warehouseTables {
		for w := 1; w <= 2; w++ {
			a, b := copyRows(t, copyBytes(t, g, tb, w)), copyRows(t, copyBytes(t, gs, tb, w))
			if len(a) != len(b) {
				t.Fatalf("%s of warehouse %d: %d rows, tenant's %d", tb, w, len(a), len(b))
			}
			for r := range a {
				for f := range a[r] {
					want := a[r][f]
					for _, wf := range warehouseFields[tb] {
						if wf == f {
							want = binary.BigEndian.AppendUint32(nil, uint32(4+w))
						}
					}
					if !bytes.Equal(b[r][f], want) {
						t.Fatalf("%s of warehouse %d, row %d, field %d: %x, want %x", tb, w, r, f, b[r][f], want)
					}
				}
			}
		}
	}
	for _, u := range shared.units() {
		if u.t == tItem || u.w == 0 {
			t.Errorf("a tenant of shared tables loads unit %s", u)
		}
	}
}

// TestTenantTerminals: a tenant's terminals, their remote warehouses and
// their walk over all warehouses stay within its range.
func TestTenantTerminals(t *testing.T) {
	o := DefaultOptions()
	for _, all := range []bool{false, true} {
		o.AllWarehouses = all
		w := forTenant(t, mustWorkload(t, 4, o), 1, 3) // warehouses 5 .. 8
		for i := range 12 {
			c := w.newClient(clientInfo(i, 12, uint64(i)))
			if c.home < 5 || c.home > 8 {
				t.Fatalf("terminal %d: home %d", i, c.home)
			}
			seen := map[int]bool{}
			for range 200 {
				home := c.home
				if all {
					home = c.first + (c.home-c.first-1+c.turn)%c.warehouses + 1
					c.turn++
				}
				seen[home] = true
				if o := c.other(home); o < 5 || o > 8 || o == home {
					t.Fatalf("other(%d) = %d", home, o)
				}
				if home < 5 || home > 8 {
					t.Fatalf("home %d", home)
				}
			}
			if all && len(seen) != 4 {
				t.Errorf("all_warehouses visited %v", seen)
			}
		}
	}
}

// sharedTenant is one tenant of shared tables on a test server.
type sharedTenant struct {
	*tenant
	p tenancy.Placement
}

// TestSharedTables loads three tenants of two warehouses each into shared
// tables under row-level security, checks that each sees, changes and adds
// its own rows only, runs a mix on all three at once and checks every
// tenant's consistency.
func TestSharedTables(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads 6 warehouses")
	}
	ctx := context.Background()
	const tenants, wh = 3, 2
	inst := pgtest.Start(t)
	ps, err := tenancy.SharedTable{}.Place(ctx, []*provider.Instance{inst}, tenancy.TenantNames(tenants))
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Interaction = InteractionProcedures // the owner creates the functions
	owner := mustWorkload(t, wh, o)
	ownerConn := func(ctx context.Context) (workload.Conn, error) { return tenancy.ConnectOwner(ctx, inst) }
	conn, err := workload.ConnectPG(ctx, Name, ownerConn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := owner.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	err = tenancy.SharedTable{}.Share(ctx, inst, ps, owner.KeyColumns(), func(i int) (int64, int64) {
		return owner.KeyRange(workload.TenantKey{Index: i, Tenants: tenants})
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := make([]sharedTenant, tenants)
	for i, p := range ps {
		dsn := p.DSN("unix")
		te := &tenant{w: forTenant(t, owner, i, tenants),
			connect: workload.PGConnect(func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) })}
		te.conn = te.open(t)
		ts[i] = sharedTenant{te, p}
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, tenants+1)
	wg.Add(1)
	go func() { defer wg.Done(); errs <- owner.IngestShared(ctx, ownerConn, nil) }()
	for _, te := range ts {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- te.w.Ingest(ctx, te.connect, nil) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := owner.PostIngest(ctx, conn); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tenants x %d warehouses loaded into shared tables in %v", tenants, wh, time.Since(start).Round(time.Millisecond))

	admin := pgtest.Connect(t, inst, tenancy.SharedDatabase) // superuser: bypasses row-level security
	count := func(c *pgx.Conn, sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := c.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	t.Run("load", func(t *testing.T) {
		if n := count(admin, "select count(*) from warehouse"); n != tenants*wh {
			t.Errorf("%d warehouses, want %d tenants x %d", n, tenants, wh)
		}
		if n := count(admin, "select count(distinct w_id) from warehouse where w_id between 1 and $1", tenants*wh); n != tenants*wh {
			t.Errorf("warehouses not numbered 1..%d", tenants*wh)
		}
		if n := count(admin, "select count(*) from item"); n != items {
			t.Errorf("%d items, want %d once", n, items)
		}
		for _, te := range ts {
			if n := count(te.conn, "select count(*) from stock"); n != wh*stockPerW {
				t.Errorf("%s sees %d stock rows, want its own %d", te.p.Tenant, n, wh*stockPerW)
			}
			if n := count(te.conn, "select count(*) from item"); n != items {
				t.Errorf("%s sees %d items", te.p.Tenant, n)
			}
			te.mustCheck(t, true)
		}
		// The owner is bound by the policies too (FORCE): it has none.
		if n := count(conn, "select count(*) from customer"); n != 0 {
			t.Errorf("the owner sees %d customers through row-level security, want 0", n)
		}
	})

	t.Run("isolation", func(t *testing.T) {
		t1, t2 := ts[0], ts[1]
		lo2, _ := owner.KeyRange(workload.TenantKey{Index: 1, Tenants: tenants})
		for _, tb := range keyColumns {
			if n := count(t1.conn, "select count(*) from "+tb.Table+" where "+tb.Column+" = $1", lo2); n != 0 {
				t.Errorf("%s reads %d rows of %s's warehouse %d in %s", t1.p.Tenant, n, t2.p.Tenant, lo2, tb.Table)
			}
		}
		ytd := count(admin, "select sum(d_ytd)::int8 from district where d_w_id = $1", lo2)
		tag, err := t1.conn.Exec(ctx, "update district set d_ytd = 0 where d_w_id = $1", lo2)
		if err != nil || tag.RowsAffected() != 0 {
			t.Errorf("%s updating %s's districts: %v rows, %v; want 0 rows", t1.p.Tenant, t2.p.Tenant, tag.RowsAffected(), err)
		}
		tag, err = t1.conn.Exec(ctx, "delete from new_order where no_w_id = $1", lo2)
		if err != nil || tag.RowsAffected() != 0 {
			t.Errorf("%s deleting %s's new orders: %v rows, %v", t1.p.Tenant, t2.p.Tenant, tag.RowsAffected(), err)
		}
		if n := count(admin, "select sum(d_ytd)::int8 from district where d_w_id = $1", lo2); n != ytd {
			t.Errorf("%s's districts changed from %d to %d", t2.p.Tenant, ytd, n)
		}
		_, err = t1.conn.Exec(ctx, "insert into new_order values (9999, 1, $1)", lo2)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%s adding a row to %s's warehouse: %v, want a row-level security violation (42501)", t1.p.Tenant, t2.p.Tenant, err)
		}
		// Moving an own row into another's range is refused too.
		lo1, _ := owner.KeyRange(workload.TenantKey{Index: 0, Tenants: tenants})
		_, err = t1.conn.Exec(ctx, "update history set h_w_id = $1 where h_w_id = $2", lo2, lo1)
		if !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%s moving its rows to %s's warehouse: %v, want 42501", t1.p.Tenant, t2.p.Tenant, err)
		}
		if _, err := t1.conn.Exec(ctx, "update item set i_price = 1 where i_id = 1"); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%s changing the shared items: %v, want permission denied", t1.p.Tenant, err)
		}
		if _, err := t1.conn.Exec(ctx, "create table mine (v int)"); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%s creating a table: %v, want permission denied", t1.p.Tenant, err)
		}
	})

	for _, mode := range Interactions {
		t.Run("mixed "+mode, func(t *testing.T) { sharedMixed(t, mode, owner, ts, admin) })
	}
}

// sharedMixed runs a mix of interaction mode on every tenant of the shared
// tables at once, then checks every tenant's consistency and that no row
// crossed to another tenant.
func sharedMixed(t *testing.T, mode string, owner *Workload, ts []sharedTenant, admin *pgx.Conn) {
	ctx := context.Background()
	tenants := len(ts)
	count := func(c *pgx.Conn, sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := c.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	{
		// Two warehouses per tenant: remote order lines and payments
		// happen, within each tenant's own range.
		var wg sync.WaitGroup
		for _, te := range ts {
			te.w.opts.Interaction = mode
			wg.Add(1)
			go func() { defer wg.Done(); runMixed(t, te.tenant, 4, 3*time.Second) }()
		}
		wg.Wait()
		for _, te := range ts {
			te.mustCheck(t, true)
		}
		// Every tenant's remote lines stayed in its own range.
		for i := range ts {
			lo, hi := owner.KeyRange(workload.TenantKey{Index: i, Tenants: tenants})
			if n := count(admin, "select count(*) from order_line where ol_w_id between $1 and $2 and ol_supply_w_id not between $1 and $2", lo, hi); n != 0 {
				t.Errorf("tenant %d: %d order lines supplied by another tenant's warehouse", i, n)
			}
			if n := count(admin, "select count(*) from history where h_w_id between $1 and $2 and h_c_w_id not between $1 and $2", lo, hi); n != 0 {
				t.Errorf("tenant %d: %d payments of another tenant's customers", i, n)
			}
		}
		if n := count(admin, "select count(*) from order_line where ol_supply_w_id <> ol_w_id"); n == 0 {
			t.Error("no remote order line in the mixed run")
		}
	}
}
