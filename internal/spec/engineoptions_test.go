package spec

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// engineOptionsSpec gives tpcc's interaction per engine: batched by
// default, statements on MariaDB; the second case sets all_warehouses for
// both and procedures for PostgreSQL only.
const engineOptionsSpec = `name: o
order: blocked
sut: {engine: [postgres, mariadb]}
tenancy: {model: database}
workload:
  name: tpcc
  options:
    interaction: batched
    retries: 3
    mariadb: {interaction: statements}
  cases:
    - name: a
    - name: b
      options:
        all_warehouses: true
        postgres: {interaction: procedures}
`

// optionsText is a run's options as flow YAML ("" for the spec's own).
func optionsText(t *testing.T, s *Spec, r Run) string {
	t.Helper()
	n := &s.Workload.Options
	if r.Options != nil {
		n = r.Options
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+strings.TrimSpace(yamlText(t, m[k])))
	}
	return strings.Join(parts, ",")
}

func yamlText(t *testing.T, v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEngineOptions: each run takes workload.options, its engine's
// section there, the case's options and the case's section of its
// engine, the most specific winning.
func TestEngineOptions(t *testing.T) {
	s, p := mustExpandSpec(t, engineOptionsSpec)
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.Case+"/"+r.Engine+": "+optionsText(t, s, r))
	}
	want := []string{
		"a/postgres: interaction=batched,retries=3",
		"a/mariadb: interaction=statements,retries=3",
		"b/postgres: all_warehouses=true,interaction=procedures,retries=3",
		"b/mariadb: all_warehouses=true,interaction=statements,retries=3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The shared options hold no section: the workload reads them as its own.
	if hasKey(&s.Workload.Options, "mariadb") || hasKey(&s.Workload.Cases[1].Options, "postgres") {
		t.Error("a section was left among the shared options")
	}
	// Where a problem of an engine's view is written.
	w := &s.Workload
	for path, want := range map[string]string{
		"workload.options.interaction":          "workload.options.mariadb.interaction",
		"workload.options.retries":              "workload.options.retries",
		"workload.cases[1].options.interaction": "workload.cases[1].options.interaction",
		"workload.cases[1].options with workload.options: workload.options.interaction": "workload.cases[1].options with workload.options: workload.options.mariadb.interaction",
	} {
		if got := w.EngineOptionPath("mariadb", path); got != want {
			t.Errorf("EngineOptionPath(mariadb, %s) = %s, want %s", path, got, want)
		}
	}
	if got := w.EngineOptionPath("postgres", "workload.cases[1].options.interaction"); got != "workload.cases[1].options.postgres.interaction" {
		t.Errorf("postgres case path %s", got)
	}
	// Without sections the runs keep the spec's options, as before.
	_, plain := mustExpandSpec(t, "name: o\nsut: {engine: [postgres, mariadb]}\ntenancy: {model: database}\nworkload: {name: tpcc, options: {retries: 3}}\n")
	for _, r := range plain.Runs {
		if r.Options != nil {
			t.Errorf("run %s has options of its own without sections", r.ID)
		}
	}
}

// TestEngineOptionsMarshal: the resolved spec.yaml writes the sections
// back where they were, and reads back to the same runs.
func TestEngineOptionsMarshal(t *testing.T) {
	s, p := mustExpandSpec(t, engineOptionsSpec)
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	again, problems := Parse(out)
	if len(problems) > 0 {
		t.Fatalf("read back:\n%s\n%s", joinProblems(problems), out)
	}
	q := ExpandValid(again)
	for i := range p.Runs {
		if a, b := optionsText(t, s, p.Runs[i]), optionsText(t, again, q.Runs[i]); a != b {
			t.Errorf("run %d: %s, read back %s\n%s", i+1, a, b, out)
		}
	}
}

// TestEngineOptionsProblems: a section that is not a mapping, at its line.
func TestEngineOptionsProblems(t *testing.T) {
	src := "name: o\nsut: {engine: [postgres, mariadb]}\nworkload:\n  name: tpcc\n  options:\n    mariadb: statements\n"
	_, problems := Parse([]byte(src))
	if len(problems) != 1 || problems[0].Path != "workload.options.mariadb" || problems[0].Line != 6 ||
		!strings.Contains(problems[0].Allowed, "must be a mapping of the workload's options for mariadb's runs") {
		t.Errorf("problems:\n%s", joinProblems(problems))
	}
}
