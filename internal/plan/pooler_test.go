package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pooler"
)

// TestPoolerProblems: sut.pooler's kind and mode are checked with a
// suggestion, pool_size at least 1, an engine that cannot run behind it
// is refused, each problem on its line; a valid one is in plan.json.
func TestPoolerProblems(t *testing.T) {
	pgbouncerVersion(t) // a valid pooler needs the program
	for _, c := range []struct{ src, want string }{
		{"sut: {pooler: {kind: pgbouncr}}\n", "sut.pooler.kind (line 3) pgbouncr: must be one of pgbouncer; did you mean pgbouncer?"},
		{"sut: {pooler: {kind: pgbouncer, mode: transacton}}\n", "sut.pooler.mode (line 3) transacton: must be one of session, transaction; did you mean transaction?"},
		{"sut:\n  pooler:\n    kind: pgbouncer\n    pool_size: 0\n", "sut.pooler.pool_size (line 6) 0: must be at least 1"},
		{"sut: {engine: mariadb, pooler: {kind: pgbouncer}}\n", "engine mariadb cannot run behind a connection pooler"},
		{"sut: {pooler: {kind: pgbouncer, size: 3}}\n", "sut.pooler.size (line 3) : unknown key"},
		{"sut: {pooler: {kind: pgbouncer, mode: session, pool_size: 2}}\nworkload: {name: tpcb, clients: [1, 3]}\n", "sut.pooler.pool_size (line 2) 2: must be at least 3, the most connections a tenant opens: in session mode"},
		{"sut: {pooler: {kind: pgbouncer, mode: transaction}}\nworkload:\n  name: tpcc\n  options: {interaction: procedures, isolation: serializable}\n",
			"workload.options.isolation (line 5) serializable: pgbouncer in transaction mode: in interaction procedures each call runs in the session's isolation level"},
		{"sut: {pooler: {kind: pgbouncer, mode: transaction}}\nworkload:\n  name: tpch\n  options:\n    query_timeout: 30s\n",
			"workload.options.query_timeout (line 6) 30s: pgbouncer in transaction mode: the timeout is the session's statement_timeout"},
	} {
		src := minimal + c.src
		if strings.Contains(c.src, "workload:") {
			src = "name: t\n" + c.src
		}
		_, problems := buildSrc(t, src, big)
		var got []string
		for _, p := range problems {
			got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
		}
		if text := strings.Join(got, "\n"); !strings.Contains(text, c.want) {
			t.Errorf("%q: no %q in:\n%s", c.src, c.want, text)
		}
	}
	// A case's own workload is checked as workload.name is: lag keeps
	// named statements, which only pgbouncer 1.21 and later keep in
	// transaction mode.
	v := pgbouncerVersion(t)
	if !(pooler.PgBouncer{}).NamedStatements(v, "transaction") {
		_, problems := buildLag(t, "name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n"+
			"workload:\n  name: sales\n  cases: [{name: c, workload: lag}]\n", big)
		if text := fmt.Sprint(problems); !strings.Contains(text, "workload.cases[0].workload") || !strings.Contains(text, "prepares named statements") {
			t.Errorf("a case running lag behind pgbouncer %s in transaction mode plans:\n%s", v, text)
		}
	}
	// Every workload runs through a transaction-mode pgbouncer of any
	// version (unnamed statements where it cannot keep named ones),
	// tpcc in each interaction, and session state is refused in
	// transaction mode only.
	for _, w := range []string{
		"{name: tpcb}", "{name: sales}", "{name: tpch}",
		"{name: tpcc, options: {interaction: batched, isolation: serializable}}",
		"{name: tpcc, options: {interaction: statements, isolation: repeatable_read}}",
		"{name: tpcc, options: {interaction: procedures}}",
	} {
		mustBuild(t, "name: t\nworkload: "+w+"\nsut: {pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n")
	}
	mustBuild(t, "name: t\nworkload: {name: tpch, options: {query_timeout: 30s}}\nsut: {pooler: {kind: pgbouncer, mode: session, pool_size: 3}}\n")
	p := mustBuild(t, minimal+"sut: {pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"pooler":{"kind":"pgbouncer","mode":"transaction","pool_size":3}`; !strings.Contains(string(b), want) {
		t.Errorf("plan.json lacks %s:\n%s", want, b)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "pooler in front of every server: pgbouncer, transaction mode, pool of 3") {
		t.Errorf("the plan's table does not show the pooler:\n%s", table.String())
	}
	if p := mustBuild(t, minimal+"sut: {pooler: {kind: pgbouncer}}\n"); p.Pooler.Mode != "session" || p.Pooler.PoolSize != 20 {
		t.Errorf("defaults: %+v, want pgbouncer's session mode and pool of 20", p.Pooler)
	}
}

