package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/isolation"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/sales"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
	"github.com/tenantbench/tenantbench/internal/workload/tpch"
)

func regs() Registries {
	w := workload.Registry{}
	w.Add(tpcb.Factory())
	w.Add(sales.Factory())
	w.Add(tpcc.Factory())
	w.Add(tpch.Factory())
	return Builtin(w)
}

// big is a machine that holds every plan of these tests.
var big = Machine{MemoryBytes: 1 << 50, OpenFiles: 1 << 30, Processes: 1 << 30}

func buildSrc(t *testing.T, src string, m Machine) (*Plan, []spec.Problem) {
	t.Helper()
	s, pl, problems := spec.ParsePlaced([]byte(src))
	return resolve(s, pl, problems, regs(), m)
}

func mustBuild(t *testing.T, src string) *Plan {
	t.Helper()
	p, problems := buildSrc(t, src, big)
	if len(problems) > 0 {
		t.Fatalf("problems:\n%v", problems)
	}
	return p
}

const minimal = "name: t\nworkload: {name: tpcb}\n"

// The checks that need the registries: each problem with its path, value,
// what is allowed and its line, as the spec's own.
func TestBuildProblems(t *testing.T) {
	for _, c := range []struct {
		name, src, path, value, allows string
		line                           int
	}{
		{"model unknown", minimal + "tenancy: {model: shared}\n", "tenancy.model", "shared", "one of database, instance, schema, shared-table", 3},
		{"shared-table tpcb", minimal + "tenancy: {model: shared-table}\n", "tenancy.model", "shared-table",
			"shared-table needs a workload with a tenant key: tpcc (workload.name is tpcb)", 3},
		{"shared-table in a list", "name: t\ntenancy: {model: [schema, shared-table]}\nworkload: {name: sales}\n", "tenancy.model[1]",
			"shared-table", "needs a workload with a tenant key: tpcc", 2},
		{"divide memory", minimal + "sut: {resources: {memory: 1GiB, divide: true}}\ntenancy: {model: instance, tenants: 32}\n",
			"sut.resources.memory", "1GiB", "the instance model gives each of 32 servers 32MiB; each needs at least 64MiB, so give at least 2GiB", 3},
		{"divide cpus", minimal + "sut: {resources: {cpus: 1, divide: true}}\ntenancy: {model: instance, tenants: 200}\n",
			"sut.resources.cpus", "1", "gives each of 200 servers 0.005 CPUs", 3},
		{"max_connections small", "name: t\nsut: {settings: {max_connections: 20}}\ntenancy: {tenants: [2, 4]}\nworkload: {name: tpcb, clients: 4}\n",
			"sut.settings.max_connections", "20", "model schema with 4 tenants x 4 clients needs at least 21", 2},
		{"max_connections list", "name: t\nsut: {settings: {max_connections: [100, 10]}}\ntenancy: {model: instance, tenants: 50}\nworkload: {name: tpcb, clients: 8}\n",
			"sut.settings.max_connections[1]", "10", "model instance with 50 tenants x 8 clients needs at least 13", 2},
		{"max_connections text", minimal + "sut: {settings: {max_connections: many}}\n", "sut.settings.max_connections", "many", "whole number", 3},
		{"max_connections of a case", "name: t\ntenancy: {tenants: 4}\nworkload: {name: tpcb, cases: [{name: a, clients: 30, settings: {max_connections: 100}}]}\n",
			"workload.cases[0].settings.max_connections", "100", "case a, model schema with 4 tenants x 30 clients needs at least 125", 3},
		{"max_connections under a pattern", "name: t\nsut: {settings: {max_connections: 50}}\ntenancy: {tenants: 2}\n" +
			"workload: {name: tpcb, pattern: {name: single-peak, tau: 30}}\n", "sut.settings.max_connections", "50",
			"2 tenants x 30 clients needs at least 65", 2},
		{"workload unknown", "name: t\nworkload: {name: tpcx}\n", "workload.name", "tpcx", "must be one of sales, tpcb, tpcc, tpch; did you mean tpcb?", 2},
		{"workload far from any", "name: t\nworkload: {name: ycsb}\n", "workload.name", "ycsb", "must be one of sales, tpcb, tpcc, tpch", 2},
		{"model typo", minimal + "tenancy: {model: [schema, databse]}\n", "tenancy.model[1]", "databse", "; did you mean database?", 3},
		{"guard typo", minimal + "tenancy: {guards: [connection_limit, lock_timout]}\n", "tenancy.guards[1]", "lock_timout",
			"must be one of connection_limit, hide_statistics, lock_timeout, idle_transaction_timeout; did you mean lock_timeout?", 3},
		{"guard unknown", minimal + "tenancy:\n  guards: sandbox\n", "tenancy.guards", "sandbox", "must be one of connection_limit", 4},
		{"guard twice", minimal + "tenancy: {guards: [hide_statistics, hide_statistics]}\n", "tenancy.guards[1]", "hide_statistics", "listed twice", 3},
		{"max_connections under connection_limit", "name: t\nsut: {settings: {max_connections: 12}}\ntenancy: {tenants: 2, guards: [connection_limit]}\n" +
			"workload: {name: tpcb, clients: 3}\n", "sut.settings.max_connections", "12", "needs at least 15", 2},
		{"engine typo", minimal + "sut: {engine: postgress}\n", "sut.engine", "postgress", "must be one of mariadb, postgres; did you mean postgres?", 3},
		{"provider typo", minimal + "sut: {provider: locale}\n", "sut.provider", "locale", "must be one of external, kubernetes, local; did you mean local?", 3},
		{"engine unknown", minimal + "sut: {engine: oracle}\n", "sut.engine", "oracle", "must be one of mariadb, postgres", 3},
		{"schema model on mariadb", minimal + "sut: {engine: mariadb}\ntenancy: {model: schema}\n", "tenancy.model", "schema",
			"the schema model needs schemas apart from databases, which mariadb has not (there a schema is a database): use the database model (sut.engine is mariadb; models it runs: database, instance)", 4},
		{"shared-table on mariadb", "name: t\nworkload: {name: tpcb}\nsut: {engine: mariadb}\ntenancy: {model: shared-table}\n", "tenancy.model", "shared-table",
			"the shared-table model needs row-level security to keep tenants' rows apart, which mariadb has not", 4},
		{"tpcc batched on mariadb", "name: t\nworkload: {name: tpcc, options: {interaction: batched}}\nsut: {engine: mariadb}\ntenancy: {model: database}\n",
			"workload.options.interaction", "batched", "has no MariaDB form (it batches with PostgreSQL's arrays and CTEs); with mariadb (sut.engine) set workload.options.interaction to statements or procedures", 2},
		{"tpcc on mariadb, batched by default", "name: t\nworkload: {name: tpcc}\nsut: {engine: mariadb}\ntenancy: {model: database}\n",
			"workload.options.interaction", "batched", "set workload.options.interaction to statements or procedures", 0},
		{"tpcc batched in a case on mariadb", "name: t\nworkload:\n  name: tpcc\n  options: {interaction: statements}\n  cases:\n  - name: a\n    options: {interaction: batched}\n" +
			"sut: {engine: mariadb}\ntenancy: {model: database}\n", "workload.cases[0].options.interaction", "batched", "has no MariaDB form", 7},
		{"isolation audit on mariadb", minimal + "sut: {engine: mariadb}\ntenancy: {model: database, tenants: 2, isolation: audit}\n", "tenancy.isolation", "audit",
			"the isolation audit's probes are written for PostgreSQL", 4},
		{"mariadb setting owned", minimal + "sut: {engine: mariadb, settings: {bind-address: 0.0.0.0}}\ntenancy: {model: database}\n", "sut.settings.bind-address", "",
			"cannot be set in a spec: tenantbench listens on loopback only", 3},
		{"mariadb setting name", minimal + "sut: {engine: mariadb, settings: {Innodb_Buffer_Pool_Size: 1G}}\ntenancy: {model: database}\n", "sut.settings.Innodb_Buffer_Pool_Size", "",
			"must be a MariaDB server option in lowercase", 3},
		{"provider unknown", minimal + "sut: {provider: nomad}\n", "sut.provider", "nomad", "must be one of external, kubernetes, local", 3},
		{"kubernetes without a cluster", minimal + "sut: {provider: kubernetes}\n", "sut.provider", "kubernetes", "needs the cluster to run servers in", 3},
		{"kubernetes variable unset", minimal + "sut: {provider: kubernetes, kubernetes: {kubeconfig_env: TB_PLAN_TEST_UNSET}}\n", "sut.kubernetes", "",
			"TB_PLAN_TEST_UNSET is not set", 3},
		{"kubernetes for local", minimal + "sut:\n  kubernetes: {kubeconfig_env: KUBECONFIG}\n", "sut.kubernetes", "", "provider local runs no server in a cluster", 4},
		{"kubernetes namespace", minimal + "sut:\n  provider: kubernetes\n  kubernetes: {kubeconfig_env: X, namespace: Bad_NS}\n", "sut.kubernetes.namespace", "Bad_NS",
			"must be a namespace's name", 5},
		{"memory small", minimal + "sut: {resources: {memory: 10MiB}}\n", "sut.resources.memory", "10MiB",
			"at least 64MiB: a postgres server needs that much", 3},
		{"setting name case", minimal + "sut: {settings: {Work_Mem: 4MB}}\n", "sut.settings.Work_Mem", "", "PostgreSQL parameter name in lowercase", 3},
		{"setting name symbols", minimal + "sut: {settings: {\"work mem\": 4MB}}\n", `sut.settings["work mem"]`, "", "PostgreSQL parameter name", 3},
		{"setting trailing dot", minimal + "sut: {settings: {\"pg_stat_statements.\": 1}}\n", "sut.settings.pg_stat_statements.", "", "parameter name", 3},
		{"setting owned", minimal + "sut: {settings: {port: 5433}}\n", "sut.settings.port", "", "cannot be set in a spec: tenantbench gives every instance a free port", 3},
		{"setting owned hba", minimal + "sut: {settings: {hba_file: /x}}\n", "sut.settings.hba_file", "", "writes its configuration and authentication files", 3},
		{"setting owned listen", minimal + "sut: {settings: {listen_addresses: \"*\"}}\n", "sut.settings.listen_addresses", "", "loopback only", 3},
		{"setting owned by a case", "name: t\nworkload: {name: tpcb, cases: [{name: a, settings: {data_directory: /x}}]}\n",
			"workload.cases[0].settings.data_directory", "", "lays out each instance's data directory", 2},
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
			if p.Value != c.value || !strings.Contains(p.Allowed, c.allows) || p.Line != c.line {
				t.Errorf("got  %q (line %d, value %q)\nwant value %q, allowed containing %q, line %d", p.Error(), p.Line, p.Value, c.value, c.allows, c.line)
			}
			if strings.Contains(p.Allowed, "did you mean") && !strings.Contains(c.allows, "did you mean") {
				t.Errorf("%q suggests a name where none is close", p.Error())
			}
			if len(problems) != 1 {
				t.Errorf("%d problems, want 1:\n%v", len(problems), problems)
			}
		})
	}
}

