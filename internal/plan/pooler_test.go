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
