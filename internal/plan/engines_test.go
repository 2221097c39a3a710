package plan

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestEngineRuns: with sut.engine a list, each run has its engine, the
// settings of that engine and servers sized by its reserve; plan.json
// lists the engines.
func TestEngineRuns(t *testing.T) {
	p := mustBuild(t, "name: t\nsut:\n  engine: [postgres, mariadb]\n  settings:\n    postgres: {work_mem: 8MB}\n"+
		"    mariadb: {innodb_buffer_pool_size: [64M, 128M]}\ntenancy: {model: database, tenants: 2}\nworkload: {name: tpcb, clients: 3}\n")
	if len(p.Runs) != 3 || p.Engine != "postgres" || strings.Join(p.Dimensions.Engines, ",") != "postgres,mariadb" {
		t.Fatalf("%d runs, engine %s, engines %v", len(p.Runs), p.Engine, p.Dimensions.Engines)
	}
	for i, want := range []string{"postgres", "mariadb", "mariadb"} {
		r := &p.Runs[i]
		if p.EngineOf(r) != want {
			t.Errorf("run %s: engine %s, want %s", r.ID, p.EngineOf(r), want)
		}
		eng, err := engine.Builtin().Get(want)
		if err != nil {
			t.Fatal(err)
		}
		if got, need := r.Instances[0].MaxConnections, 2*3+eng.ConnectionReserve(); got != need {
			t.Errorf("run %s (%s): max_connections %d, want %d", r.ID, want, got, need)
		}
		_, pg := r.Settings["work_mem"]
		_, maria := r.Settings["innodb_buffer_pool_size"]
		if pg != (want == "postgres") || maria != (want == "mariadb") {
			t.Errorf("run %s (%s): settings %v", r.ID, want, r.Settings)
		}
	}
	if p.Runs[1].Settings["innodb_buffer_pool_size"] != "64M" || p.Runs[2].Settings["innodb_buffer_pool_size"] != "128M" {
		t.Errorf("mariadb's list: %v, %v", p.Runs[1].Settings, p.Runs[2].Settings)
	}
	// A one-engine plan reads as before: no engines dimension.
	if one := mustBuild(t, minimal); one.Dimensions.Engines != nil || one.EngineOf(&one.Runs[0]) != "postgres" {
		t.Errorf("one engine: %v, %s", one.Dimensions.Engines, one.EngineOf(&one.Runs[0]))
	}
}

// TestEngineProblems: what the plan asks of an engine it asks of each,
// at the path of that engine's settings, naming the engine.
func TestEngineProblems(t *testing.T) {
	both := "sut:\n  engine: [postgres, mariadb]\n"
	for _, c := range []struct {
		name, src, path, value, allows string
		line                           int
	}{
		{"mariadb setting under postgres", "name: t\nworkload: {name: tpcb}\ntenancy: {model: database}\n" + both +
			"  settings:\n    postgres: {innodb_buffer_pool_size: 1G}\n", "sut.settings.postgres.innodb_buffer_pool_size", "1G",
			"is not a parameter of PostgreSQL", 7},
		{"engine-owned option", "name: t\nworkload: {name: tpcb}\ntenancy: {model: database}\n" + both +
			"  settings:\n    mariadb: {port: 3307}\n", "sut.settings.mariadb.port", "",
			"cannot be set in a spec: tenantbench listens on loopback only, on a free port and a socket of its own, so that nothing is exposed beyond this machine (engine mariadb)", 7},
		{"engine-owned option in a case", "name: t\ntenancy: {model: database}\n" + both +
			"workload:\n  name: tpcb\n  cases:\n    - name: a\n      settings: {mariadb: {datadir: /x}}\n", "workload.cases[0].settings.mariadb.datadir", "",
			"(engine mariadb)", 9},
		{"unknown engine", minimal + "tenancy: {model: database}\nsut: {engine: [postgres, mariadbx]}\n", "sut.engine[1]", "mariadbx",
			"must be one of mariadb, postgres; did you mean mariadb?", 4},
		{"model one engine lacks", minimal + "tenancy: {model: schema}\n" + both, "tenancy.model", "schema",
			"which mariadb has not (there a schema is a database): use the database model (sut.engine is mariadb; models it runs: database, instance)", 3},
		{"option one engine lacks", "name: t\nworkload: {name: tpcc, options: {interaction: batched}}\ntenancy: {model: database}\n" + both,
			"workload.options.interaction", "batched", "has no MariaDB form", 2},
		{"max_connections of one engine", "name: t\ntenancy: {model: database, tenants: 4}\nworkload: {name: tpcb, clients: 4}\n" + both +
			"  settings:\n    mariadb: {max_connections: 10}\n", "sut.settings.mariadb.max_connections", "10",
			"engine mariadb, model database with 4 tenants x 4 clients needs at least 19", 7},
		{"pooler in front of one engine", minimal + "tenancy: {model: database}\n" + both + "  pooler: {kind: pgbouncer}\n", "sut.pooler", "pgbouncer",
			"engine mariadb cannot run behind a connection pooler", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, problems := buildSrc(t, c.src, big)
			var p *spec.Problem
			for i := range problems {
				if problems[i].Path == c.path {
					p = &problems[i]
				}
			}
			if p == nil {
				t.Fatalf("no problem at %s; got:\n%v", c.path, problems)
			}
			if p.Value != c.value || !strings.Contains(p.Allowed, c.allows) || (c.line > 0 && p.Line != c.line) {
				t.Errorf("got  %q (line %d, value %q)\nwant value %q, allowed containing %q, line %d", p.Error(), p.Line, p.Value, c.value, c.allows, c.line)
			}
			if len(problems) != 1 {
				t.Errorf("%d problems, want 1:\n%v", len(problems), problems)
			}
		})
	}
}

// TestTprocMatrixExample: examples/tprocc-matrix.yaml plans Matos and
// Pedreira's 16 cases on both engines, each with its own knobs.
func TestTprocMatrixExample(t *testing.T) {
	p, problems := Build("../../examples/tprocc-matrix.yaml", regs())
	if len(problems) > 0 {
		t.Fatalf("problems:\n%v", problems)
	}
	if len(p.Runs) != 16*2*3 {
		t.Fatalf("%d runs, want 96", len(p.Runs))
	}
	for _, r := range p.Runs {
		var want []string
		switch r.Engine {
		case "postgres":
			want = []string{"max_connections", "shared_buffers", "wal_buffers"}
		case "mariadb":
			want = []string{"innodb_buffer_pool_size", "innodb_log_buffer_size", "max_connections"}
		default:
			t.Fatalf("run %s: engine %q", r.ID, r.Engine)
		}
		for _, k := range want {
			if r.Settings[k] == "" {
				t.Errorf("run %s (%s, %s): no %s: %v", r.ID, r.Case, r.Engine, k, r.Settings)
			}
		}
		if len(r.Settings) != 3 || r.Interaction != "procedures" {
			t.Errorf("run %s (%s, %s): settings %v, interaction %s", r.ID, r.Case, r.Engine, r.Settings, r.Interaction)
		}
	}
	// In interleaved order a case's engines run one after the other.
	if a, b := p.Runs[0], p.Runs[1]; a.Case != b.Case || a.Engine != "postgres" || b.Engine != "mariadb" {
		t.Errorf("first runs: %s/%s, %s/%s", a.Case, a.Engine, b.Case, b.Engine)
	}
}
