package tenancy

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// The roles of the shared-table model besides the tenants'.
const (
	// TableOwner owns the shared tables: the workload creates, loads the
	// shared read-only tables of, and indexes them as this role (see
	// ConnectOwner). It cannot log in.
	TableOwner = "tenantbench_owner"
	// tenantsGroup holds the privileges every tenant of the shared tables
	// has: connecting, the schema, the tables. Each tenant's rows are its
	// own through the policies of Share.
	tenantsGroup = "tenantbench_tenants"
)

// SharedTable is the shared-table model: one server, one database, the
// same tables for every tenant. Each row carries its tenant's key (TPC-C:
// the warehouse number), and row-level security, enabled and forced on
// every keyed table, gives each tenant's role a policy of its own key
// range: the tenant reads, changes and adds its own rows only. Place makes
// the roles and the database; the tables come from the workload (as
// TableOwner), then Share grants the tenants their rows.
type SharedTable struct{}

func (SharedTable) Instances(int) int { return 1 }

func (SharedTable) Place(ctx context.Context, insts []*provider.Instance, tenants []string) ([]Placement, error) {
	inst := insts[0]
	admin, err := connectAdmin(ctx, inst, "postgres")
	if err != nil {
		return nil, err
	}
	db := ident(SharedDatabase)
	err = execAll(ctx, admin,
		"CREATE ROLE "+ident(TableOwner)+" NOLOGIN",
		"CREATE ROLE "+ident(tenantsGroup)+" NOLOGIN",
		"CREATE DATABASE "+db+" OWNER "+ident(TableOwner),
		"REVOKE CONNECT, TEMPORARY ON DATABASE "+db+" FROM PUBLIC",
		// TEMPORARY: a tenant loads its rows through a temporary table
		// (COPY FROM is refused on tables under row-level security).
		"GRANT CONNECT, TEMPORARY ON DATABASE "+db+" TO "+ident(tenantsGroup))
	if err == nil {
		err = lockDown(ctx, admin)
	}
	admin.Close(context.Background())
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	admin, err = connectAdmin(ctx, inst, SharedDatabase)
	if err != nil {
		return nil, err
	}
	defer admin.Close(context.Background())
	// The owner creates the tables in public (its own on every server
	// version); tenants only use them.
	err = execAll(ctx, admin,
		"ALTER SCHEMA public OWNER TO "+ident(TableOwner),
		"REVOKE ALL ON SCHEMA public FROM PUBLIC",
		"GRANT USAGE ON SCHEMA public TO "+ident(tenantsGroup))
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	return placeEach(ctx, admin, tenants, func(t string) []string {
		return []string{"GRANT " + ident(tenantsGroup) + " TO " + ident(t)}
	}, func(i int, t, pw string) Placement {
		return Placement{Tenant: t, Index: i, Instance: inst, Database: SharedDatabase, Role: t, Password: pw}
	})
}

// ConnectOwner opens a connection to the shared tables' database as their
// owner: a superuser connection that has taken the role TableOwner (SET
// ROLE), so that what it creates belongs to the owner.
func ConnectOwner(ctx context.Context, inst *provider.Instance) (*pgx.Conn, error) {
	conn, err := connectAdmin(ctx, inst, SharedDatabase)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "SET ROLE "+ident(TableOwner)); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	return conn, nil
}

// KeyRange is the key values tenant i (the Index of its placement) owns,
// both ends included.
type KeyRange func(i int) (lo, hi int64)

// Share gives the tenants of ps their rows of the shared tables, once the
// workload has created them: row-level security enabled and forced on
// every keyed table (the owner is bound by the policies too), a policy per
// tenant and keyed table for the rows whose key column is in the tenant's
// range, for reading (USING) and for writing (WITH CHECK); reading,
// adding, changing and removing rows of the keyed tables; reading every
// other table of the schema (shared read-only data such as TPC-C's ITEM).
func (SharedTable) Share(ctx context.Context, inst *provider.Instance, ps []Placement, keys []workload.KeyColumn, ranges KeyRange) error {
	admin, err := connectAdmin(ctx, inst, SharedDatabase)
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	keyed := map[string]bool{}
	var stmts []string
	group := ident(tenantsGroup)
	for _, k := range keys {
		t := ident(k.Table)
		keyed[k.Table] = true
		stmts = append(stmts,
			"ALTER TABLE "+t+" ENABLE ROW LEVEL SECURITY",
			"ALTER TABLE "+t+" FORCE ROW LEVEL SECURITY",
			"GRANT SELECT, INSERT, UPDATE, DELETE ON "+t+" TO "+group)
	}
	rows, err := admin.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, t := range tables {
		present[t] = true
		if !keyed[t] {
			stmts = append(stmts, "GRANT SELECT ON "+ident(t)+" TO "+group)
		}
	}
	for _, k := range keys {
		if !present[k.Table] {
			return fmt.Errorf("shared-table: the workload keys table %s, which does not exist", k.Table)
		}
	}
	if err := execAll(ctx, admin, stmts...); err != nil {
		return err
	}
	// One round trip per tenant: its policies, a statement per table.
	for _, p := range ps {
		lo, hi := ranges(p.Index)
		var b strings.Builder
		for _, k := range keys {
			in := fmt.Sprintf("%s BETWEEN %d AND %d", ident(k.Column), lo, hi)
			fmt.Fprintf(&b, "CREATE POLICY %s ON %s TO %s USING (%s) WITH CHECK (%s);\n",
				ident(p.Role), ident(k.Table), ident(p.Role), in, in)
		}
		if err := admin.PgConn().Exec(ctx, b.String()).Close(); err != nil {
			return fmt.Errorf("tenant %s: policies: %w", p.Tenant, err)
		}
	}
	return nil
}

// Accepts says why the shared-table model cannot hold w: only a workload
// whose tables carry a tenant key (workload.Shared) can share them.
func (SharedTable) Accepts(w workload.Workload) string {
	if _, ok := w.(workload.Shared); !ok {
		return "shared-table needs a workload with a tenant key"
	}
	return ""
}
