package spec

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const casesSpec = `name: c
repeat: 2
order: blocked
sut:
  settings: {shared_buffers: 128MB, work_mem: 4MB}
tenancy: {model: [schema, database], tenants: 2}
workload:
  name: tpcc
  clients: 2
  options: {retries: 5, check: full}
  cases:
    - name: small
      settings: {max_connections: 100, shared_buffers: 256MB}
      scale: 5
      clients: 5
    - name: aw
      scale: 2
      options: {all_warehouses: true, check: basic}
`

// TestCases: each case is a point of its own, crossed with the other
// dimensions, outermost; its values replace the spec's.
func TestCases(t *testing.T) {
	p := mustExpand(t, casesSpec)
	if len(p.Runs) != 2*2*2 {
		t.Fatalf("%d runs, want 2 cases x 2 models x 2 repetitions", len(p.Runs))
	}
	r := p.Runs[0]
	if r.Case != "small" || r.Model != "schema" || r.Scale != 5 || r.Clients != 5 || r.Settings["shared_buffers"] != "256MB" ||
		r.Settings["max_connections"] != "100" || r.Settings["work_mem"] != "4MB" || r.Options != nil {
		t.Errorf("run 1 = %+v", r)
	}
	r = p.Runs[4]
	if r.Case != "aw" || r.Scale != 2 || r.Clients != 2 || r.Settings["shared_buffers"] != "128MB" || r.Options == nil {
		t.Fatalf("run 5 = %+v", r)
	}
	var opts map[string]any
	if err := r.Options.Decode(&opts); err != nil {
		t.Fatal(err)
	}
	if opts["retries"] != 5 || opts["check"] != "basic" || opts["all_warehouses"] != true || len(opts) != 3 {
		t.Errorf("run 5's options = %v, want the spec's with the case's keys replaced", opts)
	}
	if strings.Join(p.SettingKeys, ",") != "max_connections,shared_buffers" {
		t.Errorf("SettingKeys = %v, want the keys the cases set", p.SettingKeys)
	}
	// The resolved spec reads back to the same plan.
	s, problems := Parse([]byte(casesSpec))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	again := mustExpand(t, string(out))
	if len(again.Runs) != len(p.Runs) || again.Runs[4].Case != "aw" || again.Runs[0].Settings["max_connections"] != "100" {
		t.Errorf("the resolved spec plans otherwise:\n%s", out)
	}
}

func TestMergeOptions(t *testing.T) {
	var base, over yaml.Node
	if err := yaml.Unmarshal([]byte("{a: 1, b: 2}"), &base); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte("{b: 3, c: 4}"), &over); err != nil {
		t.Fatal(err)
	}
	m := MergeOptions(&base, &over)
	out, _ := yaml.Marshal(m)
	if string(out) != "{a: 1, b: 3, c: 4}\n" {
		t.Errorf("merged: %s", out)
	}
	if out, _ := yaml.Marshal(&base); string(out) != "{a: 1, b: 2}\n" {
		t.Errorf("base changed: %s", out)
	}
	if out, _ := yaml.Marshal(MergeOptions(&yaml.Node{}, &over)); string(out) != "{b: 3, c: 4}\n" {
		t.Errorf("no base: %s", out)
	}
}

func TestCaseProblems(t *testing.T) {
	for _, c := range []struct {
		name, src, path, allowed string
	}{
		{"no name", "workload: {name: tpcb, cases: [{scale: 2}]}", "workload.cases[0].name", "required"},
		{"same name", "workload: {name: tpcb, cases: [{name: a}, {name: a}]}", "workload.cases[1].name", "already the name of workload.cases[0]"},
		{"list setting", "sut: {settings: {work_mem: [1MB, 2MB]}}\nworkload: {name: tpcb, cases: [{name: a, settings: {work_mem: 3MB}}]}", "workload.cases[0].settings.work_mem", "is a list"},
		{"two values", "workload: {name: tpcb, cases: [{name: a, settings: {work_mem: [3MB, 4MB]}}]}", "workload.cases[0].settings.work_mem", "one value"},
		{"scale list", "workload: {name: tpcb, scale: [1, 2], cases: [{name: a, scale: 3}]}", "workload.cases[0].scale", "is a list"},
		{"clients zero", "workload: {name: tpcb, cases: [{name: a, clients: 0}]}", "workload.cases[0].clients", "must be 1..10000"},
		{"unknown key", "workload: {name: tpcb, cases: [{name: a, warehouses: 3}]}", "workload.cases[0].warehouses", "unknown key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, problems := Parse([]byte("name: t\n" + c.src + "\n"))
			if s != nil && len(problems) == 0 {
				problems = Validate(s)
			}
			for _, p := range problems {
				if p.Path == c.path && strings.Contains(p.Allowed, c.allowed) {
					if p.Line == 0 && c.name != "no name" { // a missing key has no line
						t.Errorf("%s has no line", p.Path)
					}
					return
				}
			}
			t.Errorf("want %s: %s; got\n%s", c.path, c.allowed, joinProblems(problems))
		})
	}
}
