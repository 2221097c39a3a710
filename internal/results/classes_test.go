package results

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSLAMeets: worked examples of one tenant against an SLA.
func TestSLAMeets(t *testing.T) {
	open := func(arrivals, dropped int64) *OpenTotals {
		return &OpenTotals{TargetRate: 10, Arrivals: arrivals, Dropped: dropped}
	}
	for _, c := range []struct {
		name string
		sla  SLA
		t    TenantTotals
		want bool
	}{
		{"p95 within", SLA{P95Ms: 20}, TenantTotals{Committed: 10, P95Ms: 19.9}, true},
		{"p95 equal", SLA{P95Ms: 20}, TenantTotals{Committed: 10, P95Ms: 20}, true},
		{"p95 over", SLA{P95Ms: 20}, TenantTotals{Committed: 10, P95Ms: 20.1}, false},
		{"nothing committed", SLA{P95Ms: 20}, TenantTotals{}, false},
		// 99 % of 1000 offered is 990 started.
		{"rate met", SLA{MinRateRatio: 0.99}, TenantTotals{Open: open(1000, 10)}, true},
		{"rate short", SLA{MinRateRatio: 0.99}, TenantTotals{Open: open(1000, 11)}, false},
		// Fewer arrivals than the target (Poisson), all started: met.
		{"rate of the arrivals", SLA{MinRateRatio: 0.99}, TenantTotals{Open: &OpenTotals{TargetRate: 5, Arrivals: 10, AchievedRate: 3.3}}, true},
		{"nothing offered", SLA{MinRateRatio: 0.99}, TenantTotals{Open: open(0, 0)}, true},
		{"rate closed load", SLA{MinRateRatio: 0.99}, TenantTotals{Committed: 5}, false},
		{"both met", SLA{MinRateRatio: 0.9, P95Ms: 5}, TenantTotals{Committed: 1, P95Ms: 4, Open: open(100, 5)}, true},
		{"rate met, p95 not", SLA{MinRateRatio: 0.9, P95Ms: 5}, TenantTotals{Committed: 1, P95Ms: 6, Open: open(100, 5)}, false},
		{"connection lost", SLA{P95Ms: 20}, TenantTotals{Committed: 10, P95Ms: 1, ConnLost: "EOF"}, false},
	} {
		if got := c.sla.Meets(&c.t); got != c.want {
			t.Errorf("%s: Meets = %v, want %v", c.name, got, c.want)
		}
	}
}

// classed is observed() with t01 of class small (SLA p95 6 ms: its p95
// is 5, met) and t02 of class large (SLA p95 6 ms: its p95 is 7, not met).
func classed() *Observations {
	o := observed()
	o.Classes = map[string]string{"t01": "small", "t02": "large"}
	o.SLAs = map[string]SLA{"t01": {P95Ms: 6}, "t02": {P95Ms: 6}}
	return o
}

