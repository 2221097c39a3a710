package run

import (
	"testing"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// TestLabel: a run's log label names its case, and its engine when the
// plan has several, so that Matos and Pedreira's matrix (each case on
// each engine) does not print alike labels for different runs.
func TestLabel(t *testing.T) {
	run := func(id, cs, eng string) *plan.Run {
		return &plan.Run{Run: spec.Run{ID: id, Model: "database", Tenants: 1, Clients: 2, Repetition: 1, Case: cs, Engine: eng}}
	}
	two := &plan.Plan{Dimensions: plan.Dimensions{Engines: []string{"postgres", "mariadb"}}}
	one := &plan.Plan{}
	for _, c := range []struct {
		p    *plan.Plan
		r    *plan.Run
		want string
	}{
		{two, run("002", "medium-aw", "mariadb"), "[002 medium-aw mariadb database 1t 2c r1]"},
		{two, run("003", "", "postgres"), "[003 postgres database 1t 2c r1]"},
		{one, run("004", "small", "postgres"), "[004 small database 1t 2c r1]"},
		{one, run("005", "", "postgres"), "[005 database 1t 2c r1]"},
	} {
		e := &execution{plan: c.p, run: c.r}
		if got := e.label(); got != c.want {
			t.Errorf("label %q, want %q", got, c.want)
		}
	}
}
