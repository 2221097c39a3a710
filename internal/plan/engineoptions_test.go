package plan

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestEngineOptionRuns: a two-engine tpcc matrix whose interaction has no
// MariaDB form gives MariaDB its own under workload.options.mariadb: the
// plan accepts it and each engine's runs record their own interaction.
func TestEngineOptionRuns(t *testing.T) {
	p := mustBuild(t, "name: t\nsut: {engine: [postgres, mariadb]}\ntenancy: {model: database}\n"+
		"workload:\n  name: tpcc\n  options:\n    interaction: batched\n    mariadb: {interaction: procedures}\n"+
		"  cases:\n    - name: a\n    - {name: b, options: {postgres: {interaction: statements}}}\n")
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.Case+"/"+r.Engine+"="+r.Interaction)
	}
	if want := "a/postgres=batched a/mariadb=procedures b/postgres=statements b/mariadb=procedures"; strings.Join(got, " ") != want {
		t.Errorf("interactions %s, want %s", strings.Join(got, " "), want)
	}
	// plan.json keeps each run's options, so that the run (and check,
	// report) build the workload the plan checked.
	for _, r := range p.Runs {
		if !strings.Contains(r.Options, "interaction: "+r.Interaction) || strings.Contains(r.Options, "mariadb") {
			t.Errorf("run %s (%s): options %q", r.ID, r.Engine, r.Options)
		}
	}
}

// TestEngineOptionProblems: an engine's option is checked as its runs
// take it, at the path where it is written, with its line.
func TestEngineOptionProblems(t *testing.T) {
	both := "name: t\nsut: {engine: [postgres, mariadb]}\ntenancy: {model: database}\n"
	for _, c := range []struct {
		name, src, path, value, allows string
		line                           int
	}{
		{"no form in the engine's section", both + "workload:\n  name: tpcc\n  options:\n    mariadb: {interaction: batched}\n",
			"workload.options.mariadb.interaction", "batched", "has no MariaDB form", 7},
		{"shared option one engine lacks: where its own goes", both + "workload:\n  name: tpcc\n  options:\n    interaction: batched\n",
			"workload.options.interaction", "batched", "or give mariadb's runs their own value under workload.options.mariadb", 7},
		{"unknown option in a section", both + "workload:\n  name: tpcc\n  options:\n    mariadb: {interactoin: statements}\n",
			"workload.options.mariadb.interactoin", "", "interaction", 7},
		{"a case's section", both + "workload:\n  name: tpcc\n  cases:\n    - name: a\n      options:\n        mariadb: {interaction: batched}\n",
			"workload.cases[0].options.mariadb.interaction", "batched", "has no MariaDB form", 9},
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
			if len(problems) != 1 {
				t.Errorf("%d problems, want 1:\n%v", len(problems), problems)
			}
		})
	}
}