// TestSummarizeClasses: the summary marks each tenant and counts the
// tenants that met their SLA, run-wide and per class, with each class's
// figures aggregated as the run's; results.csv and classes.csv carry them.
func TestSummarizeClasses(t *testing.T) {
	s := Summarize(classed())
	if s.Tenant[0].Class != "small" || s.Tenant[1].Class != "large" {
		t.Errorf("classes %q %q", s.Tenant[0].Class, s.Tenant[1].Class)
	}
	if m := s.Tenant[0].SLAMet; m == nil || !*m {
		t.Errorf("t01 (p95 5 ms, SLA 6 ms): met %v", m)
	}
	if m := s.Tenant[1].SLAMet; m == nil || *m {
		t.Errorf("t02 (p95 7 ms, SLA 6 ms): met %v", m)
	}
	if a := s.Provider; a.SLAMetTenants == nil || *a.SLAMetTenants != 1 || *a.SLAMet {
		t.Errorf("run: %v tenants met, all %v; want 1, false", a.SLAMetTenants, a.SLAMet)
	}
	if len(s.Classes) != 2 {
		t.Fatalf("classes %+v", s.Classes)
	}
	small, large := s.Classes[0], s.Classes[1]
	if small.Class != "small" || small.Tenants != 1 || small.TPS != 100 || small.P95Ms != 5 || small.SLATenants != 1 || small.SLAMetTenants != 1 {
		t.Errorf("small %+v", small)
	}
	if large.Class != "large" || large.TPS != 300 || large.MeanMs != 4 || large.P99Ms != 8 || large.SLAMetTenants != 0 {
		t.Errorf("large %+v", large)
	}

	d, err := Create(filepath.Join(t.TempDir(), "r"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendClasses(s); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendResult(s); err != nil {
		t.Fatal(err)
	}
	ct, err := ReadTable(filepath.Join(d.Path, "classes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Rows) != 2 || ct.Get(1, "class") != "large" || ct.Get(1, "throughput_tps") != "300" ||
		ct.Get(0, "sla_met_tenants") != "1" || ct.Get(1, "sla_met_tenants") != "0" || ct.Get(1, "sla_tenants") != "1" {
		t.Errorf("classes.csv %v", ct.Rows)
	}
	rt, err := ReadTable(filepath.Join(d.Path, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if rt.Get(0, "sla_met_tenants") != "1" || rt.Get(0, "sla_met") != "false" {
		t.Errorf("results.csv sla_met_tenants %q, sla_met %q", rt.Get(0, "sla_met_tenants"), rt.Get(0, "sla_met"))
	}

	// A failed run meets no SLA, whatever its tenants measured.
	o := classed()
	o.Err = errors.New("server died")
	if f := Summarize(o); *f.Provider.SLAMetTenants != 0 || *f.Tenant[0].SLAMet {
		t.Errorf("failed run: %d met", *f.Provider.SLAMetTenants)
	}
}

// TestNoClassesNoColumns: a run without classes or SLA writes no
// classes.csv and empty SLA cells.
func TestNoClassesNoColumns(t *testing.T) {
	s := Summarize(observed())
	if s.Classes != nil || s.Provider.SLAMetTenants != nil || s.Tenant[0].SLAMet != nil {
		t.Errorf("classes %v, sla %v", s.Classes, s.Provider.SLAMetTenants)
	}
	d, err := Create(filepath.Join(t.TempDir(), "r"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendClasses(s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.Path, "classes.csv")); err == nil {
		t.Error("classes.csv written for a run without classes")
	}
	if err := d.AppendResult(s); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(filepath.Join(d.Path, "results.csv"))
	if err != nil || !tab.Has("sla_met_tenants") || !tab.Has("sla_met") || tab.Get(0, "sla_met_tenants") != "" || tab.Get(0, "sla_met") != "" {
		b, _ := os.ReadFile(filepath.Join(d.Path, "results.csv"))
		t.Errorf("results.csv (%v):\n%s", err, b)
	}
}

// TestAggregateSLA: a point's mean row met the SLA only when every
// repetition did, with the fewest tenants any repetition met it with.
func TestAggregateSLA(t *testing.T) {
	a, b := Summarize(classed()), Summarize(classed())
	o := classed()
	o.SLAs["t02"] = SLA{P95Ms: 100}
	c := Summarize(o)
	agg := AggregateRuns([]*Summary{c, a, b})
	if p := agg.Provider; p.SLAMetTenants == nil || *p.SLAMetTenants != 1 || *p.SLAMet {
		t.Errorf("aggregate %v %v", p.SLAMetTenants, p.SLAMet)
	}
	if p := AggregateRuns([]*Summary{c}).Provider; *p.SLAMetTenants != 2 || !*p.SLAMet {
		t.Errorf("one repetition meeting it: %v %v", *p.SLAMetTenants, *p.SLAMet)
	}
}
