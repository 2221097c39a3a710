package spec

import (
	"strings"
	"testing"
	"time"
)

const picksSpec = `name: picks
sut:
  resources: {cpus: 2}
tenancy: {model: database, tenants: 2}
workload:
  name: sales
  reads: replicas
  options: {preset: read-write}
  cases:
    - {name: oltp, scores: [P, T]}
    - {name: lag, workload: lag, replicas: 1, options: {mix: {insert: 100}}, scores: C}
    - {name: scale-out, replicas: [0, 1, 2], options: {preset: read-only}, scores: [E2]}
    - name: failover
      replicas: 1
      interference: [{kind: restart, at: 10s, target: shared}]
      scores: [F, R]
    - {name: autoscale, autoscale: {min_cpus: 0.5, max_cpus: 2}, scores: [E1]}
interference:
  - {kind: cpu, at: 1s, target: shared, params: {load: [10, 20]}}
`

// TestCasePicks: a case picks its workload (with its own options, not
// merged with the spec's), its replicas (a list a dimension of its runs
// only), its interference (in place of the spec's, whose dimension then
// does not multiply its runs), its autoscale policy and its scores;
// cases that pick none keep the spec's.
func TestCasePicks(t *testing.T) {
	s := mustParse(t, picksSpec)
	p, problems := Expand(s)
	if len(problems) > 0 {
		t.Fatal(joinProblems(problems))
	}
	byCase := map[string][]Run{}
	for _, r := range p.Runs {
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	// The spec's interference dimension (2 values) multiplies every
	// case's runs but failover's, which has its own list; scale-out's
	// replicas multiply its own only.
	for c, n := range map[string]int{"oltp": 2, "lag": 2, "scale-out": 6, "failover": 1, "autoscale": 2} {
		if len(byCase[c]) != n {
			t.Errorf("case %s: %d runs, want %d", c, len(byCase[c]), n)
		}
	}
	lag := byCase["lag"][0]
	if w := s.WorkloadOf(&lag); w.Name != "lag" || !strings.Contains(nodeText(t, &w.Options), "insert: 100") ||
		strings.Contains(nodeText(t, &w.Options), "preset") {
		t.Errorf("lag's workload %s with options %q", w.Name, nodeText(t, &w.Options))
	}
	if lag.Replicas != 1 || s.ScoresOf(&lag)[0] != "C" {
		t.Errorf("lag run %+v, scores %v", lag, s.ScoresOf(&lag))
	}
	oltp := byCase["oltp"][0]
	if w := s.WorkloadOf(&oltp); w.Name != "sales" || oltp.Replicas != 0 || s.AutoscaleOf(&oltp) != nil {
		t.Errorf("oltp: workload %s, %d replicas", w.Name, oltp.Replicas)
	}
	var counts []int
	for _, r := range byCase["scale-out"] {
		counts = append(counts, r.Replicas)
		if w := s.WorkloadOf(&r); !strings.Contains(nodeText(t, &w.Options), "read-only") {
			t.Errorf("scale-out's options %q", nodeText(t, &w.Options))
		}
	}
	if len(counts) != 6 || counts[0] != 0 || counts[5] != 2 {
		t.Errorf("scale-out's replicas %v", counts)
	}
	fo := byCase["failover"][0]
	if in := nodeText(t, s.InterferenceOf(&fo)); !strings.Contains(in, "restart") || strings.Contains(in, "cpu") {
		t.Errorf("failover's interference %q", in)
	}
	if fo.Interference != nil {
		t.Errorf("failover has the spec's interference values: %v", fo.Interference)
	}
	if in := nodeText(t, s.InterferenceOf(&oltp)); !strings.Contains(in, "cpu") {
		t.Errorf("oltp's interference %q", in)
	}
	if got := s.InterferencePath(&fo, "interference[0].at"); got != "workload.cases[3].interference[0].at" {
		t.Errorf("failover's interference path %q", got)
	}
	as := byCase["autoscale"][0]
	if a := s.AutoscaleOf(&as); a == nil || a.MinCPUs != 0.5 || a.TargetUtilization != AutoscaleDefaults.TargetUtilization {
		t.Errorf("autoscale's policy %+v", a)
	}
	if s.MostReplicas() != 2 || !s.Autoscaled() {
		t.Errorf("most replicas %d, autoscaled %v", s.MostReplicas(), s.Autoscaled())
	}
	var variants []string
	for _, v := range s.InterferenceVariants() {
		variants = append(variants, v.At)
	}
	if len(variants) != 3 || variants[0] != "workload.cases[3].interference" {
		t.Errorf("interference variants at %q", variants)
	}
}

// TestCasePicksProblems: each bad pick is named at its path and line
// with its value and what is allowed.
func TestCasePicksProblems(t *testing.T) {
	for _, c := range []struct {
		more, reads, cases, want string
	}{
		{"", "", "[{name: a, scores: [P, e1]}]", "workload.cases[0].scores[1] (line 4): e1: must be one of P, T, E1, E2, R, F, C; did you mean E1?"},
		{"", "", "[{name: a, scores: [P, P]}]", "workload.cases[0].scores[1] (line 4): P: already listed"},
		{"", "", "[{name: a, replicas: 9}]", "workload.cases[0].replicas (line 4): 9: must be 0..8"},
		{"", "", "[{name: a, replicas: [1, 1]}]", "workload.cases[0].replicas[1] (line 4): 1: already given"},
		{"sut: {replicas: [0, 1]}\n", "", "[{name: a, replicas: 1}]", "workload.cases[0].replicas (line 5): [1]: sut.replicas is a list"},
		{"", "", "[{name: a, interference: [{kind: cpu, at: 1s, target: shared, params: {load: [1, 2]}}]}]",
			"workload.cases[0].interference[0].params.load (line 4): a case's interference takes one value of each param"},
		{"", "", "[{name: a, autoscale: {min_cpus: 2, max_cpus: 1}}]", "workload.cases[0].autoscale.max_cpus (line 4): 1: must be at least min_cpus (2)"},
		{"tenancy: {tenants: 2, classes: [{name: x, count: 1}, {name: y, count: 1}]}\n", "", "[{name: a, workload: lag}]",
			"workload.cases[0].workload (line 5): lag: tenancy.classes give the tenants their workloads"},
		{"sut: {replicas: 0}\n", "  reads: replicas\n", "[{name: a}]", "0: must be at least 1 with workload.reads: replicas"},
	} {
		src := "name: t\n" + c.more + "workload:\n  name: sales\n" + c.reads + "  cases: " + c.cases + "\n"
		_, problems := Parse([]byte(src))
		if text := joinProblems(problems); !strings.Contains(text, c.want) {
			t.Errorf("%s%s: no %q in:\n%s", c.more, c.cases, c.want, text)
		}
	}
}

const casePatternSpec = `name: patterns
tenancy: {model: database, tenants: 3}
workload:
  name: sales
  clients: 4
  warmup: 6s
  duration: 30s
  cases:
    - {name: oltp, pattern: {name: high-contention, tau: 8, slot: 12s}}
    - {name: elastic, pattern: {name: single-peak, tau: 4, slot: 12s}}
    - {name: plain}
`

// TestCasePattern: a case's pattern gives its runs' load (Zhang et al.
// 2025, sections II-C and II-D), slot by slot and tenant by tenant, and
// their connections; a case without one keeps the spec's constant load.
func TestCasePattern(t *testing.T) {
	s := mustParse(t, casePatternSpec)
	p, problems := Expand(s)
	if len(problems) > 0 {
		t.Fatal(joinProblems(problems))
	}
	byCase := map[string]Run{}
	for _, r := range p.Runs {
		byCase[r.Case] = r
	}
	// At each slot's middle, tenant by tenant: high-contention with tau 8
	// gives the shares 10, 30 and 60 % of tau, the largest 20 % more
	// (0.8, 2.4 and 6.4 clients, rounded); single-peak gives (0, tau, 0).
	for c, want := range map[string][][]float64{
		"oltp":    {{1, 1, 1}, {2, 2, 2}, {6, 6, 6}},
		"elastic": {{0, 4, 0}, {0, 4, 0}, {0, 4, 0}},
		"plain":   {{4, 4, 4}, {4, 4, 4}, {4, 4, 4}},
	} {
		r := byCase[c]
		lp := s.LoadPlan(&r)
		for i, tn := range lp.Tenants {
			for j, v := range want[i] {
				if got := tn.Profile.At(time.Duration(12*j+6) * time.Second); got != v {
					t.Errorf("case %s, tenant %d, slot %d: %g clients, want %g", c, i, j, got, v)
				}
			}
		}
		if (c == "plain") == (r.Pattern != "") || (c == "plain") == lp.Tenants[0].Varies {
			t.Errorf("case %s: pattern %q, varies %v", c, r.Pattern, lp.Tenants[0].Varies)
		}
	}
	if r := byCase["oltp"]; r.Pattern != "high-contention" || r.Clients != 6 {
		t.Errorf("oltp: pattern %q, %d connections (want the pattern's peak, 6)", r.Pattern, r.Clients)
	}
	if r := byCase["plain"]; r.Clients != 4 {
		t.Errorf("plain: %d connections, want workload.clients' 4", r.Clients)
	}
}

// TestCasePatternProblems: a case's pattern is checked as workload.pattern
// is, at the case's path, and takes one name.
func TestCasePatternProblems(t *testing.T) {
	for _, c := range []struct{ cases, want string }{
		{"[{name: a, pattern: {name: [single-peak, zero-valley], tau: 4, slot: 12s}}]",
			"workload.cases[0].pattern.name (line 7): [single-peak zero-valley]: a case's pattern takes one name"},
		{"[{name: a, clients: 2, pattern: {name: single-peak, tau: 4, slot: 12s}}]",
			"workload.cases[0].pattern.tau (line 7): the pattern sets the case's clients"},
		{"[{name: a, pattern: {name: single-peak, slot: 12s}}]", "workload.cases[0].pattern.tau: required"},
		{"[{name: a, pattern: {name: single-peek, tau: 4, slot: 12s}}]", "workload.cases[0].pattern.name (line 7): single-peek: must be one of"},
		{"[{name: a, pattern: {name: single-peak, tau: 4, slot: 7s}}]",
			"workload.cases[0].pattern (line 7): the schedule lasts 21s (single-peak for 3 tenants: 3 slots of 7s) but the workload phase lasts 36s"},
	} {
		src := "name: t\ntenancy: {tenants: 3}\nworkload:\n  name: sales\n  warmup: 6s\n  duration: 30s\n  cases: " + c.cases + "\n"
		_, problems := Parse([]byte(src))
		if text := joinProblems(problems); !strings.Contains(text, c.want) {
			t.Errorf("%s: no %q in:\n%s", c.cases, c.want, text)
		}
	}
}