// Problems of every layer come at once: the spec's own beside the
// registries'.
func TestBuildAllProblemsAtOnce(t *testing.T) {
	_, problems := buildSrc(t, "name: t\nrepeat: 0\nsut: {engine: mysql}\ntenancy: {model: [schema, nope]}\n"+
		"workload: {name: tpcb, options: {scripts: nope}}\n", big)
	paths := map[string]bool{}
	for _, p := range problems {
		paths[p.Path] = true
	}
	for _, want := range []string{"repeat", "sut.engine", "tenancy.model[1]"} {
		if !paths[want] {
			t.Errorf("no problem at %s; got:\n%v", want, problems)
		}
	}
	if len(paths) < 4 {
		t.Errorf("want the workload's options problem too; got:\n%v", problems)
	}
}

// Every registered engine and provider is accepted, and nothing else.
func TestSUTAgreesWithRegistries(t *testing.T) {
	r := regs()
	for _, name := range r.Engines.Names() {
		// The database model: every engine holds it (MariaDB has no schemas).
		if _, problems := buildSrc(t, minimal+"sut: {engine: "+name+"}\ntenancy: {model: database}\n", big); len(problems) > 0 {
			t.Errorf("engine %s is registered but refused: %v", name, problems)
		}
	}
	for _, name := range r.Providers.Names() {
		_, problems := buildSrc(t, minimal+"sut: {provider: "+name+"}\n", big)
		if r.Providers[name].Servers && len(problems) == 1 && problems[0].Path == "sut.servers" {
			// Accepted; it asks for the servers to place tenants on
			// (external_test.go gives it one).
			continue
		}
		if r.Providers[name].Cluster && len(problems) == 1 && problems[0].Path == "sut.provider" && strings.Contains(problems[0].Allowed, "sut.kubernetes") {
			// Accepted; it asks for the cluster to run servers in
			// (provider/kubernetes's tests give it one).
			continue
		}
		if len(problems) > 0 {
			t.Errorf("provider %s is registered but refused: %v", name, problems)
		}
	}
}

