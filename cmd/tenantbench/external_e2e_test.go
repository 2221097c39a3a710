package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/run"
)

// The user's server of these tests: a real PostgreSQL the test starts, as
// the user would have one, holding a database, a role and a schema of the
// user's that tenantbench must leave as they are.

const externalEnv = "TB_TEST_MAIN_DSN"

// userServer starts the user's server with the user's own objects and
// returns the admin connection string (over TCP, as to a remote server).
func userServer(t *testing.T) (*provider.Instance, string) {
	t.Helper()
	inst := pgtest.Start(t, pgtest.Name("users"))
	userObjects(t, inst)
	return inst, inst.DSN("tcp", "postgres", inst.User, inst.Password)
}

// userObjects gives the user's server the user's own objects.
func userObjects(t *testing.T, inst *provider.Instance) {
	t.Helper()
	admin := pgtest.Connect(t, inst, "postgres")
	for _, st := range []string{
		"CREATE ROLE userrole LOGIN PASSWORD 'x'",
		"CREATE DATABASE userdb OWNER userrole",
		"CREATE ROLE weak LOGIN PASSWORD 'weakpw'",
	} {
		if _, err := admin.Exec(context.Background(), st); err != nil {
			t.Fatal(err)
		}
	}
	udb := pgtest.Connect(t, inst, "userdb")
	if _, err := udb.Exec(context.Background(), "CREATE SCHEMA userschema AUTHORIZATION userrole; CREATE TABLE userschema.keep (x int); INSERT INTO userschema.keep VALUES (1)"); err != nil {
		t.Fatal(err)
	}
}

// catalog is what the server holds that a run could add or change: its
// roles with their attributes, its databases with their privileges, and
// userdb's schemas.
func catalog(t *testing.T, inst *provider.Instance) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for db, q := range map[string]string{
		"postgres": `SELECT 'role ' || rolname || ' ' || rolcreaterole || rolcreatedb FROM pg_roles WHERE rolname NOT LIKE 'pg\_%'
			UNION ALL SELECT 'database ' || datname || ' ' || coalesce(datacl::text, '') FROM pg_database`,
		"userdb": `SELECT 'schema ' || nspname FROM pg_namespace UNION ALL SELECT 'rows ' || count(*) FROM userschema.keep`,
	} {
		conn, err := pgx.Connect(ctx, inst.AdminDSN(db))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		conn.Close(ctx)
	}
	slices.Sort(out)
	return out
}

func externalSpec(models, duration string) string {
	return `name: ext
sut:
  provider: external
  servers: [{name: main, dsn_env: ` + externalEnv + `}]
tenancy: {model: ` + models + `, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: ` + duration + `}
progress: 1s
`
}

func externalCmd(tmp, dsn string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(registryEnv(tmp), externalEnv+"="+dsn)
	return cmd
}

// TestExternal: tpcb in the database and schema models on the user's
// server, and in the instance model on it and a second one; what the runs
// created is gone afterwards and the user's objects are as they were;
// plan lists what it will create.
func TestExternal(t *testing.T) {
	inst, dsn := userServer(t)
	inst2, dsn2 := userServer(t)
	before, before2 := catalog(t, inst), catalog(t, inst2)
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "ext.yaml")
	spec := strings.Replace(externalSpec("[database, schema, instance]", "3s"), "dsn_env: "+externalEnv+"}",
		"dsn_env: "+externalEnv+"}, {name: second, dsn_env: TB_TEST_SECOND_DSN}", 1)
	os.WriteFile(specPath, []byte(spec), 0o644)
	t.Setenv("TB_TEST_SECOND_DSN", dsn2)

	b, err := externalCmd(tmp, dsn, "plan", specPath).CombinedOutput()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, b)
	}
	for _, want := range []string{"run 001, server main: roles r001_<tag>_t01, r001_<tag>_t02; databases r001_<tag>_t01",
		"server main: databases r002_<tag>_tenantbench; roles r002_<tag>_t01",
		"run 003, server main: roles r003_<tag>_t01; databases r003_<tag>_t01",
		"run 003, server second: roles r003_<tag>_t02; databases r003_<tag>_t02"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plan does not list %q:\n%s", want, b)
		}
	}

	out := filepath.Join(tmp, "results")
	b, err = externalCmd(tmp, dsn, "run", specPath, "--out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 3 {
		t.Fatalf("results.csv has %d rows, want 3\n%s", len(rows), b)
	}
	for _, r := range rows {
		if r["status"] != "ok" || r["throughput_tps"] == "" || r["throughput_tps"] == "0" {
			t.Errorf("run %s (%s): status %s, tps %s, error %s", r["run_id"], r["model"], r["status"], r["throughput_tps"], r["error"])
		}
		// The user's server's processes are not this machine's to see:
		// its CPU, memory and their cost are not measured, never zero.
		for _, col := range []string{"cpu_s", "mem_peak_mb", "e_tpx", "mem_footprint_per_tenant_mb", "ruc_usd_per_min"} {
			if r[col] != "" {
				t.Errorf("run %s: %s = %s, want empty (not measured)", r["run_id"], col, r[col])
			}
		}
		sum, err := os.ReadFile(filepath.Join(out, "runs", r["run_id"], "summary.json"))
		if err != nil || !strings.Contains(string(sum), `"not_measured": "not measured (external server)"`) {
			t.Errorf("run %s: summary.json does not say the resources were not measured (%v)", r["run_id"], err)
		}
	}
	if after := catalog(t, inst); !slices.Equal(before, after) {
		t.Errorf("the server changed:\nbefore %v\nafter  %v", before, after)
	}
	// The instance model's tenants were on one server each.
	sum, _ := os.ReadFile(filepath.Join(out, "runs", "003", "summary.json"))
	for _, port := range []int{inst.Port, inst2.Port} {
		if !strings.Contains(string(sum), fmt.Sprintf(`"port": %d`, port)) {
			t.Errorf("run 003 (instance) has no instance on port %d:\n%s", port, sum)
		}
	}
	if after := catalog(t, inst2); !slices.Equal(before2, after) {
		t.Errorf("the second server changed:\nbefore %v\nafter  %v", before2, after)
	}
	if _, err := os.Stat(filepath.Join(out, run.LiveFile)); err == nil {
		t.Errorf("%s is left after a run that dropped everything", run.LiveFile)
	}
	assertNoLeftovers(t, tmp)
}

