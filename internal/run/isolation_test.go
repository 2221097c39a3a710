package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/isolation"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/results"
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