// TestProvision: clone where the model can copy a tenant's data and there
// is more than one tenant; load everywhere else.
func TestProvision(t *testing.T) {
	p := mustBuild(t, "name: t\ntenancy: {model: [schema, database, instance, shared-table], tenants: [1, 2]}\nworkload: {name: tpcc}\n")
	want := map[string]string{"schema 1": "load", "schema 2": "load", "database 1": "load", "database 2": "clone",
		"instance 1": "load", "instance 2": "clone", "shared-table 1": "load", "shared-table 2": "load"}
	for _, r := range p.Runs {
		key := r.Model + " " + map[int]string{1: "1", 2: "2"}[r.Tenants]
		if r.Provision != want[key] {
			t.Errorf("%s: provision %s, want %s", key, r.Provision, want[key])
		}
	}
	p = mustBuild(t, "name: t\ntenancy: {model: database, tenants: 4}\nworkload: {name: tpcc, provision: load}\n")
	if p.Runs[0].Provision != "load" {
		t.Errorf("provision: load asked, got %s", p.Runs[0].Provision)
	}
}

// Each run holds its servers, their limits and connections, and its
// tenants, named by the one naming rule.
func TestResolvedRuns(t *testing.T) {
	p := mustBuild(t, "name: t\nsut: {resources: {cpus: 2, memory: 1GiB, divide: true}}\n"+
		"tenancy: {model: [schema, instance], tenants: 4}\nworkload: {name: tpcb, clients: 3}\n")
	schema, inst := p.Runs[0], p.Runs[1]
	if len(schema.Instances) != 1 || schema.Instances[0].Name != "shared" || len(schema.Instances[0].Tenants) != 4 ||
		schema.Instances[0].MaxConnections != 4*3+5 || schema.Instances[0].CPUs != 2 ||
		schema.Instances[0].MemoryBytes != 1<<30 {
		t.Errorf("schema instances: %+v", schema.Instances)
	}
	if len(inst.Instances) != 4 || inst.Instances[2].Name != "t03" || inst.Instances[2].Tenants[0] != "t03" ||
		inst.Instances[2].MaxConnections != 3+5 || inst.Instances[2].CPUs != 0.5 ||
		inst.Instances[2].MemoryBytes != 256<<20 {
		t.Errorf("instance instances: %+v", inst.Instances)
	}
	if len(inst.TenantList) != 4 || inst.TenantList[3].Name != "t04" || inst.TenantList[3].Conns != 3 || inst.TenantList[3].Scale != 1 {
		t.Errorf("tenants: %+v", inst.TenantList)
	}
}

