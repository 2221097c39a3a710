package provision

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// loadEach: every tenant is placed, sets up, loads and post-ingests its
// own data: all tenants set up and load at once, and post-ingest at most
// AtOnce at a time.
type loadEach struct{}

func (loadEach) Name() string { return LoadEach }
func (loadEach) Clones() bool { return false }

func (loadEach) Provision(ctx context.Context, r *Run) error { return startAll(ctx, r) }

// Setup places the tenants (the model's Place), then creates each
// tenant's tables; a tenant's setup is both, from the start of the
// placing.
func (loadEach) Setup(ctx context.Context, r *Run) error {
	start := time.Now()
	ps, err := r.Model.Place(ctx, r.Instances, r.Tenants)
	if err != nil {
		return err
	}
	r.placed(ps)
	if err := r.buildWorkloads(len(ps)); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, p := range ps {
		g.Go(func() error {
			err := r.setupTenant(gctx, i)
			r.Record(p.Tenant, "setup", start, time.Now(), err)
			if err != nil {
				return fmt.Errorf("tenant %s: %w", p.Tenant, err)
			}
			return nil
		})
	}
	return g.Wait()
}

func (loadEach) Ingest(ctx context.Context, r *Run) error {
	bars := r.Progress()
	defer bars.Wait()
	return r.perTenant(ctx, "ingest", 0, func(ctx context.Context, i int) error {
		return r.ingestTenant(ctx, bars, i)
	})
}

func (loadEach) PostIngest(ctx context.Context, r *Run) error {
	return r.perTenant(ctx, "post-ingest", AtOnce(), r.postIngestTenant)
}
