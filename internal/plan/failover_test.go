package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestFailOverProblems: the fail-over faults are refused at plan, each
// on its line, without replicas (in the run of the matrix that has
// none), with a replica index beyond those there are, more often than a
// server has replicas to promote, on a provider that cannot fail its
// servers over, and on an engine whose replicas cannot be promoted; a
// valid pair is accepted.
func TestFailOverProblems(t *testing.T) {
	src := `name: t
sut: {replicas: [0, 2]}
workload: {name: tpcb, duration: 30s}
interference:
  - {kind: fail-primary, at: 5s, target: shared}
  - {kind: fail-replica, at: 10s, target: t01, params: {replica: 3}}
  - {kind: fail-primary, at: 15s, every: 5s, target: shared}
`
	_, problems := buildSrc(t, src, big)
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"interference[0].kind (line 5) fail-primary: needs replicas of server shared, which has none where sut.replicas is 0",
		"interference[1].params.replica (line 6) 3: must be 1 to 2: server shared has 2 replicas where sut.replicas is 2",
		"interference[2] (line 7) : fails server shared over 4 times where sut.replicas is 2",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}

	ok := `name: t
sut: {replicas: 2}
workload: {name: tpcb, duration: 30s}
interference:
  - {kind: fail-primary, at: 5s, target: shared, params: {promote: 2}}
  - {kind: fail-replica, at: 10s, target: t01, params: {crash: true}}
`
	if _, problems := buildSrc(t, ok, big); len(problems) > 0 {
		t.Errorf("a valid fail-over refused: %v", problems)
	}

	const ext = "name: t\nworkload: {name: tpcb, duration: 30s}\ntenancy: {model: database, tenants: 2}\n" +
		"sut:\n  provider: external\n  servers: [{name: main, dsn_env: TB_PLAN_TEST_UNSET}]\n" +
		"interference: [{kind: fail-primary, at: 5s, target: main}]\n"
	_, problems = buildSrc(t, ext, big)
	if !has(problems, "interference[0].kind", "kill a server and promote one of its replicas") {
		t.Errorf("external's servers failed over: %v", problems)
	}

	const maria = "name: t\nsut: {engine: mariadb, replicas: 1}\nworkload: {name: tpcb, duration: 30s}\n" +
		"interference: [{kind: fail-primary, at: 5s, target: shared}]\n"
	_, problems = buildSrc(t, maria, big)
	if !has(problems, "interference[0].kind", "engine mariadb cannot") {
		t.Errorf("mariadb's replicas promoted: %v", problems)
	}
}

func has(problems []spec.Problem, path, allowed string) bool {
	for _, p := range problems {
		if p.Path == path && strings.Contains(p.Allowed, allowed) {
			return true
		}
	}
	return false
}

// TestFailOverConnections: a server whose clients read the replicas is
// sized for the connections a client holds after the run's fail-overs:
// with 2 replicas and one promotion each client's two replica
// connections go to the one replica left (twice the clients'
// connections); with 1 replica the promoted server holds them beside the
// primary's; with the reads on the primary, or no promotion, once.
func TestFailOverConnections(t *testing.T) {
	const clients = 2 * 4 // tenants x clients
	for _, c := range []struct {
		name, sut, reads, events string
		times                    int
	}{
		{"2 replicas, one fail-over", "{replicas: 2}", "replicas", "[{kind: fail-primary, at: 5s, target: shared}]", 2},
		{"1 replica, one fail-over", "{replicas: 1}", "replicas", "[{kind: fail-primary, at: 5s, target: shared}]", 2},
		{"2 replicas, two fail-overs", "{replicas: 2}", "replicas", "[{kind: fail-primary, at: 5s, every: 5s, until: 12s, target: shared}]", 3},
		{"3 replicas, one fail-over", "{replicas: 3}", "replicas", "[{kind: fail-primary, at: 5s, target: shared}]", 2},
		{"reads on the primary", "{replicas: 2}", "primary", "[{kind: fail-primary, at: 5s, target: shared}]", 1},
		{"a replica fails, none promoted", "{replicas: 2}", "replicas", "[{kind: fail-replica, at: 5s, target: shared}]", 1},
	} {
		src := fmt.Sprintf(`name: t
sut: %s
tenancy: {model: schema, tenants: 2}
workload: {name: sales, scale: 0.1, clients: 4, duration: 30s, reads: %s, options: {preset: read-write}}
interference: %s
`, c.sut, c.reads, c.events)
		p, problems := buildSrc(t, src, big)
		if len(problems) > 0 {
			t.Fatalf("%s: %v", c.name, problems)
		}
		in := p.Runs[0].Instances[0]
		if want := c.times*clients + 5; in.MaxConnections != want {
			t.Errorf("%s: max_connections %d, want %d (%d x %d clients + 5)", c.name, in.MaxConnections, want, c.times, clients)
		}
		if share := max(p.Runs[0].FailoverShare, 1); share != c.times {
			t.Errorf("%s: failover_share %d, want %d", c.name, share, c.times)
		}
	}
}

// TestFailOverConnectionsSet: a max_connections the spec sets is refused
// at plan when it leaves no room for the replica connections the run's
// fail-over piles onto the replica left, and accepted when it does.
func TestFailOverConnectionsSet(t *testing.T) {
	const src = `name: t
sut: {replicas: 2, settings: {max_connections: %d}}
tenancy: {model: schema, tenants: 2}
workload: {name: sales, scale: 0.1, clients: 4, duration: 30s, reads: replicas, options: {preset: read-write}}
interference: [{kind: fail-primary, at: 5s, target: shared}]
`
	_, problems := buildSrc(t, fmt.Sprintf(src, 13), big) // enough for 8 clients once
	if !has(problems, "sut.settings.max_connections", "needs at least 21 for the replica connections its clients hold after its fail-overs") {
		t.Errorf("max_connections 13 accepted for 8 clients after a fail-over: %v", problems)
	}
	if _, problems := buildSrc(t, fmt.Sprintf(src, 21), big); len(problems) > 0 {
		t.Errorf("max_connections 21 refused: %v", problems)
	}
	// The problem names where the value is written: a case's entry, or
	// the element of a list.
	for _, c := range []struct{ sut, cases, path string }{
		{"{replicas: 2}", ", cases: [{name: a, settings: {max_connections: 13}}]", "workload.cases[0].settings.max_connections"},
		{"{replicas: 2, settings: {max_connections: [30, 13]}}", "", "sut.settings.max_connections[1]"},
	} {
		src := "name: t\nsut: " + c.sut + "\ntenancy: {model: schema, tenants: 2}\n" +
			"workload: {name: sales, scale: 0.1, clients: 4, duration: 30s, reads: replicas, options: {preset: read-write}" + c.cases + "}\n" +
			"interference: [{kind: fail-primary, at: 5s, target: shared}]\n"
		if _, problems := buildSrc(t, src, big); !has(problems, c.path, "needs at least 21") {
			t.Errorf("%s: max_connections 13 not refused at %s: %v", c.sut+c.cases, c.path, problems)
		}
	}
}