// The plan's table and the run name tenants alike at every count, up to
// the limit of 10,000 tenants.
func TestTenantNamesAgree(t *testing.T) {
	for _, n := range []int{1, 9, 10, 99, 100, 999, 1000, 9999} {
		p := mustBuild(t, "name: t\ntenancy: {tenants: "+strconv.Itoa(n)+"}\n"+
			"workload: {name: tpcb, duration: 2s, schedule: {slot: 1s, slots: [1, 2]}}\n")
		names := tenancy.TenantNames(n)
		r := p.Runs[0]
		if got := r.Names(); len(got) != n || got[0] != names[0] || got[n-1] != names[n-1] {
			t.Fatalf("%d tenants: plan names %v..%v, run names %v..%v", n, got[0], got[len(got)-1], names[0], names[n-1])
		}
		var b strings.Builder
		if err := p.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "  "+names[0]+": [1, 2]\n") {
			t.Errorf("%d tenants: the table does not name %s:\n%s", n, names[0], b.String())
		}
	}
}

// SpareFiles: the files a run leaves of the process's limit beside its
// connections, its servers' admin sessions and tenantbench's own; the
// monitor keeps open no more than that.
func TestSpareFiles(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Max >= 1<<31 {
		t.Skip("no file limit to leave files of")
	}
	p := mustBuild(t, "name: t\ntenancy: {model: instance, tenants: [3, 5]}\nworkload: {name: tpcb, clients: 4}\n")
	for i := range p.Runs {
		r := &p.Runs[i]
		spare, ok := p.SpareFiles(r)
		want := int(lim.Max) - r.Tenants*4 - ownOpenFiles - r.Tenants
		if !ok || spare != max(want, 0) {
			t.Errorf("run %d (%d tenants): spare %d (%v), want %d", i, r.Tenants, spare, ok, want)
		}
	}
}

