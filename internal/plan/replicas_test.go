package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload/lag"
)

// buildLag is buildSrc with the lag workload registered too.
func buildLag(t *testing.T, src string, m Machine) (*Plan, []spec.Problem) {
	t.Helper()
	r := regs()
	r.Workloads.Add(lag.Factory())
	s, pl, problems := spec.ParsePlaced([]byte(src))
	return resolve(s, pl, problems, r, m)
}

// mustBuildLag is buildLag without problems.
func mustBuildLag(t *testing.T, src string) *Plan {
	t.Helper()
	p, problems := buildLag(t, src, big)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return p
}

// TestReplicasProblems: each bad use of replicas is refused at plan with
// its path, line, value and what is allowed: an engine or a provider
// that cannot give them (asked of the engine and the provider, by
// capability), reads on replicas that no run has, a workload without
// read-only transactions reading them, the lag workload without
// replicas, too many, a replication mode not known, and a run whose
// servers, replicas and connections exceed the machine's processes or
// ports.
func TestReplicasProblems(t *testing.T) {
	small := big
	small.Processes, small.Ports = 500, 100
	for _, c := range []struct {
		src  string
		m    Machine
		want string
	}{
		{"sut: {engine: mariadb, replicas: 1}\n", big, "sut.replicas (line 3) 1: must be 0: engine mariadb cannot have replicas"},
		{"sut: {provider: external, replicas: 2, servers: [{name: a, dsn_env: A_DSN}]}\n", big,
			"sut.replicas (line 3) 2: must be 0: provider external cannot start replicas"},
		{"sut: {provider: kubernetes, replicas: 1}\n", big, "sut.replicas (line 3) 1: must be 0: provider kubernetes cannot start replicas"},
		{"workload: {name: tpcb, reads: replicas}\n", big,
			"0: must be at least 1 with workload.reads: replicas"},
		{"sut: {replicas: 1}\nworkload: {name: tpcb, reads: replicas}\n", big,
			"workload.reads (line 3) replicas: must be primary: workload tpcb has no read-only transaction"},
		{"workload: {name: tpcb, reads: replica}\n", big, "workload.reads (line 2) replica: must be primary or replicas; did you mean replicas?"},
		{"workload: {name: lag}\n", big, "0: must be at least 1: workload lag reads its writes back from the replicas"},
		{"sut: {replicas: [1, 0]}\nworkload: {name: lag}\n", big, "sut.replicas[1] (line 2) 0: must be at least 1: workload lag"},
		{"sut: {replicas: 9}\n", big, "sut.replicas (line 3) 9: must be 0..8"},
		{"sut: {replicas: 1, replication: synchronous}\n", big, "sut.replication (line 3) synchronous: must be async or sync"},
		{"sut: {replicas: 2}\ntenancy: {model: instance, tenants: 40}\nworkload: {name: tpcb, clients: 2}\n", small,
			"120 servers, 80 connections) needs about"},
		{"sut: {replicas: 2}\ntenancy: {model: instance, tenants: 40}\nworkload: {name: tpcb, clients: 2}\n", small,
			"needs 200 loopback ports"},
	} {
		src := "name: t\n" + c.src
		if !strings.Contains(c.src, "workload:") {
			src = minimal + c.src
		}
		_, problems := buildLag(t, src, c.m)
		var got []string
		for _, p := range problems {
			got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
		}
		if text := strings.Join(got, "\n"); !strings.Contains(text, c.want) {
			t.Errorf("%q: no %q in:\n%s", c.src, c.want, text)
		}
	}
}

// TestReplicasPlan: sut.replicas is a matrix dimension with a column of
// the plan's table and plan.json; the lag workload and reads on
// replicas plan with them; a client that reads the replicas counts a
// connection to each.
func TestReplicasPlan(t *testing.T) {
	p, problems := buildLag(t, "name: t\nsut: {replicas: [1, 2], replication: sync}\nworkload: {name: tpcb, reads: replicas, options: {scripts: {select-only: 1, tpcb-like: 1}}}\n", big)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if len(p.Runs) != 2 || p.Runs[0].Replicas != 1 || p.Runs[1].Replicas != 2 {
		t.Fatalf("runs %+v", p.Runs)
	}
	if p.Replication != spec.ReplicationSync || p.Reads != spec.ReadsReplicas || !p.ReadsReplicas(&p.Runs[0]) {
		t.Errorf("replication %q, reads %q", p.Replication, p.Reads)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"replicas":2`) || !strings.Contains(string(b), `"replication":"sync"`) {
		t.Errorf("plan.json lacks the replicas:\n%s", b)
	}
	var table strings.Builder
	if err := p.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "replicas") || !strings.Contains(table.String(), "read-only transactions go to them") {
		t.Errorf("the plan's table does not show the replicas:\n%s", table.String())
	}
	p, problems = buildLag(t, "name: t\nsut: {replicas: 1}\nworkload: {name: lag, options: {mix: {insert: 100}}}\n", big)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if !p.ReplicaUser || !p.ReadsReplicas(&p.Runs[0]) {
		t.Errorf("lag does not read its replicas: %+v", p)
	}
	if _, problems := buildLag(t, "name: t\nsut: {replicas: 1}\nworkload: {name: lag, options: {mix: {insert: 50, update: 20}}}\n", big); len(problems) == 0 ||
		!strings.Contains(problems[0].Allowed, "add up to 100") {
		t.Errorf("a mix of 70 %%: %v", problems)
	}
	// A list with 0, the E2-Score's scale-out: the run without replicas
	// reads on its primary.
	p = mustBuildLag(t, "name: t\nsut: {replicas: [0, 1]}\nworkload: {name: tpcb, reads: replicas, options: {scripts: {select-only: 1}}}\n")
	if len(p.Runs) != 2 || p.ReadsReplicas(&p.Runs[0]) || !p.ReadsReplicas(&p.Runs[1]) {
		t.Errorf("reads on replicas over [0, 1]: %v, %v", p.ReadsReplicas(&p.Runs[0]), p.ReadsReplicas(&p.Runs[1]))
	}
	// Without replicas nothing changes in plan.json.
	b, _ = json.Marshal(mustBuild(t, minimal))
	if strings.Contains(string(b), "replica") {
		t.Errorf("plan.json without replicas names them:\n%s", b)
	}
}
