package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/isolation"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// TestIsolationAudit: with tenancy.isolation: audit, the check phase
// after a real workload writes runs/<id>/isolation.csv, one row per
// probe, with the schema model's outcomes.
func TestIsolationAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads TPC-B")
	}
	ex := newExecution(t, `name: t
tenancy: {model: schema, tenants: 2, isolation: audit}
workload: {name: tpcb, scale: 1, clients: 1, duration: 1s}
`)
	out, err := results.Create(filepath.Join(pgtest.TempDir(t), "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ex.opts.Out = out
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload", "check")
	tab, err := results.ReadTable(filepath.Join(out.Path, "runs", ex.run.ID, isolation.File))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i := range tab.Rows {
		if m := tab.Get(i, "model"); m != "schema" {
			t.Errorf("row %d: model %q", i, m)
		}
		got[tab.Get(i, "probe")] = tab.Get(i, "outcome")
	}
	for probe, want := range map[string]string{"read: direct": "denied", "metadata: table names": "visible",
		"connections: exhaustion": "possible", "sessions: terminate": "denied"} {
		if got[probe] != want {
			t.Errorf("%s: %q, want %s (all: %v)", probe, got[probe], want, got)
		}
	}
	if len(got) < 10 {
		t.Errorf("only %d probes: %v", len(got), got)
	}
	b, _ := os.ReadFile(filepath.Join(out.Path, "runs", ex.run.ID, isolation.File))
	if !strings.HasPrefix(string(b), strings.Join(isolation.Header, ",")+"\n") {
		t.Errorf("header: %q", strings.SplitN(string(b), "\n", 2)[0])
	}
}

// TestGuardedRuns: with every tenancy guard on, a workload in each model
// (tpcb in schema; tpcc in shared-table, which holds keyed workloads
// only; sales in database and tpcb in instance, both cloned from the first
// tenant; tpch's query streams in schema) loads, runs and checks with no failed transaction and no lost
// connection; the guards are on the tenants' roles (connection limit,
// timeouts), and on a shared server the audit names the guards that
// answered.
func TestGuardedRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads TPC-B and TPC-C")
	}
	const small = "scale: 1, clients: 2, duration: 2s"
	for _, c := range []struct{ model, workload string }{
		{"schema", "name: tpcb, " + small},
		{"shared-table", "name: tpcc, " + small},
		{"database", "name: sales, " + small},
		{"instance", "name: tpcb, " + small},
		// A query stream each, with the refresh functions.
		{"schema", "name: tpch, scale: 0.01, clients: 1, duration: 5m, options: {queries: [1, 6], refresh: true}"},
	} {
		t.Run(c.model+" "+strings.TrimSuffix(strings.Fields(c.workload)[1], ","), func(t *testing.T) {
			ex := newExecution(t, fmt.Sprintf(`name: t
tenancy: {model: %s, tenants: 2, isolation: audit, guards: [connection_limit, hide_statistics, lock_timeout, idle_transaction_timeout]}
workload: {%s}
`, c.model, c.workload))
			out, err := results.Create(filepath.Join(pgtest.TempDir(t), "out"), nil)
			if err != nil {
				t.Fatal(err)
			}
			ex.opts.Out = out
			ex.steps(t, "provision", "setup", "ingest", "post-ingest")
			admin := pgtest.Connect(t, ex.placements[1].Instance, ex.placements[1].Database)
			var limit int
			var config string
			err = admin.QueryRow(context.Background(), "SELECT rolconnlimit, array_to_string(rolconfig, ',') FROM pg_roles WHERE rolname = $1",
				ex.placements[1].Role).Scan(&limit, &config)
			if err != nil {
				t.Fatal(err)
			}
			if want := ex.run.TenantList[1].Conns + tenancy.ConnectionMargin; limit != want || !strings.Contains(config, "lock_timeout=2000ms") ||
				!strings.Contains(config, "idle_in_transaction_session_timeout=60000ms") {
				t.Errorf("%s: rolconnlimit %d (want %d), settings %s", ex.placements[1].Role, limit, want, config)
			}
			ex.steps(t, "workload", "check")
			for _, tt := range ex.result.Result.Tenants {
				if tt.All.Committed == 0 || tt.All.FailedTotal() != 0 || tt.ConnLost != "" {
					t.Errorf("%s: %d committed, failed %v, connection lost %q", tt.Name, tt.All.Committed, tt.All.Failed, tt.ConnLost)
				}
			}
			tab, err := results.ReadTable(filepath.Join(out.Path, "runs", ex.run.ID, isolation.File))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][2]string{}
			for i := range tab.Rows {
				got[tab.Get(i, "probe")] = [2]string{tab.Get(i, "outcome"), tab.Get(i, "evidence")}
			}
			for _, probe := range []string{"connections: exhaustion", "metadata: activity statistics"} {
				// With a server each, no guard is needed to deny.
				if got[probe][0] != "denied" || c.model != "instance" && !strings.Contains(got[probe][1], "(guard ") {
					t.Errorf("%s: %v, want denied by a guard", probe, got[probe])
				}
			}
		})
	}
}