// TestExternalKilled: after a SIGKILL mid-run, the ledger lists what the
// run created on the user's server, which is still there; `down DIR`
// drops exactly that.
func TestExternalKilled(t *testing.T) {
	inst, dsn := userServer(t)
	before := catalog(t, inst)
	tmp := workRoot(t)
	t.Setenv(externalEnv, dsn) // cutRunOf's command inherits it
	_, err, log, stderr := cutRunOf(t, tmp, externalSpec("database", "10m"), func(cmd *exec.Cmd, _ *os.File) {
		cmd.Process.Signal(syscall.SIGKILL)
	})
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("exit = %v, want killed\n%s%s", err, log, stderr)
	}
	out := filepath.Join(tmp, "results")
	book, err := run.ReadLive(out)
	if err != nil || book == nil || len(book.Instances) != 1 {
		t.Fatalf("ledger %+v, %v: want the one instance on the user's server", book, err)
	}
	var listed []string
	for _, o := range book.Instances[0].Objects {
		if !strings.HasPrefix(o.Name, "r001_") {
			t.Errorf("%s %s does not begin with the run's id", o.Kind, o.Name)
		}
		listed = append(listed, o.Kind+" "+o.Name)
	}
	if len(listed) != 4 {
		t.Errorf("ledger lists %v, want 2 roles and 2 databases", listed)
	}
	if during := catalog(t, inst); len(during) != len(before)+4 {
		t.Errorf("the server holds %d more objects than before, want the 4 listed:\n%v", len(during)-len(before), during)
	}
	// Without the server's variable, down says what it needs and keeps
	// the ledger.
	cmd := exec.Command(binary, "down", out)
	cmd.Env = registryEnv(tmp)
	for i, e := range cmd.Env {
		if strings.HasPrefix(e, externalEnv+"=") {
			cmd.Env[i] = "TB_UNRELATED=1"
		}
	}
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), externalEnv+" is not set") {
		t.Errorf("down without %s: %v\n%s", externalEnv, err, b)
	}
	if b, err := externalCmd(tmp, dsn, "down", out).CombinedOutput(); err != nil {
		t.Fatalf("down: %v\n%s", err, b)
	}
	if after := catalog(t, inst); !slices.Equal(before, after) {
		t.Errorf("after down the server differs:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(filepath.Join(out, run.LiveFile)); err == nil {
		t.Errorf("%s is left after down", run.LiveFile)
	}
	assertNoLeftovers(t, tmp)
}

// TestExternalExample: examples/external.yaml plans against two servers,
// the instance model's tenants one on each.
func TestExternalExample(t *testing.T) {
	_, dsn := userServer(t)
	_, dsn2 := userServer(t)
	cmd := exec.Command(binary, "plan", "../../examples/external.yaml")
	cmd.Env = append(os.Environ(), "MAIN_DSN="+dsn, "SECOND_DSN="+dsn2)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, b)
	}
	for _, want := range []string{"run 003, server main: roles r003_<tag>_t01; databases r003_<tag>_t01",
		"run 003, server second: roles r003_<tag>_t02; databases r003_<tag>_t02"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("plan does not list %q:\n%s", want, b)
		}
	}
}

// TestExternalRefused: plan names what is wrong with the user's server
// (a role without the privileges, an unset variable, too few servers for
// the instance model) at its line, and exits 2.
func TestExternalRefused(t *testing.T) {
	inst, dsn := userServer(t)
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "ext.yaml")
	weak := inst.DSN("tcp", "postgres", "weak", "weakpw")
	for _, c := range []struct {
		name, spec, dsn string
		want            []string
	}{
		{"privileges", externalSpec("database", "3s"), weak,
			[]string{"sut.servers[0].dsn_env (line 4)", "role weak on server main lacks CREATEROLE and CREATEDB"}},
		{"unset", externalSpec("database", "3s"), "",
			[]string{"sut.servers[0].dsn_env (line 4)", externalEnv + " is not set"}},
		{"too few servers", externalSpec("instance", "3s"), dsn,
			[]string{"tenancy.model (line 5)", "model instance needs 2 servers for 2 tenants (one each), but sut.servers names 1"}},
		{"local takes none", strings.Replace(externalSpec("database", "3s"), "provider: external", "provider: local", 1), dsn,
			[]string{"sut.servers (line 4)", "provider local starts its own servers and takes no sut.servers"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(specPath, []byte(c.spec), 0o644)
			cmd := externalCmd(tmp, c.dsn, "plan", specPath)
			if c.dsn == "" {
				cmd.Env = registryEnv(tmp)
			}
			b, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("plan: %v, want exit 2\n%s", err, b)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("plan does not say %q:\n%s", w, b)
				}
			}
		})
	}
}
