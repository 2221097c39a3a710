package tenancy

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// SharedDatabase is the one database of the schema model.
const SharedDatabase = "tenantbench"

// Schema is the schema-per-tenant model: one server, one database, one
// schema per tenant. The tenant's role has its schema as search_path, so
// the tenant's connection alone selects its schema (Erdelt and Rabl 2026,
// section 4.2).
type Schema struct{}

func (Schema) Instances(int) int { return 1 }

func (Schema) Place(ctx context.Context, insts []*provider.Instance, tenants []string) ([]Placement, error) {
	inst := insts[0]
	sch, ok := inst.Engine.(engine.Schemas)
	if !ok {
		return nil, fmt.Errorf("instance %s: engine %s has no schemas apart from databases", inst.Name, inst.Engine.Name())
	}
	admin, err := connectAdmin(ctx, inst, "")
	if err != nil {
		return nil, err
	}
	db := SharedDatabaseOf(inst)
	creating(inst, provider.ObjectDatabase, db, "")
	err = admin.exec(ctx, admin.sql.CreateDatabase(db, ""), lockDown(admin.sql, inst))
	admin.close()
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	admin, err = connectAdmin(ctx, inst, db)
	if err != nil {
		return nil, err
	}
	defer admin.close()
	// No tenant may create in or read from the shared default schema.
	if err := admin.exec(ctx, sch.CloseDefaultSchema()); err != nil {
		return nil, err
	}
	return admin.placeEach(ctx, tenants, func(role string) [][]string {
		creating(inst, provider.ObjectSchema, role, db)
		return [][]string{admin.sql.GrantDatabase(db, role, false), sch.CreateSchema(db, role, role)}
	}, func(i int, t, role, pw string) Placement {
		return Placement{Tenant: t, Index: i, Instance: inst, Database: db, Schema: role, Role: role, Password: pw}
	})
}
