package spec

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestAssign: counts in blocks as written; shares by the largest
// remainder, so that every tenant has a class and each class gets its
// share rounded the fair way.
func TestAssign(t *testing.T) {
	third := []Class{{Name: "s", Share: 1.0 / 3}, {Name: "m", Share: 1.0 / 3}, {Name: "l", Share: 1.0 / 3}}
	for _, c := range []struct {
		name    string
		classes []Class
		n       int
		want    []int
	}{
		{"thirds of 10", third, 10, []int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}},
		{"thirds of 3", third, 3, []int{0, 1, 2}},
		{"thirds of 1", third, 1, []int{0}},
		{"0.7 / 0.3 of 4", []Class{{Share: 0.7}, {Share: 0.3}}, 4, []int{0, 0, 0, 1}},
		{"0.2 / 0.8 of 4", []Class{{Share: 0.2}, {Share: 0.8}}, 4, []int{0, 1, 1, 1}},
		{"counts", []Class{{Count: 1}, {Count: 3}}, 4, []int{0, 1, 1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tn := Tenancy{Classes: c.classes}
			if got := tn.Assign(c.n); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Assign(%d) = %v, want %v", c.n, got, c.want)
			}
		})
	}
	if got := (&Tenancy{}).Assign(5); got != nil {
		t.Errorf("no classes: %v", got)
	}
}

const classSpec = `name: t
tenancy:
  model: database
  tenants: [4, 6]
  classes:
    - {name: small, share: 0.5, scale: 1, rate: 20}
    - name: large
      share: 0.5
      scale: 4
      clients: 3
      options: {x: 1}
      sla: {p95: 20ms}
workload:
  name: tpcb
  scale: 2
  load: {shape: open, rate: 5}
  sla: {min_rate_ratio: 0.99, p95: 50ms}
`

// TestMembers: each tenant takes its class's scale, rate, clients,
// options and SLA keys, the run's where the class sets none; the load
// plan gives each tenant its class's rate and connections.
func TestMembers(t *testing.T) {
	s, problems := Parse([]byte(classSpec))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	p := ExpandValid(s)
	if len(p.Runs) != 2 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	r := &p.Runs[1] // 6 tenants: 3 small, 3 large
	ms := s.Members(r)
	if len(ms) != 6 {
		t.Fatalf("%d members", len(ms))
	}
	small, large := ms[0], ms[5]
	if small.Name != "small" || small.Scale != 1 || small.Rate != 20 || small.Conns != r.Clients {
		t.Errorf("small = %+v (run conns %d)", small, r.Clients)
	}
	// An open load's pool is twice the clients.
	if large.Name != "large" || large.Scale != 4 || large.Rate != 5 || large.Conns != 6 {
		t.Errorf("large = %+v", large)
	}
	if large.Options == nil || !strings.Contains(nodeText(t, large.Options), "x: 1") {
		t.Errorf("large options %v", large.Options)
	}
	want := SLA{MinRateRatio: 0.99, P95: Duration(50 * time.Millisecond)}
	if *small.SLA != want {
		t.Errorf("small SLA %+v, want workload.sla %+v", *small.SLA, want)
	}
	want.P95 = Duration(20 * time.Millisecond)
	if *large.SLA != want {
		t.Errorf("large SLA %+v, want its p95 over workload.sla: %+v", *large.SLA, want)
	}
	lp := s.LoadPlan(r)
	for i, tn := range lp.Tenants {
		rate, conns := 20.0, r.Clients
		if i >= 3 {
			rate, conns = 5, 6
		}
		if got := tn.Profile.Max(); got != rate || tn.Conns != conns {
			t.Errorf("tenant %d: rate %v, conns %d; want %v, %d", i, got, tn.Conns, rate, conns)
		}
	}
}

// TestClassProblems: every mistake of tenancy.classes at its path with
// what is allowed, and unknown keys with "did you mean".
func TestClassProblems(t *testing.T) {
	head := "name: t\nworkload: {name: tpcb}\ntenancy:\n  tenants: 4\n  classes:\n"
	for _, c := range []struct {
		name, classes, path, allows string
	}{
		{"typo", "    - {name: a, share: 1, scal: 2}\n", "tenancy.classes[0].scal", "did you mean scale?"},
		{"shares", "    - {name: a, share: 0.5}\n    - {name: b, share: 0.2}\n", "tenancy.classes", "must sum to 1"},
		{"counts", "    - {name: a, count: 1}\n    - {name: b, count: 2}\n", "tenancy.tenants", "sum to 3 tenants"},
		{"mixed", "    - {name: a, count: 2}\n    - {name: b, share: 0.5}\n", "tenancy.classes", "cannot be mixed"},
		{"neither", "    - {name: a}\n", "tenancy.classes[0]", "needs share"},
		{"both", "    - {name: a, share: 1, count: 4}\n", "tenancy.classes[0]", "not both"},
		{"twice", "    - {name: a, share: 0.5}\n    - {name: a, share: 0.5}\n", "tenancy.classes[1].name", "already the name"},
		{"rate closed", "    - {name: a, share: 1, rate: 5}\n", "tenancy.classes[0].rate", "needs an open load"},
		{"scale", "    - {name: a, share: 1, scale: 0}\n", "tenancy.classes[0].scale", "greater than 0"},
		{"sla closed", "    - {name: a, share: 1, sla: {min_rate_ratio: 0.9}}\n", "tenancy.classes[0].sla.min_rate_ratio", "open load"},
		{"sla typo", "    - {name: a, share: 1, sla: {p59: 1ms}}\n", "tenancy.classes[0].sla.p59", "did you mean p95?"},
		{"sla ratio", "    - {name: a, share: 1, sla: {p95: 1ms, min_rate_ratio: 2}}\n", "tenancy.classes[0].sla.min_rate_ratio", "at most 1"},
		{"empty", "    []\n", "tenancy.classes", "must not be an empty list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.classes
			if c.name == "empty" {
				src = head[:len(head)-1] + " []\n"
			}
			_, problems := Parse([]byte(src))
			found := false
			for _, p := range problems {
				found = found || (p.Path == c.path && strings.Contains(p.Allowed, c.allows) && p.Line > 0)
			}
			if !found {
				t.Errorf("want a problem at %s (with its line) allowing %q, got:\n%s", c.path, c.allows, joinProblems(problems))
			}
		})
	}
}

// TestClassesRoundTrip: the resolved spec written back reads the same
// classes and SLA.
func TestClassesRoundTrip(t *testing.T) {
	s, problems := Parse([]byte(classSpec))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	again, problems := Parse(b)
	if len(problems) > 0 {
		t.Fatalf("%s\n%v", b, problems)
	}
	if len(again.Tenancy.Classes) != 2 || *again.Tenancy.Classes[1].SLA != *s.Tenancy.Classes[1].SLA ||
		*again.Workload.SLA != *s.Workload.SLA || *again.Tenancy.Classes[1].Clients != 3 {
		t.Errorf("written back:\n%s", b)
	}
}

func nodeText(t *testing.T, n *yaml.Node) string {
	t.Helper()
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
