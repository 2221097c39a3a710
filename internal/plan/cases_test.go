package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestPerfectExample: examples/perfect.yaml plans Zhang et al.'s seven
// tests as cases of one experiment: each run its case's workload,
// replicas, interference, autoscale policy and scores, in plan.json; the
// lag run and the runs with replicas read them, the others do not.
func TestPerfectExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/perfect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, problems := buildLag(t, string(src), big)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	type want struct {
		workload string
		replicas int
		reads    bool
		scores   string
	}
	wants := []want{{"sales", 0, false, "P T"}, {"sales", 0, false, "E1"}, {"sales", 2, true, "F R"}, {"lag", 1, true, "C"},
		{"sales", 0, false, "E2"}, {"sales", 1, true, "E2"}, {"sales", 2, true, "E2"}}
	if len(p.Runs) != len(wants) {
		t.Fatalf("%d runs, want %d", len(p.Runs), len(wants))
	}
	for i, w := range wants {
		r := &p.Runs[i]
		got := want{r.Workload, r.Replicas, p.ReadsReplicas(r), strings.Join(r.Scores, " ")}
		if got != w {
			t.Errorf("run %s (%s): %+v, want %+v", r.ID, r.Case, got, w)
		}
		if (r.Case == "autoscale") != (p.AutoscaleOf(r) != nil) {
			t.Errorf("run %s (%s): autoscale %+v", r.ID, r.Case, p.AutoscaleOf(r))
		}
		// The elasticity pattern under autoscale (E1), the
		// multi-tenancy pattern for T; the other tests a constant load.
		pat := map[string]string{"oltp": "high-contention", "autoscale": "single-peak"}[r.Case]
		if pt := p.PatternOf(r); r.Pattern != pat || (pt != nil) != (pat != "") || (pt != nil && (pt.Names[0] != pat || pt.SlotS != 12)) {
			t.Errorf("run %s (%s): pattern %q, %+v; want %q", r.ID, r.Case, r.Pattern, pt, pat)
		}
	}
	if !p.Runs[3].ReplicaUser || p.Runs[2].ReplicaUser {
		t.Errorf("only lag reads its replicas by design: %v, %v", p.Runs[3].ReplicaUser, p.Runs[2].ReplicaUser)
	}
	if tw := p.TenantWorkloads(&p.Runs[3]); tw[0].Spec.Name != "lag" || strings.Contains(p.Runs[3].Options, "preset") {
		t.Errorf("the lag run builds %s with options %q", tw[0].Spec.Name, p.Runs[3].Options)
	}
	b, err := json.Marshal(p.Runs[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"autoscale":{"min_cpus":0.25`) || !strings.Contains(string(b), `"scores":["E1"]`) ||
		!strings.Contains(string(b), `"case_pattern":{"names":["single-peak"],"tau":4,"slot_s":12}`) {
		t.Errorf("plan.json's autoscale run: %s", b)
	}
}

// TestCaseWorkloadProblems: a case's own workload is checked at the
// case's paths: its name (with a suggestion), its options as it reads
// them, the replicas it needs, reads on replicas it cannot do, and a
// case's interference at the case's path.
func TestCaseWorkloadProblems(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"workload: {name: sales, cases: [{name: a, workload: lga}]}\n",
			"workload.cases[0].workload (line 2) lga: must be one of lag, sales, tpcb, tpcc, tpch; did you mean lag?"},
		{"sut: {replicas: 1}\nworkload: {name: sales, cases: [{name: a, workload: lag, options: {mix: {insert: 50}}}]}\n",
			"workload.cases[0].options.mix"},
		{"sut: {replicas: 1}\nworkload: {name: sales, cases: [{name: a, workload: lag, options: {preset: read-only}}]}\n",
			"workload.cases[0].options.preset"},
		{"workload: {name: sales, cases: [{name: a, workload: lag, replicas: [0, 1]}]}\n",
			"workload.cases[0].replicas[0] (line 2) 0: must be at least 1: workload lag"},
		{"sut: {replicas: 1}\nworkload: {name: sales, reads: replicas, options: {preset: read-only}, cases: [{name: a, workload: tpcb}]}\n",
			"workload.cases[0].workload (line 3) tpcb: has no read-only transaction to send to the replicas"},
		{"workload: {name: sales, cases: [{name: a, interference: [{kind: restart, at: 1h, target: shared}]}]}\n",
			"workload.cases[0].interference[0]"},
		{"workload: {name: sales, cases: [{name: a, interference: [{kind: restrat, at: 1s, target: shared}]}]}\n",
			"workload.cases[0].interference[0].kind (line 2) restrat"},
		{"workload: {name: sales, cases: [{name: a, workload: tpch}]}\n",
			"workload.cases[0].workload (line 2) tpch: query streams"},
	} {
		_, problems := buildLag(t, "name: t\n"+c.src, big)
		var got []string
		for _, p := range problems {
			got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
		}
		if text := strings.Join(got, "\n"); !strings.Contains(text, c.want) {
			t.Errorf("%q: no %q in:\n%s", c.src, c.want, text)
		}
	}
	// A case that picks its workload and the spec's reads: the spec's
	// workload sales has a read-only transaction; tpcb's select-only.
	if _, problems := buildLag(t, "name: t\nsut: {replicas: 1}\nworkload: {name: sales, reads: replicas, "+
		"cases: [{name: a, workload: tpcb, options: {scripts: {select-only: 1}}}]}\n", big); len(problems) > 0 {
		t.Errorf("tpcb's select-only on replicas: %v", problems)
	}
}

// TestCasePatternConnections: a case's pattern sets its runs'
// connections, which max_connections must hold: the check names the case
// and the pattern's peak, not workload.clients.
func TestCasePatternConnections(t *testing.T) {
	src := "name: t\nsut: {settings: {max_connections: 20}}\ntenancy: {model: database, tenants: 3}\n" +
		"workload:\n  name: tpcb\n  clients: 2\n  warmup: 6s\n  duration: 30s\n  cases:\n    - {name: plain}\n" +
		"    - {name: peak, pattern: {name: single-peak, tau: 9, slot: 12s}}\n"
	_, problems := buildSrc(t, src, big)
	text := fmt.Sprint(problems)
	if !strings.Contains(text, "sut.settings.max_connections") || !strings.Contains(text, "case peak, model database with 3 tenants x 9 clients") {
		t.Errorf("want max_connections refused for case peak's 9 clients a tenant, got:\n%s", text)
	}
	if p := mustBuild(t, strings.Replace(src, "tau: 9", "tau: 3", 1)); p.Runs[1].Clients != 3 || p.Runs[0].Clients != 2 {
		t.Errorf("connections %d and %d, want 2 (workload.clients) and 3 (the pattern's peak)", p.Runs[0].Clients, p.Runs[1].Clients)
	}
}
