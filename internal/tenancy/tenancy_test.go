package tenancy

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

func TestTenantNames(t *testing.T) {
	if got := TenantNames(3); len(got) != 3 || got[0] != "t01" || got[2] != "t03" {
		t.Errorf("TenantNames(3) = %v", got)
	}
	if got := TenantNames(120); got[0] != "t001" || got[119] != "t120" {
		t.Errorf("TenantNames(120) = %v..%v, want t001..t120", got[0], got[119])
	}
	if got := TenantNames(10000); got[0] != "t00001" || got[9999] != "t10000" || got[9998] != TenantName(9998, 10000) {
		t.Errorf("TenantNames(10000) = %v..%v, want t00001..t10000", got[0], got[9999])
	}
}

// connectAs opens a connection as the tenant of p.
func connectAs(t *testing.T, p Placement) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), p.DSN("tcp"))
	if err != nil {
		t.Fatalf("tenant %s cannot connect to its own database: %v", p.Tenant, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestSchemaIsolation: in the schema model a tenant's unqualified tables
// land in its own schema, and it can read no other tenant's tables.
func TestSchemaIsolation(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Start(t)
	ps, err := Schema{}.Place(ctx, []*provider.Instance{inst}, TenantNames(2))
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := connectAs(t, ps[0]), connectAs(t, ps[1])
	for _, c := range []*pgx.Conn{c1, c2} {
		if _, err := c.Exec(ctx, "CREATE TABLE secrets (v int); INSERT INTO secrets VALUES (1)"); err != nil {
			t.Fatal(err)
		}
	}
	var schema string
	if err := c1.QueryRow(ctx, "SELECT table_schema FROM information_schema.tables WHERE table_name = 'secrets'").Scan(&schema); err != nil || schema != "t01" {
		t.Fatalf("t01's table is in schema %q (%v), want t01", schema, err)
	}
	_, err = c1.Exec(ctx, "SELECT * FROM t02.secrets")
	if sqlstate(err) != "42501" { // insufficient_privilege
		t.Errorf("t01 reading t02.secrets: err = %v, want permission denied (42501)", err)
	}
	_, err = c1.Exec(ctx, "CREATE TABLE public.x (v int)")
	if sqlstate(err) != "42501" {
		t.Errorf("t01 creating in public: err = %v, want permission denied", err)
	}
	// the maintenance database is closed to tenants
	other := ps[0]
	other.Database = "postgres"
	if c, err := pgx.Connect(ctx, other.DSN("tcp")); err == nil {
		c.Close(ctx)
		t.Error("t01 could connect to database postgres")
	}
}

// TestDatabaseIsolation: in the database model a tenant cannot open another
// tenant's database at all.
func TestDatabaseIsolation(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Start(t)
	ps, err := Database{}.Place(ctx, []*provider.Instance{inst}, TenantNames(2))
	if err != nil {
		t.Fatal(err)
	}
	c2 := connectAs(t, ps[1])
	if _, err := c2.Exec(ctx, "CREATE TABLE secrets (v int)"); err != nil {
		t.Fatal(err)
	}
	intruder := ps[0]
	intruder.Database = ps[1].Database
	c, err := pgx.Connect(ctx, intruder.DSN("tcp"))
	if err == nil {
		c.Close(ctx)
		t.Fatal("t01 could connect to t02's database")
	}
	if sqlstate(err) != "42501" {
		t.Errorf("t01 connecting to t02's database: %v, want permission denied (42501)", err)
	}
	var owner string
	c1 := connectAs(t, ps[0])
	if err := c1.QueryRow(ctx, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()").Scan(&owner); err != nil || owner != "t01" {
		t.Errorf("t01's database owner = %q (%v)", owner, err)
	}
}

// TestInstanceModel: one server per tenant, each tenant on its own.
func TestInstanceModel(t *testing.T) {
	ctx := context.Background()
	insts := []*provider.Instance{pgtest.Start(t), pgtest.Start(t)}
	ps, err := Instance{}.Place(ctx, insts, TenantNames(2))
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Instance == ps[1].Instance || ps[1].Index != 1 {
		t.Fatalf("placements = %+v", ps)
	}
	connectAs(t, ps[0])
	connectAs(t, ps[1])
	if _, err := (Instance{}).Place(ctx, insts[:1], TenantNames(2)); err == nil {
		t.Error("Place accepted fewer instances than tenants")
	}
}