// 10,000 tenants are allowed by the spec; whether the machine holds them
// is the plan's check, with a reason.
func TestMachineHoldsThePlan(t *testing.T) {
	m := Machine{MemoryBytes: 24 << 30, OpenFiles: 20000, Processes: 32000}
	if _, problems := buildSrc(t, "name: t\ntenancy: {tenants: 10000}\nworkload: {name: tpcb}\n", m); len(problems) > 0 {
		t.Errorf("10,000 schema tenants of one client fit:\n%v", problems)
	}
	_, problems := buildSrc(t, "name: t\ntenancy: {tenants: 10000}\nworkload: {name: tpcb, clients: 2}\n", m)
	if len(problems) == 0 || problems[0].Path != "tenancy.tenants" || !strings.Contains(problems[0].Allowed, "limit of 20000 (ulimit -Hn)") {
		t.Errorf("20,000 connections from one process: %v", problems)
	}
	_, problems = buildSrc(t, "name: t\ntenancy: {model: instance, tenants: [10, 10000]}\nworkload: {name: tpcb}\n", m)
	var procs, mem bool
	for _, p := range problems {
		procs = procs || (p.Path == "tenancy.tenants[1]" && strings.Contains(p.Allowed, "10000 servers") && strings.Contains(p.Allowed, "pid_max"))
		mem = mem || (p.Path == "tenancy.tenants[1]" && strings.Contains(p.Allowed, "memory"))
	}
	if !procs || !mem {
		t.Errorf("10,000 servers: want a process and a memory problem at tenancy.tenants[1]; got %v", problems)
	}
	// 100 servers: their shared memory (128MB of buffers each by default)
	// against 8 GiB, a port each without replicas.
	small := Machine{MemoryBytes: 8 << 30, OpenFiles: 20000, Processes: 32000, Ports: 150}
	_, problems = buildSrc(t, "name: t\ntenancy: {model: instance, tenants: 100}\nworkload: {name: tpcb}\n", small)
	var shm, ports bool
	for _, p := range problems {
		shm = shm || (p.Path == "tenancy.tenants" && strings.Contains(p.Allowed, "of shared memory") &&
			strings.Contains(p.Allowed, "shared_buffers 128MB (the default)") && strings.Contains(p.Allowed, "MB fits"))
		ports = ports || (p.Path == "tenancy.tenants" && strings.Contains(p.Allowed, "needs 200 loopback ports"))
	}
	if !shm || !ports {
		t.Errorf("100 servers on 8 GiB and 150 ports: want a shared memory and a ports problem; got %v", problems)
	}
	small.Ports = 1000
	if _, problems := buildSrc(t, "name: t\nsut: {settings: {shared_buffers: 16MB}}\ntenancy: {model: instance, tenants: 100}\nworkload: {name: tpcb}\n", small); len(problems) > 0 {
		t.Errorf("100 servers of 16MB of buffers fit 8 GiB: %v", problems)
	}
	if _, problems := buildSrc(t, "name: t\ntenancy: {tenants: 10001}\nworkload: {name: tpcb}\n", big); len(problems) != 1 ||
		!strings.Contains(problems[0].Allowed, "1..10000") {
		t.Errorf("10,001 tenants: %v", problems)
	}
}

