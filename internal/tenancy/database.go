package tenancy

import (
	"context"
	"fmt"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// Database is the database-per-tenant model: one server, one database per
// tenant, owned by the tenant's role and closed to every other role.
type Database struct{}

func (Database) Instances(int) int { return 1 }

func (Database) Place(ctx context.Context, insts []*provider.Instance, tenants []string) ([]Placement, error) {
	return placeDatabases(ctx, insts[0], tenants, 0)
}

// placeDatabases gives each tenant its own role and database on inst;
// first is the index of tenants[0] among all the run's tenants.
func placeDatabases(ctx context.Context, inst *provider.Instance, tenants []string, first int) ([]Placement, error) {
	admin, err := connectAdmin(ctx, inst, "")
	if err != nil {
		return nil, err
	}
	defer admin.close()
	if err := admin.exec(ctx, lockDown(admin.sql, inst)); err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	// The owner connects by ownership; no other tenant can open the
	// database.
	return admin.placeEach(ctx, tenants, func(role string) [][]string {
		creating(inst, provider.ObjectDatabase, role, "")
		return [][]string{admin.sql.CreateDatabase(role, role)}
	}, func(i int, t, role, pw string) Placement {
		return Placement{Tenant: t, Index: first + i, Instance: inst, Database: role, Role: role, Password: pw}
	})
}
