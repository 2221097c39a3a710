package plan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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

// TestInterferenceParamDimension: a list-valued param is a matrix
// dimension after the settings, before the repetition: each run has one
// value, the table a column, plan.json the keys and values; each value
// is checked as a single value, a bad one named by its index and line;
// a fault on the driver is refused.
func TestInterferenceParamDimension(t *testing.T) {
	p := mustBuild(t, `name: t
sut: {settings: {work_mem: [4MB, 8MB]}}
workload: {name: tpcb, duration: 30s}
repeat: 2
order: blocked
interference:
  - {kind: restart, at: 20s, target: shared, params: {fraction: [0.9, 0.5]}}
  - {kind: cpu, at: 1s, duration: 5s, target: driver, params: {load: [0, 30, 40]}}
`)
	if want := []string{"interference[0].fraction", "interference[1].load"}; fmt.Sprint(p.InterferenceKeys) != fmt.Sprint(want) {
		t.Errorf("keys %v, want %v", p.InterferenceKeys, want)
	}
	if len(p.Runs) != 2*2*3*2 {
		t.Fatalf("%d runs, want 24", len(p.Runs))
	}
	var got []string
	for _, r := range p.Runs[:8] {
		got = append(got, fmt.Sprintf("%s/%s/%s/%d/p%d", r.Settings["work_mem"], r.Interference["interference[0].fraction"],
			r.Interference["interference[1].load"], r.Repetition, r.Point))
	}
	want := "[4MB/0.9/0/1/p1 4MB/0.9/0/2/p1 4MB/0.9/30/1/p2 4MB/0.9/30/2/p2 4MB/0.9/40/1/p3 4MB/0.9/40/2/p3 4MB/0.5/0/1/p4 4MB/0.5/0/2/p4]"
	if fmt.Sprint(got) != want {
		t.Errorf("blocked order:\n%v\nwant\n%s", got, want)
	}
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "interference[0].fraction  interference[1].load  rep") ||
		!strings.Contains(b.String(), "cpu driver at 1 for 5s (interference[1].load: by run") {
		t.Errorf("the table:\n%s", b.String())
	}
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back.InterferenceKeys) != fmt.Sprint(p.InterferenceKeys) || back.Runs[2].Interference["interference[1].load"] != "30" {
		t.Errorf("plan.json: keys %v, run 3 %v", back.InterferenceKeys, back.Runs[2].Interference)
	}
	// The run's own list: its value, checked and parsed as one.
	src := p.Spec.InterferenceOf(&p.Runs[2].Run)
	var out bytes.Buffer
	if err := yaml.NewEncoder(&out).Encode(src); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "load: 30") || !strings.Contains(out.String(), "fraction: 0.9") {
		t.Errorf("run 3's interference:\n%s", out.String())
	}

	_, problems := buildSrc(t, minimal+"interference: [{kind: cpu, at: 1s, duration: 1s, params: {load: [30, 140, -1]}}]\n", big)
	var text []string
	for _, pr := range problems {
		text = append(text, fmt.Sprintf("%s (line %d) %s", pr.Path, pr.Line, pr.Value))
	}
	if fmt.Sprint(text) != "[interference[0].params.load[1] (line 3) 140 interference[0].params.load[2] (line 3) -1]" {
		t.Errorf("bad values: %v", text)
	}
	_, problems = buildSrc(t, minimal+"interference: [{kind: crash, at: 1s, target: driver}]\n", big)
	if len(problems) != 1 || problems[0].Path != "interference[0].target" || !strings.Contains(problems[0].Allowed, "cannot target the driver") {
		t.Errorf("a crash of the driver: %v", problems)
	}
}