// A per-server memory limit above the machine's memory is refused at
// plan, on its line; with divide, a server's share is what counts.
func TestMemoryAboveTheMachine(t *testing.T) {
	m := Machine{MemoryBytes: 16 << 30, OpenFiles: 1 << 20, Processes: 1 << 20}
	_, problems := buildSrc(t, minimal+"sut:\n  resources:\n    memory: 1000000TiB\n", m)
	if len(problems) != 1 || problems[0].Path != "sut.resources.memory" || problems[0].Line != 5 ||
		!strings.Contains(problems[0].Allowed, "more than this machine's memory of 16.0 GiB") ||
		!strings.Contains(problems[0].Allowed, "give at most 16GiB") {
		t.Errorf("1000000TiB on a 16 GiB machine: %v", problems)
	}
	if _, problems := buildSrc(t, minimal+"sut: {resources: {memory: 16GiB}}\n", m); len(problems) > 0 {
		t.Errorf("the machine's whole memory is a limit it can give: %v", problems)
	}
	// 32 GiB divided over 4 instance servers is 8 GiB each: fits.
	src := minimal + "sut: {resources: {memory: 32GiB, divide: true}}\ntenancy: {model: instance, tenants: 4}\n"
	if _, problems := buildSrc(t, src, m); len(problems) > 0 {
		t.Errorf("32 GiB divided over 4 servers: %v", problems)
	}
	// With one tenant the instance model has one server of 32 GiB.
	src = minimal + "sut: {resources: {memory: 32GiB, divide: true}}\ntenancy: {model: instance, tenants: [1, 4]}\n"
	if _, problems := buildSrc(t, src, m); len(problems) != 1 || !strings.Contains(problems[0].Allowed, "each of the 1 servers of model instance with 1 tenants") {
		t.Errorf("32 GiB divided over 1 server: %v", problems)
	}
	// An unknown machine checks nothing.
	if _, problems := buildSrc(t, minimal+"sut: {resources: {memory: 1000TiB}}\n", Machine{}); len(problems) > 0 {
		t.Errorf("unknown machine memory: %v", problems)
	}
}

// calibrate checks the spec as plan does: a memory limit beyond the
// machine and a misspelt engine are refused, the engine with a suggestion.
func TestCalibrationChecksAsBuild(t *testing.T) {
	if Here().MemoryBytes == 0 {
		t.Skip("the machine's memory is unknown")
	}
	path := filepath.Join(t.TempDir(), "s.yaml")
	src := "name: t\nsut:\n  engine: postgress\n  resources: {memory: 1000000TiB, divide: true}\ntenancy: {model: instance, tenants: 10000}\nworkload: {name: tpcb}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := Calibration(path, regs(), 4)
	var memory, engine bool
	for _, p := range problems {
		memory = memory || (p.Path == "sut.resources.memory" && p.Line == 4 && strings.Contains(p.Allowed, "more than this machine's memory"))
		engine = engine || (p.Path == "sut.engine" && strings.HasSuffix(p.Allowed, "did you mean postgres?"))
	}
	if !memory || !engine {
		t.Errorf("want the memory and the engine refused; got %v", problems)
	}
}

// tenancy.isolation reaches every run of the plan, and plan.json.
func TestIsolationCarried(t *testing.T) {
	p := mustBuild(t, "name: t\ntenancy: {model: [schema, database], isolation: audit}\nworkload: {name: tpcb}\n")
	for _, r := range p.Runs {
		if !r.Audits() {
			t.Errorf("run %s does not audit", r.ID)
		}
	}
	b, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(b), `"isolation":"audit"`) {
		t.Errorf("plan.json lacks the isolation: %v", err)
	}
	if p := mustBuild(t, minimal); p.Runs[0].Audits() {
		t.Error("a spec without tenancy.isolation audits")
	}
}

