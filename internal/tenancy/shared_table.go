package tenancy

import (
	"context"
	"fmt"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/server"

	"github.com/tenantbench/tenantbench/internal/engine"
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
	admin, err := connectAdmin(ctx, inst, "")
	if err != nil {
		return nil, err
	}
	q := admin.sql
	sch, ok := inst.Engine.(engine.Schemas)
	if !ok {
		admin.close()
		return nil, fmt.Errorf("instance %s: engine %s has no schemas to share", inst.Name, inst.Engine.Name())
	}
	db, owner, group := SharedDatabaseOf(inst), objectName(inst, TableOwner), objectName(inst, tenantsGroup)
	creating(inst, provider.ObjectRole, owner, "")
	creating(inst, provider.ObjectRole, group, "")
	creating(inst, provider.ObjectDatabase, db, "")
	err = admin.exec(ctx, q.CreateGroup(owner), q.CreateGroup(group),
		q.CreateDatabase(db, owner),
		// TEMPORARY: a tenant loads its rows through a temporary table
		// (COPY FROM is refused on tables under row-level security).
		q.GrantDatabase(db, group, true),
		lockDown(q, inst))
	admin.close()
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	admin, err = connectAdmin(ctx, inst, db)
	if err != nil {
		return nil, err
	}
	defer admin.close()
	// The owner creates the tables in the default schema (its own on
	// every server version); tenants only use them.
	if err := admin.exec(ctx, sch.ShareDefaultSchema(owner, group)); err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	return admin.placeEach(ctx, tenants, func(role string) [][]string {
		return [][]string{q.GrantRole(group, role)}
	}, func(i int, t, role, pw string) Placement {
		return Placement{Tenant: t, Index: i, Instance: inst, Database: db, Role: role, Password: pw}
	})
}

// ConnectOwner opens a connection to the shared tables' database as their
// owner: a superuser connection that has taken the role TableOwner, so
// that what it creates belongs to the owner.
func ConnectOwner(ctx context.Context, inst *provider.Instance) (server.Client, error) {
	admin, err := connectAdmin(ctx, inst, SharedDatabaseOf(inst))
	if err != nil {
		return nil, err
	}
	if err := admin.exec(ctx, admin.sql.AssumeRole(objectName(inst, TableOwner))); err != nil {
		admin.close()
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	return admin.conn.Client(), nil
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
	rls, ok := inst.Engine.(engine.Sharer)
	if !ok {
		return fmt.Errorf("instance %s: its engine cannot keep tenants' rows apart in shared tables", inst.Name)
	}
	admin, err := connectAdmin(ctx, inst, SharedDatabaseOf(inst))
	if err != nil {
		return err
	}
	defer admin.close()
	group := objectName(inst, tenantsGroup)
	keyed := map[string]bool{}
	var stmts [][]string
	for _, k := range keys {
		keyed[k.Table] = true
		stmts = append(stmts, rls.ShareRows(k.Table, group))
	}
	tables, err := admin.conn.QueryStrings(ctx, rls.TablesQuery())
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, t := range tables {
		present[t] = true
		if !keyed[t] {
			stmts = append(stmts, rls.GrantRead(t, group))
		}
	}
	for _, k := range keys {
		if !present[k.Table] {
			return fmt.Errorf("shared-table: the workload keys table %s, which does not exist", k.Table)
		}
	}
	if err := admin.exec(ctx, stmts...); err != nil {
		return err
	}
	// One round trip per tenant: its policies, a statement per table.
	for _, p := range ps {
		lo, hi := ranges(p.Index)
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(rls.RowPolicy(p.Role, k.Table, k.Column, lo, hi) + ";\n")
		}
		if err := admin.conn.Exec(ctx, b.String()); err != nil {
			return fmt.Errorf("tenant %s: policies: %w", p.Tenant, err)
		}
	}
	return nil
}
