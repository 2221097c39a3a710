package provision

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
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

// Provision starts each template's server (the first tenant of each
// class), places its tenant, sets up, loads and post-ingests it, and
// stops it; then copies the templates for every other tenant and starts
// the templates again with the copies.
func (cloneDatadir) Provision(ctx context.Context, r *Run) error {
	cl, ok := r.Provider.(Cloner)
	if !ok {
		return fmt.Errorf("%s: the provider cannot copy a server", CloneDatadir)
	}
	specs, tenants := r.Specs, r.Tenants
	r.Limits = specs
	r.Instances = make([]*provider.Instance, len(specs))
	defer func() { r.Instances = compact(r.Instances) }()
	r.Placements = make([]tenancy.Placement, len(tenants))
	r.Workloads = make([]workload.Workload, len(tenants))
	r.templateWorkloads = map[int]workload.Workload{}
	tmpl := r.templates()
	r.Logf("provision: %d template(s) of %d cloned servers", len(tmpl), len(specs)-len(tmpl))
	var err error
	for _, t := range tmpl {
		if err = r.loadServerTemplate(ctx, t); err != nil {
			break
		}
	}
	if err == nil {
		g, gctx := errgroup.WithContext(ctx)
		// A bounded number of copies and starts at once: 99 copies of
		// a data directory and 99 servers starting together only queue
		// for the disk and the CPUs, and the slowest start might
		// outlast the readiness wait.
		g.SetLimit(AtOnce())
		for k := 1; k < len(specs); k++ {
			t := r.templateOf(k)
			if t == k {
				continue
			}
			g.Go(func() error {
				start := time.Now()
				c, copied, err := cl.Clone(gctx, r.Instances[t], specs[k])
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
	}
	// The templates' servers come back in any case, so that teardown
	// finds every server as the run left it.
	for _, t := range tmpl {
		if r.Instances[t] == nil || !r.stopped[t] {
			continue
		}
		again, rerr := cl.Restart(context.WithoutCancel(ctx), r.Instances[t])
		if rerr == nil {
			r.Instances[t] = again
			r.Placements[t].Instance = again
		}
		err = errors.Join(err, rerr)
	}
	return err
}

// loadServerTemplate starts template t's server, places, sets up, loads
// and post-ingests its tenant, and stops the server for copying.
func (r *Run) loadServerTemplate(ctx context.Context, t int) error {
	tenant := r.Tenants[t]
	start := time.Now()
	inst, err := r.Provider.Start(ctx, r.Specs[t])
	r.setInstance(t, inst)
	r.Record(tenant, "provision", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("instance %s: %w", r.Specs[t].Name, err)
	}
	start = time.Now()
	ps, err := r.Model.Place(ctx, r.Instances[t:t+1], r.Tenants[t:t+1])
	if err == nil {
		r.Placements[t] = ps[0]
		r.Placements[t].Index = t // Place numbers the tenants it is given from 0
		r.Workloads[t], err = r.Build(t)
		r.templateWorkloads[t] = r.Workloads[t]
	}
	if err == nil {
		err = r.setupTenant(ctx, t)
	}
	r.Record(tenant, "setup", start, time.Now(), err)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", tenant, err)
	}
	if err := r.loadTemplate(ctx, t); err != nil {
		return err
	}
	// A fast shutdown ends with a checkpoint: the data directory is
	// consistent and needs no recovery in its copies.
	if err := r.Provider.Stop(ctx, inst); err != nil {
		return err
	}
	if r.stopped == nil {
		r.stopped = map[int]bool{}
	}
	r.stopped[t] = true
	return nil
}

// Setup hands each copy of a template's server to its tenant.
func (cloneDatadir) Setup(ctx context.Context, r *Run) error {
	sa, ok := r.Model.(tenancy.ServerAdopter)
	if !ok {
		return fmt.Errorf("%s: the tenancy model cannot hand a copied server to a tenant", CloneDatadir)
	}
	start := time.Now()
	tenants := r.Tenants
	ps := make([]tenancy.Placement, len(tenants))
	for _, t := range r.templates() {
		ps[t] = r.Placements[t]
	}
	g, gctx := errgroup.WithContext(ctx)
	return r.setupCopies(g, start, ps, func(k int) (tenancy.Placement, error) {
		return sa.AdoptClone(gctx, r.Instances[k], ps[r.templateOf(k)], tenants[k], k)
	})
}

// Ingest: done in the provision step.
func (cloneDatadir) Ingest(context.Context, *Run) error { return nil }

func (cloneDatadir) PostIngest(_ context.Context, r *Run) error {
	r.copiesPostIngested()
	return nil
}
