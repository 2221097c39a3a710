package spec

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// valid returns a fresh spec without problems, for tests to spoil.
func valid() *Spec {
	s := defaults()
	s.Name = "t"
	s.Workload.Name = "tpcb"
	return s
}

func TestValidateValid(t *testing.T) {
	if problems := Validate(valid()); len(problems) > 0 {
		t.Errorf("defaults should be valid:\n%s", joinProblems(problems))
	}
}

// TestValidateSpecs covers specs built in Go rather than parsed: paths are
// those of the fields, lists always indexed.
func TestValidateSpecs(t *testing.T) {
	for _, c := range []struct {
		name   string
		spoil  func(*Spec)
		path   string
		allows string
	}{
		{"empty model list", func(s *Spec) { s.Tenancy.Model = nil }, "tenancy.model", "must not be an empty list"},
		{"empty clients", func(s *Spec) { s.Workload.Clients = Ints{} }, "workload.clients", "must not be an empty list"},
		{"empty scale", func(s *Spec) { s.Workload.Scale = nil }, "workload.scale", "must not be an empty list"},
		{"empty tenants", func(s *Spec) { s.Tenancy.Tenants = nil }, "tenancy.tenants", "must not be an empty list"},
		{"empty setting", func(s *Spec) { s.SUT.Settings = map[string]Values{"work_mem": {}} }, "sut.settings.work_mem", "must not be an empty list"},
		{"scale infinite", func(s *Spec) { s.Workload.Scale = Floats{math.Inf(1)} }, "workload.scale[0]", "greater than 0"},
		{"scale duplicate", func(s *Spec) { s.Workload.Scale = Floats{1, 1.0} }, "workload.scale[1]", "already given as workload.scale[0]"},
		{"name long", func(s *Spec) { s.Name = strings.Repeat("a", 101) }, "name", "at most 100 characters"},
		{"name blank", func(s *Spec) { s.Name = " t" }, "name", "directory name"},
		{"repeat negative", func(s *Spec) { s.Repeat = -1 }, "repeat", "at least 1"},
		{"progress zero", func(s *Spec) { s.Progress = 0 }, "progress", "at least 1s"},
		{"setting CR", func(s *Spec) { s.SUT.Settings = map[string]Values{"work_mem": {"1\r"}} }, "sut.settings.work_mem[0]", "one line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := valid()
			c.spoil(s)
			problems := Validate(s)
			if len(problems) != 1 || problems[0].Path != c.path || !strings.Contains(problems[0].Allowed, c.allows) {
				t.Errorf("want one problem at %s allowing %q, got:\n%s", c.path, c.allows, joinProblems(problems))
			}
		})
	}
}

// Validate never changes the spec it checks: checking has no side effects.
func TestValidateDoesNotMutate(t *testing.T) {
	s := valid()
	s.Name = ""
	s.Tenancy.Model = Strings{"schema", "nope", "schema"}
	s.SUT.Settings = map[string]Values{"max_connections": {"3"}, "Port": {""}}
	s.Workload.Clients = Ints{0, 5}
	before, _ := Marshal(s)
	copyOf := *s
	if len(Validate(s)) == 0 {
		t.Fatal("expected problems")
	}
	after, _ := Marshal(s)
	if string(before) != string(after) || !reflect.DeepEqual(copyOf, *s) {
		t.Errorf("Validate changed the spec:\n%s\n---\n%s", before, after)
	}
}

func TestPlanCap(t *testing.T) {
	s := valid()
	s.Repeat = MaxRuns
	if problems := Validate(s); len(problems) > 0 {
		t.Errorf("exactly MaxRuns runs is allowed:\n%s", joinProblems(problems))
	}
	s.Repeat = 1 << 62 // must not overflow into an allowed count
	s.Tenancy.Tenants = Ints{1, 2, 3, 4}
	problems := Validate(s)
	if len(problems) != 1 || problems[0].Path != "(plan)" {
		t.Errorf("want the plan refused:\n%s", joinProblems(problems))
	}
}

// TestIsolation: tenancy.isolation is off unless the spec asks for the
// audit; any other value is refused at its line.
func TestIsolation(t *testing.T) {
	s, problems := Parse([]byte("name: t\ntenancy:\n  isolation: audit\nworkload: {name: tpcb}\n"))
	if len(problems) > 0 || s.Tenancy.Isolation != IsolationAudit {
		t.Fatalf("isolation: audit: %q, %s", s.Tenancy.Isolation, joinProblems(problems))
	}
	if s, problems := Parse([]byte("name: t\nworkload: {name: tpcb}\n")); len(problems) > 0 || s.Tenancy.Isolation == IsolationAudit {
		t.Errorf("no isolation key: %q, %s", s.Tenancy.Isolation, joinProblems(problems))
	}
	_, problems = Parse([]byte("name: t\ntenancy:\n  isolation: maybe\nworkload: {name: tpcb}\n"))
	if len(problems) != 1 || problems[0].Path != "tenancy.isolation" || problems[0].Line != 3 ||
		!strings.Contains(problems[0].Allowed, "off or audit") {
		t.Errorf("isolation: maybe: %s", joinProblems(problems))
	}
}
