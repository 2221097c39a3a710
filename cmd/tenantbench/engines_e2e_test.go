package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// enginesSpec runs tpcb on both engines in one plan, each with a setting
// of its own under sut.settings.
const enginesSpec = `name: engines
seed: 1
sut:
  engine: [postgres, mariadb]
  settings:
    postgres: {shared_buffers: 64MB}
    mariadb: {innodb_buffer_pool_size: 64M}
tenancy:
  model: database
  tenants: 1
workload:
  name: tpcb
  scale: 1
  clients: 2
  warmup: 1s
  duration: 4s
  options:
    scripts:
      tpcb-like: 1
`

// TestEngineMatrix runs sut.engine: [postgres, mariadb] through the CLI:
// two runs, each on a server of its engine with that engine's setting
// and, for MariaDB, the version sut.version gives it (keyed by engine),
// results.csv naming the engine of each row, and a report that draws
// them.
func TestEngineMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("a run on each engine takes about half a minute")
	}
	progs, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{})
	if err != nil {
		t.Skip(err)
	}
	major := progs.(mariadb.Programs).Major
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "engines.yaml")
	src := strings.Replace(enginesSpec, "sut:\n", "sut:\n  version: {mariadb: \""+major+"\"}\n", 1)
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "results")
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 2 {
		t.Fatalf("results.csv has %d rows, want 2:\n%s", len(rows), b)
	}
	for i, eng := range []string{"postgres", "mariadb"} {
		r := rows[i]
		if r["engine"] != eng || r["model"] != "database" || r["status"] != "ok" {
			t.Errorf("row %d = %v, want engine %s", i, r, eng)
		}
		if num(t, r["tpm"]) <= 0 {
			t.Errorf("row %d (%s): no committed transactions: %v", i, eng, r)
		}
		// Each server ran its own engine's program with its own setting.
		instances, err := os.ReadFile(filepath.Join(out, "runs", r["run_id"], "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(instances), `"engine": "`+eng+`"`) {
			t.Errorf("run %s: summary.json does not say engine %s", r["run_id"], eng)
		}
	}
	if r := rows[0]; r["set_shared_buffers"] != "" || r["set_innodb_buffer_pool_size"] != "" {
		// Single values are not dimensions: no set_ column.
		t.Errorf("a setting of one value became a column: %v", r)
	}
	// env.json has each engine's server version.
	var env struct {
		Versions map[string]string `json:"dbms_versions"`
	}
	if eb, err := os.ReadFile(filepath.Join(out, "env.json")); err != nil || json.Unmarshal(eb, &env) != nil ||
		env.Versions["postgres"] == "" || !strings.HasPrefix(env.Versions["mariadb"], major+".") {
		t.Errorf("env.json dbms_versions %v (%v)", env.Versions, err)
	}
	// The resolved spec keeps the settings keyed by engine.
	spec, err := os.ReadFile(filepath.Join(out, "spec.yaml"))
	if err != nil || !strings.Contains(string(spec), "innodb_buffer_pool_size") {
		t.Errorf("spec.yaml: %v\n%s", err, spec)
	}
	rb, err := exec.Command(binary, "report", out).CombinedOutput()
	if err != nil {
		t.Fatalf("report: %v\n%s", err, rb)
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"| postgres, database, 1 tenant |", "| mariadb, database, 1 tenant |"} {
		if !strings.Contains(string(md), label) {
			t.Errorf("summary.md has no row %s", label)
		}
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		if e.Name() != "results" && e.Name() != "engines.yaml" {
			t.Errorf("%s left in the work root", e.Name())
		}
	}
}
