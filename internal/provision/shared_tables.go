package provision

import (
	"context"
	"fmt"
	"time"

	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// sharedTables: one server, one set of tables for every tenant. The
// tables' owner sets them up, loads the shared read-only tables and
// indexes them once; every tenant adds its own rows. A tenant's setup and
// post-ingest are the whole step, its ingest ends when its rows and the
// shared ones are in. The model is a tenancy.TableSharer, the workload a
// workload.Shared.
type sharedTables struct{}

func (sharedTables) Name() string { return SharedTables }
func (sharedTables) Clones() bool { return false }

func (sharedTables) Provision(ctx context.Context, r *Run) error { return startAll(ctx, r) }

func tableSharer(r *Run) (tenancy.TableSharer, error) {
	ts, ok := r.Model.(tenancy.TableSharer)
	if !ok {
		return nil, fmt.Errorf("%s: the tenancy model cannot share tables", SharedTables)
	}
	return ts, nil
}

// Setup makes the roles and the database (the model's Place), the tables
// once by their owner (the workload without a key), then every tenant's
// policies and privileges.
func (sharedTables) Setup(ctx context.Context, r *Run) error {
	start := time.Now()
	err := setupShared(ctx, r)
	for _, t := range r.Tenants {
		r.Record(t, "setup", start, time.Now(), err)
	}
	return err
}

func setupShared(ctx context.Context, r *Run) error {
	ts, err := tableSharer(r)
	if err != nil {
		return err
	}
	inst := r.Instances[0]
	ps, err := r.Model.Place(ctx, r.Instances, r.Tenants)
	if err != nil {
		return err
	}
	r.placed(ps)
	owner, err := r.Build(0) // every tenant builds the same (the plan checks it)
	if err != nil {
		return err
	}
	if why := tenancy.Accepts(r.Model, owner); why != "" {
		return fmt.Errorf("workload %s: %s", r.Workload, why)
	}
	sh, ok := owner.(workload.Shared)
	if !ok {
		return fmt.Errorf("workload %s has no tenant key", r.Workload)
	}
	r.owner = owner
	r.Workloads = make([]workload.Workload, len(ps))
	for i := range ps {
		w, err := sh.ForTenant(workload.TenantKey{Index: i, Tenants: len(ps)})
		if err != nil {
			return err
		}
		r.Workloads[i] = w
	}
	conn, err := ts.ConnectOwner(ctx, inst)
	if err != nil {
		return err
	}
	err = owner.Setup(ctx, conn)
	conn.Close(context.Background())
	if err != nil {
		return fmt.Errorf("creating the shared tables: %w", err)
	}
	return ts.Share(ctx, inst, ps, sh.KeyColumns(), func(i int) (int64, int64) {
		return sh.KeyRange(workload.TenantKey{Index: i, Tenants: len(ps)})
	})
}

// Ingest: the owner loads the shared read-only tables while every tenant
// adds its own rows.
func (sharedTables) Ingest(ctx context.Context, r *Run) error {
	ts, err := tableSharer(r)
	if err != nil {
		return err
	}
	sh := r.owner.(workload.Shared)
	bars := r.Progress()
	defer bars.Wait()
	shared := make(chan struct{})
	var sharedErr error
	go func() {
		defer close(shared)
		progress := bars.Add("shared", sh.SharedRows())
		owner := func(ctx context.Context) (workload.Conn, error) { return ts.ConnectOwner(ctx, r.Instances[0]) }
		sharedErr = sh.IngestShared(ctx, owner, progress)
		bars.Done("shared", sharedErr)
	}()
	err = r.perTenant(ctx, "ingest", 0, func(ctx context.Context, i int) error {
		err := r.ingestTenant(ctx, bars, i)
		<-shared
		if err == nil && sharedErr != nil {
			err = fmt.Errorf("loading the shared tables: %w", sharedErr)
		}
		return err
	})
	<-shared
	return err
}

// PostIngest: the owner adds the keys and indexes and refreshes the
// statistics of the shared tables once.
func (sharedTables) PostIngest(ctx context.Context, r *Run) error {
	ts, err := tableSharer(r)
	if err != nil {
		return err
	}
	start := time.Now()
	conn, err := ts.ConnectOwner(ctx, r.Instances[0])
	if err == nil {
		err = r.owner.PostIngest(ctx, conn)
		conn.Close(context.Background())
	}
	for _, p := range r.Placements {
		r.Record(p.Tenant, "post-ingest", start, time.Now(), err)
	}
	return err
}
