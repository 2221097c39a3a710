package tenancy

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// Instance is the instance-per-tenant model, Erdelt and Rabl's (2026)
// container model: every tenant has its own server, in its own cgroup,
// holding its own database.
type Instance struct{}

func (Instance) Instances(n int) int { return n }

func (Instance) Place(ctx context.Context, insts []*provider.Instance, tenants []string) ([]Placement, error) {
	if len(insts) != len(tenants) {
		return nil, fmt.Errorf("instance model: %d instances for %d tenants", len(insts), len(tenants))
	}
	out := make([]Placement, len(tenants))
	g, gctx := errgroup.WithContext(ctx)
	for i, t := range tenants {
		g.Go(func() error {
			p, err := placeDatabases(gctx, insts[i], []string{t}, i)
			if err != nil {
				return err
			}
			out[i] = p[0]
			return nil
		})
	}
	return out, g.Wait()
}
