package run

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provision"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
)

// testLog sends a run's log lines to the test's.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// newExecution prepares the first run of the spec, with its work
// directory; its servers are stopped when the test ends.
func newExecution(t *testing.T, yaml string) *execution {
	t.Helper()
	p, reg, prov := testPlan(t, yaml)
	ex := &execution{opts: Options{Log: testLog{t}, Provider: prov, Workloads: reg, Models: tenancy.Builtin(),
		WorkRoot: pgtest.TempDir(t)}, plan: p, spec: p.Spec, run: &p.Runs[0], t0: time.Now()}
	wd, err := os.MkdirTemp(ex.opts.WorkRoot, "run-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	ex.workDir = wd
	t.Cleanup(func() {
		if err := ex.teardown(); err != nil {
			t.Error(err)
		}
	})
	return ex
}

// phases runs the named steps of ex in order.
func (ex *execution) steps(t *testing.T, names ...string) {
	t.Helper()
	fns := map[string]func(context.Context) error{"provision": ex.provision, "setup": ex.setup, "ingest": ex.ingest,
		"post-ingest": ex.postIngest, "workload": ex.workload, "check": ex.check}
	for _, n := range names {
		if err := fns[n](context.Background()); err != nil {
			t.Fatalf("phase %s: %v", n, err)
		}
	}
}

// tableSums are, per table of a tenant, its rows and the sum of a hash of
// every row: of all columns (all), and of the columns but timestamps
// (data), which a load sets to its own time.
type tableSums map[string][3]int64

func sums(t *testing.T, c *pgx.Conn) tableSums {
	t.Helper()
	ctx := context.Background()
	rows, err := c.Query(ctx, `SELECT table_name::text, string_agg(format('%I', column_name), ',' ORDER BY ordinal_position)
		FILTER (WHERE data_type NOT LIKE 'timestamp%')
		FROM information_schema.columns WHERE table_schema = current_schema() GROUP BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string]string{}
	for rows.Next() {
		var tb, cs string
		if err := rows.Scan(&tb, &cs); err != nil {
			t.Fatal(err)
		}
		cols[tb] = cs
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	out := tableSums{}
	for tb, cs := range cols {
		var v [3]int64
		q := fmt.Sprintf("SELECT count(*), coalesce(sum(hashtext(x::text)), 0), coalesce(sum(hashtext(ROW(%s)::text)), 0) FROM %s x", cs, pgx.Identifier{tb}.Sanitize())
		if err := c.QueryRow(ctx, q).Scan(&v[0], &v[1], &v[2]); err != nil {
			t.Fatal(err)
		}
		out[tb] = v
	}
	return out
}

// connectTenant opens a connection as p's tenant; close it before the
// workload, whose clients need every connection of the tenant.
func connectTenant(t *testing.T, p tenancy.Placement) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), p.DSN("tcp"))
	if err != nil {
		t.Fatalf("%s connecting to its own database: %v", p.Tenant, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func closeConn(c *pgx.Conn) { c.Close(context.Background()) }

// phaseRows checks every tenant recorded each of the phases once.
func phaseRows(t *testing.T, ex *execution, phases ...string) {
	t.Helper()
	n := map[string]int{}
	for _, p := range ex.phases {
		if p.Status != "ok" {
			t.Errorf("%s %s: %s", p.Tenant, p.Phase, p.Error)
		}
		n[p.Tenant+" "+p.Phase]++
	}
	for _, tn := range tenancy.TenantNames(ex.run.Tenants) {
		for _, ph := range phases {
			if n[tn+" "+ph] != 1 {
				t.Errorf("tenant %s has %d %s rows, want 1", tn, n[tn+" "+ph], ph)
			}
		}
	}
}

const tpccSpec = `name: t
tenancy: {model: %s, tenants: %d}
workload: {name: tpcc, scale: 1, clients: 2, duration: 2s, provision: %s}
`

// TestClonedTenants: tenants cloned in the database model (CREATE
// DATABASE ... TEMPLATE) and in the instance model (a copy of a stopped
// server) hold the data of a tenant that loaded its own, row for row (the
// load's timestamps aside) and exactly those of the template; each owns
// all its objects and reaches no other's database; the workload and the
// check phase run on them.
func TestClonedTenants(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers and loads TPC-C warehouses")
	}
	ref := newExecution(t, fmt.Sprintf(tpccSpec, "database", 1, "clone"))
	if ref.run.Provision != "load" {
		t.Fatalf("one tenant: provision %s", ref.run.Provision)
	}
	ref.steps(t, "provision", "setup", "ingest", "post-ingest")
	c := connectTenant(t, ref.placements[0])
	want := sums(t, c)
	closeConn(c)
	if len(want) != 9 || want["warehouse"][0] != 1 || want["stock"][0] != 100000 {
		t.Fatalf("reference load: %v", want)
	}
	if err := ref.teardown(); err != nil {
		t.Fatal(err)
	}

	for model, strategy := range map[string]string{"database": provision.CloneDatabase, "instance": provision.CloneDatadir} {
		t.Run(model, func(t *testing.T) {
			ex := newExecution(t, fmt.Sprintf(tpccSpec, model, 3, "clone"))
			if pr, err := ex.provisioning(); err != nil || pr.strategy.Name() != strategy {
				got := ""
				if err == nil {
					got = pr.strategy.Name()
				}
				t.Fatalf("the run provisions by %s (%v), want %s", got, err, strategy)
			}
			start := time.Now()
			ex.steps(t, "provision", "setup", "ingest", "post-ingest")
			t.Logf("3 tenants provisioned by cloning in %v", time.Since(start).Round(time.Millisecond))
			phaseRows(t, ex, "provision", "setup", "ingest", "post-ingest")
			c := connectTenant(t, ex.placements[0])
			tmpl := sums(t, c)
			closeConn(c)
			for _, p := range ex.placements {
				c := connectTenant(t, p)
				got := sums(t, c)
				for tb, w := range want {
					if got[tb][0] != w[0] || got[tb][2] != w[2] {
						t.Errorf("%s %s: %d rows, data checksum %d; loaded tenant %d, %d", p.Tenant, tb, got[tb][0], got[tb][2], w[0], w[2])
					}
					if got[tb] != tmpl[tb] {
						t.Errorf("%s %s differs from the template's", p.Tenant, tb)
					}
				}
				var foreign int64
				if err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
					WHERE n.nspname = 'public' AND pg_get_userbyid(c.relowner) <> current_user`).Scan(&foreign); err != nil || foreign != 0 {
					t.Errorf("%s: %d relations of its schema owned by another role (%v)", p.Tenant, foreign, err)
				}
				for _, q := range ex.placements {
					if q.Tenant == p.Tenant {
						continue
					}
					// p's role and password on q's server and database.
					intruder := p
					intruder.Instance, intruder.Database = q.Instance, q.Database
					if conn, err := pgx.Connect(context.Background(), intruder.DSN("tcp")); err == nil {
						conn.Close(context.Background())
						t.Errorf("%s reaches %s's database", p.Tenant, q.Tenant)
					}
				}
				closeConn(c)
			}
			if model == "instance" && len(ex.instances) != 3 {
				t.Errorf("%d servers, want 3", len(ex.instances))
			}
			ex.workWithClones(t)
		})
	}
}