// With connection_limit, every tenant's server has room for each tenant's
// limit (its clients + tenancy.ConnectionMargin), and the run carries the
// guards to plan.json.
func TestGuardsPlanned(t *testing.T) {
	p := mustBuild(t, "name: t\ntenancy: {model: [schema, instance], tenants: 3, guards: [lock_timeout, connection_limit]}\nworkload: {name: tpcb, clients: 4}\n")
	for _, r := range p.Runs {
		if strings.Join(r.Guards, ",") != "lock_timeout,connection_limit" {
			t.Errorf("run %s: guards %v", r.ID, r.Guards)
		}
		per := 3
		if r.Model == "instance" {
			per = 1
		}
		if want := per*(4+tenancy.ConnectionMargin) + 5; r.Instances[0].MaxConnections != want {
			t.Errorf("run %s (%s): max_connections %d, want %d", r.ID, r.Model, r.Instances[0].MaxConnections, want)
		}
	}
	plain := mustBuild(t, "name: t\ntenancy: {tenants: 3}\nworkload: {name: tpcb, clients: 4}\n")
	if r := plain.Runs[0]; r.Guards != nil || r.Instances[0].MaxConnections != 3*4+5 {
		t.Errorf("no guards: %v, max_connections %d", r.Guards, r.Instances[0].MaxConnections)
	}
}

// TestAuditLeavesRoom: the isolation audit holds isolation.Sessions of the
// tenants' sessions at once on a server, so a run whose tenants have fewer
// connections than that gets a max_connections with room for them.
func TestAuditLeavesRoom(t *testing.T) {
	const src = "name: t\ntenancy: {model: [schema, instance], tenants: 2%s}\nworkload: {name: tpcb, clients: 1}\n"
	reserve := engine.Builtin()["postgres"].ConnectionReserve()
	plain, audited := mustBuild(t, fmt.Sprintf(src, "")), mustBuild(t, fmt.Sprintf(src, ", isolation: audit"))
	for i, r := range audited.Runs {
		for j, in := range r.Instances {
			if in.MaxConnections != isolation.Sessions+reserve {
				t.Errorf("%s %s: max_connections %d with the audit, want %d", r.Model, in.Name, in.MaxConnections, isolation.Sessions+reserve)
			}
			if was := plain.Runs[i].Instances[j].MaxConnections; was >= isolation.Sessions+reserve {
				t.Errorf("%s %s: max_connections %d without the audit: the test shows nothing", r.Model, in.Name, was)
			}
		}
	}
}

// A workload's interaction mode reaches every run (a case's options merged
// in), plan.json and the plan's table; a workload without modes has none.
func TestInteractionCarried(t *testing.T) {
	p := mustBuild(t, `name: t
workload:
  name: tpcc
  options: {interaction: statements}
  cases:
    - {name: a}
    - {name: b, options: {interaction: procedures}}
`)
	want := []string{"statements", "procedures"}
	if len(p.Runs) != len(want) {
		t.Fatalf("%d runs", len(p.Runs))
	}
	for i, r := range p.Runs {
		if r.Interaction != want[i] {
			t.Errorf("run %s: interaction %q, want %q", r.ID, r.Interaction, want[i])
		}
	}
	b, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(b), `"interaction":"procedures"`) {
		t.Errorf("plan.json lacks the interaction: %v", err)
	}
	var sb strings.Builder
	if err := p.WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "interaction: statements (runs 001); procedures (runs 002)") {
		t.Errorf("table:\n%s", sb.String())
	}
	if p := mustBuild(t, minimal); p.Runs[0].Interaction != "" {
		t.Errorf("tpcb has interaction %q", p.Runs[0].Interaction)
	}
}

// tpcc runs on MariaDB in interactions statements and procedures.
func TestTPCCOnMariaDB(t *testing.T) {
	for _, mode := range []string{"statements", "procedures"} {
		src := "name: t\nworkload: {name: tpcc, options: {interaction: " + mode + "}}\nsut: {engine: mariadb}\ntenancy: {model: database}\n"
		if _, problems := buildSrc(t, src, big); len(problems) > 0 {
			t.Errorf("%s: %v", mode, problems)
		}
	}
}
