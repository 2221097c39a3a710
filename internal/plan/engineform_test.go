package plan

import (
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
)

// pgOnly is tpcb with a PostgreSQL form only: every built-in workload
// has a MariaDB form, so a test-only one shows the refusal.
type pgOnly struct{ workload.Workload }

func (pgOnly) RunsOn(e engine.Engine) bool {
	_, ok := e.(postgres.Engine)
	return ok
}

// A workload without a form for sut.engine is refused at workload.name,
// naming the workloads that run on the engine.
func TestWorkloadWithoutEngineForm(t *testing.T) {
	w := workload.Registry{}
	f := tpcb.Factory()
	w.Add(f)
	w.Add(workload.Factory{Name: "pgonly", Parse: f.Parse, New: func(sf float64, opts any) (workload.Workload, error) {
		inner, err := f.New(sf, opts)
		return pgOnly{inner}, err
	}})
	src := "name: t\nworkload: {name: pgonly}\nsut: {engine: mariadb}\ntenancy: {model: database}\n"
	s, pl, problems := spec.ParsePlaced([]byte(src))
	_, problems = resolve(s, pl, problems, Builtin(w), big)
	if len(problems) != 1 {
		t.Fatalf("%d problems, want 1:\n%v", len(problems), problems)
	}
	p := problems[0]
	if want := "has no form for mariadb (sut.engine); workloads that run on mariadb: tpcb"; p.Path != "workload.name" ||
		p.Value != "pgonly" || !strings.Contains(p.Allowed, want) || p.Line != 2 {
		t.Errorf("got %q (line %d)", p.Error(), p.Line)
	}
	// With both engines, the one it lacks is named.
	src = "name: t\nworkload: {name: pgonly}\nsut: {engine: [postgres, mariadb]}\ntenancy: {model: database}\n"
	s, pl, problems = spec.ParsePlaced([]byte(src))
	_, problems = resolve(s, pl, problems, Builtin(w), big)
	if len(problems) != 1 || problems[0].Path != "workload.name" || !strings.Contains(problems[0].Allowed, "has no form for mariadb (sut.engine)") {
		t.Errorf("pgonly on both engines: %v", problems)
	}
	// On PostgreSQL it runs.
	s, pl, problems = spec.ParsePlaced([]byte("name: t\nworkload: {name: pgonly}\n"))
	if _, problems = resolve(s, pl, problems, Builtin(w), big); len(problems) != 0 {
		t.Errorf("pgonly on postgres: %v", problems)
	}
}