// pgbouncerVersion is the installed pgbouncer's version; the test skips
// without one.
func pgbouncerVersion(t *testing.T) string {
	t.Helper()
	bin, err := pooler.PgBouncer{}.Find()
	if err != nil {
		t.Skip(err)
	}
	v, err := pooler.PgBouncer{}.Version(bin)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReplicaReadsBehindPooler: tpcc's reads on replicas need named
// statements (workload.NamedReplicaReads), so a pooler that cannot keep
// them in its mode (pooler.Kind.NamedStatements, asked with the
// installed version) is refused at plan, at workload.reads, naming the
// pooler's mode at its placement's path; in session mode, or for a
// workload whose replica reads need no names (tpcb), it plans. A tpcc
// class or case is named where it is written.
func TestReplicaReadsBehindPooler(t *testing.T) {
	v := pgbouncerVersion(t)
	keeps := pooler.PgBouncer{}.NamedStatements(v, "transaction")
	problems := func(src string) string {
		t.Helper()
		_, ps := buildLag(t, src, big)
		var got []string
		for _, p := range ps {
			got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
		}
		return strings.Join(got, "\n")
	}
	for _, c := range []struct{ src, want string }{
		{"name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\nworkload: {name: tpcc, reads: replicas}\n",
			"workload.reads (line 3) replicas: workload tpcc cannot read the replicas behind pgbouncer " + v +
				" in transaction mode (sut.pooler.mode), which keeps no named statement: a read-only transaction moves to a replica's session by the names of its prepared statements"},
		{"name: t\nsut:\n  replicas: [0, 2]\n  placement:\n    - {name: near}\n    - {name: far, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n" +
			"workload: {name: tpcc, reads: replicas, options: {interaction: procedures}}\n",
			"workload.reads (line 7) replicas: workload tpcc cannot read the replicas behind pgbouncer " + v +
				" in transaction mode (sut.placement[1].pooler.mode), which keeps no named statement"},
		{"name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n" +
			"workload: {name: tpcb, reads: replicas, options: {scripts: {select-only: 1, tpcb-like: 1}}}\n" +
			"tenancy:\n  tenants: 2\n  classes: [{name: a, count: 1}, {name: b, count: 1, workload: tpcc}]\n",
			"workload.reads (line 3) replicas: workload tpcc (tenancy.classes[1].workload) cannot read the replicas behind pgbouncer " + v},
		{"name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n" +
			"workload: {name: sales, reads: replicas, cases: [{name: c, workload: tpcc}]}\n",
			"workload.reads (line 3) replicas: workload tpcc (workload.cases[0].workload) cannot read the replicas behind pgbouncer " + v},
	} {
		got := problems(c.src)
		switch {
		case !keeps && !strings.Contains(got, c.want):
			t.Errorf("%q: no %q in:\n%s", c.src, c.want, got)
		case !keeps && !strings.Contains(got, "; use workload.reads primary, sut"):
			t.Errorf("%q: no remedy in:\n%s", c.src, got)
		case keeps && got != "":
			t.Errorf("%q: pgbouncer %s keeps named statements in transaction mode, yet:\n%s", c.src, v, got)
		}
	}
	for _, src := range []string{
		"name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: session, pool_size: 3}}\nworkload: {name: tpcc, reads: replicas}\n",
		"name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\n" +
			"workload: {name: tpcb, reads: replicas, options: {scripts: {select-only: 1, tpcb-like: 1}}}\n",
		"name: t\nsut: {replicas: 1, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\nworkload: {name: tpcc}\n",
		"name: t\nsut: {replicas: 0, pooler: {kind: pgbouncer, mode: transaction, pool_size: 3}}\nworkload: {name: tpcc, cases: [{name: c, replicas: [1]}], reads: primary}\n",
	} {
		if got := problems(src); got != "" {
			t.Errorf("%q:\n%s", src, got)
		}
	}
}
