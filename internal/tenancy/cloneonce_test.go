package tenancy

import (
	"context"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// AddRole is Cloner.AddRole on a Cloner of its own, for tests that add
// one role.
func AddRole(ctx context.Context, inst *provider.Instance, tenant string, index int) (Placement, error) {
	c, err := OpenCloner(ctx, inst)
	if err != nil {
		return Placement{}, err
	}
	defer c.Close()
	return c.AddRole(ctx, tenant, index)
}

// CloneDatabase is Cloner.CloneDatabase on a Cloner of its own, for tests
// that make one copy or several at once.
func CloneDatabase(ctx context.Context, template, p Placement) error {
	c, err := OpenCloner(ctx, p.Instance)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.CloneDatabase(ctx, template, p)
}