// workWithClones runs the workload and check phases of ex; the test's
// own connections must be closed.
func (ex *execution) workWithClones(t *testing.T) {
	t.Helper()
	ex.steps(t, "workload", "check")
	for _, tt := range ex.result.Result.Tenants {
		if tt.ConnLost != "" {
			t.Errorf("%s: %s", tt.Name, tt.ConnLost)
		}
	}
	if err := ex.healthAfterWorkload(); err != nil {
		t.Error(err)
	}
}

// TestSharedTableRun: a run of the shared-table model loads T x W
// warehouses into one set of tables, each tenant sees its own W, and the
// workload and the check phase pass for every tenant.
func TestSharedTableRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads TPC-C warehouses")
	}
	ex := newExecution(t, fmt.Sprintf(tpccSpec, "shared-table", 3, "clone"))
	if pr, err := ex.provisioning(); err != nil || pr.strategy.Name() != provision.SharedTables {
		t.Fatalf("the run provisions by %v (%v)", pr.strategy, err)
	}
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	phaseRows(t, ex, "provision", "setup", "ingest", "post-ingest")
	if len(ex.instances) != 1 {
		t.Fatalf("%d servers", len(ex.instances))
	}
	admin := pgtest.Connect(t, ex.instances[0], tenancy.SharedDatabase)
	var n int64
	if err := admin.QueryRow(context.Background(), "select count(*) from warehouse").Scan(&n); err != nil || n != 3 {
		t.Errorf("%d warehouses in the shared tables (%v), want 3 tenants x 1", n, err)
	}
	for i, p := range ex.placements {
		var w int64
		c := connectTenant(t, p)
		if err := c.QueryRow(context.Background(), "select min(w_id) from warehouse having count(*) = 1").Scan(&w); err != nil || w != int64(i+1) {
			t.Errorf("%s sees warehouse %d (%v), want only %d", p.Tenant, w, err, i+1)
		}
		closeConn(c)
	}
	ex.workWithClones(t)
	for _, tt := range ex.result.Result.Tenants {
		if tt.All.Committed == 0 {
			t.Errorf("%s committed nothing", tt.Name)
		}
	}
}

// TestCaseWorkload: a run of a case builds its workload with the case's
// options merged into the spec's.
func TestCaseWorkload(t *testing.T) {
	ex := newExecution(t, `name: t
workload:
  name: tpcc
  options: {retries: 7}
  cases:
    - {name: plain}
    - {name: aw, options: {all_warehouses: true}}
`)
	for i, want := range []bool{false, true} {
		ex.run = &ex.plan.Runs[i]
		w, err := ex.opts.Workloads.Build(ex.workloadSpec(), 1)
		if err != nil {
			t.Fatal(err)
		}
		o := w.(*tpcc.Workload).Options()
		if o.AllWarehouses != want || o.Retries != 7 {
			t.Errorf("case %s: all_warehouses %v, retries %d; want %v, 7", ex.run.Case, o.AllWarehouses, o.Retries, want)
		}
	}
}

// TestCloneManyTenants: cloning many tenants of one client each stays
// within the max_connections sized for their clients (a clone holds two
// superuser connections at once).
func TestCloneManyTenants(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and clones a TPC-C warehouse 15 times")
	}
	ex := newExecution(t, `name: t
tenancy: {model: database, tenants: 16}
workload: {name: tpcc, scale: 1, clients: 1, duration: 1s}
`)
	if pr, err := ex.provisioning(); err != nil || pr.strategy.Name() != provision.CloneDatabase {
		t.Fatalf("the run provisions by %v (%v)", pr.strategy, err)
	}
	ex.steps(t, "provision", "setup", "ingest", "post-ingest")
	phaseRows(t, ex, "provision", "setup", "ingest", "post-ingest")
}
