package tenancy

import (
	"context"
	"fmt"

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
	admin, err := connectAdmin(ctx, inst, "postgres")
	if err != nil {
		return nil, err
	}
	err = execAll(ctx, admin, "CREATE DATABASE "+ident(SharedDatabase),
		"REVOKE CONNECT, TEMPORARY ON DATABASE "+ident(SharedDatabase)+" FROM PUBLIC")
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
	// No tenant may create in or read from the shared public schema.
	if err := execAll(ctx, admin, "REVOKE ALL ON SCHEMA public FROM PUBLIC"); err != nil {
		return nil, err
	}
	db := ident(SharedDatabase)
	return placeEach(ctx, admin, tenants, func(t string) []string {
		return []string{"GRANT CONNECT ON DATABASE " + db + " TO " + ident(t),
			"CREATE SCHEMA " + ident(t) + " AUTHORIZATION " + ident(t),
			"ALTER ROLE " + ident(t) + " IN DATABASE " + db + " SET search_path = " + ident(t)}
	}, func(i int, t, pw string) Placement {
		return Placement{Tenant: t, Index: i, Instance: inst, Database: SharedDatabase, Schema: t, Role: t, Password: pw}
	})
}
