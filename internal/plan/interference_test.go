package plan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestInterferenceProblems: the interference list is checked at plan time
// against every run of the matrix, each problem on its line: a kind with
// its suggestion, an event after the workload phase, a server the
// instance model's runs lack, and overlapping freezes; a valid list is
// listed by the plan's table.
func TestInterferenceProblems(t *testing.T) {
	src := `name: t
tenancy: {model: [schema, instance], tenants: 2}
workload: {name: tpcb, duration: 30s}
interference:
  - {kind: restart, at: 40s, target: t01}
  - {kind: freeze, at: 5s, duration: 4s, target: shared}
  - {kind: freeze, at: 7s, duration: 4s, target: t02}
`
	_, problems := buildSrc(t, src, big)
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%s (line %d) %s: %s", p.Path, p.Line, p.Value, p.Allowed))
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"interference[0].at (line 5) 40s: is outside the workload phase (0s to 30s",
		"interference[1].target (line 6) shared: is no server or tenant of run 002 (model instance, 2 tenants)",
		"interference[2] (line 7) : freezes server shared from 7s to 11s while interference[1] freezes it from 5s to 9s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	_, problems = buildSrc(t, minimal+"interference: [{kind: restat, at: 1s, target: shared}]\n", big)
	if len(problems) != 1 || problems[0].Path != "interference[0].kind" || !strings.Contains(problems[0].Allowed, "did you mean restart?") {
		t.Errorf("a misspelt kind: %v", problems)
	}
	p := mustBuild(t, `name: t
workload: {name: tpcb, duration: 30s}
interference:
  - {kind: restart, at: 10s, every: 10s, target: t01}
`)
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "restart t01 at 10, 20 (window=10s;fraction=0.95)") {
		t.Errorf("the plan's table does not list the restarts:\n%s", b.String())
	}
}
