package provision

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// cloneDatadir: a server per tenant, copied from the first tenant's. The
// first tenant (the template) records provision, setup, ingest and
// post-ingest as in a loaded run; every other tenant's ingest is the copy
// of the template server's stopped data directory, its provision the
// start of its server on the copy, its setup the renaming of the
// template's role and database to its own (tenancy.ServerAdopter), its
// post-ingest empty. The copying happens in the provision step, before
// monitoring starts, so that the monitor sees every server from the
// start. The provider is a Cloner.
type cloneDatadir struct{}

func (cloneDatadir) Name() string { return CloneDatadir }
func (cloneDatadir) Clones() bool { return true }

// Provision starts the template's server, places its tenant, sets up,
// loads and post-ingests it; stops the server, copies it for every other
// tenant and starts it again with the copies.
func (cloneDatadir) Provision(ctx context.Context, r *Run) error {
	cl, ok := r.Provider.(Cloner)
	if !ok {
		return fmt.Errorf("%s: the provider cannot copy a server", CloneDatadir)
	}
	specs, tenants := r.Specs, r.Tenants
	r.Limits = specs
	r.Instances = make([]*provider.Instance, len(specs))
	defer func() { r.Instances = compact(r.Instances) }()
	start := time.Now()
	inst, err := r.Provider.Start(ctx, specs[0])
	r.Instances[0] = inst
	r.Record(tenants[0], "provision", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("instance %s: %w", specs[0].Name, err)
	}
	r.Logf("provision: %s is the template of %d cloned servers", tenants[0], len(specs)-1)
	start = time.Now()
	ps, err := r.Model.Place(ctx, r.Instances[:1], tenants[:1])
	if err == nil {
		r.Placements = ps
		err = r.buildWorkloads(1)
	}
	if err == nil {
		err = r.setupTenant(ctx, 0)
	}
	r.Record(tenants[0], "setup", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", tenants[0], err)
	}
	if err := r.loadTemplate(ctx); err != nil {
		return err
	}
	// A fast shutdown ends with a checkpoint: the data directory is
	// consistent and needs no recovery in its copies.
	if err := r.Provider.Stop(ctx, inst); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for k := 1; k < len(specs); k++ {
		g.Go(func() error {
			start := time.Now()
			c, copied, err := cl.Clone(gctx, inst, specs[k])
			end := time.Now()
			r.setInstance(k, c)
			if err != nil {
				r.Record(tenants[k], "ingest", start, end, err)
				return err
			}
			r.Record(tenants[k], "ingest", start, start.Add(copied), nil)
			r.Record(tenants[k], "provision", start.Add(copied), end, nil)
			return nil
		})
	}
	err = g.Wait()
	// The template's server comes back in any case, so that teardown
	// finds every server as the run left it.
	again, rerr := cl.Restart(context.WithoutCancel(ctx), inst)
	if rerr == nil {
		r.Instances[0] = again
		r.Placements[0].Instance = again
	}
	if err = errors.Join(err, rerr); err != nil {
		return err
	}
	r.template = &r.Placements[0]
	r.templateWorkload = r.Workloads[0]
	return nil
}

// Setup hands each copy of the template's server to its tenant.
func (cloneDatadir) Setup(ctx context.Context, r *Run) error {
	sa, ok := r.Model.(tenancy.ServerAdopter)
	if !ok {
		return fmt.Errorf("%s: the tenancy model cannot hand a copied server to a tenant", CloneDatadir)
	}
	start := time.Now()
	tenants := r.Tenants
	ps := make([]tenancy.Placement, len(tenants))
	ps[0] = *r.template
	g, gctx := errgroup.WithContext(ctx)
	return r.setupCopies(g, start, ps, func(k int) (tenancy.Placement, error) {
		return sa.AdoptClone(gctx, r.Instances[k], ps[0], tenants[k], k)
	})
}

// Ingest: done in the provision step.
func (cloneDatadir) Ingest(context.Context, *Run) error { return nil }

func (cloneDatadir) PostIngest(_ context.Context, r *Run) error {
	r.copiesPostIngested()
	return nil
}
