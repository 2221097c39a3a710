package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestElasticTable: a run with limits.csv gets a row of the elasticity
// table with its changes and quota range; a report without has none.
func TestElasticTable(t *testing.T) {
	dir := synth{}.write(t)
	d := &results.Dir{Path: dir}
	u := 1.0
	err := d.WriteLimits("001", []results.LimitChange{
		{AtS: 0, Instance: "shared", Reason: "start", OldCPUs: 0.5, NewCPUs: 0.5},
		{AtS: 5, Instance: "shared", Reason: "autoscale", OldCPUs: 0.5, NewCPUs: 0.71, Utilization: &u},
		{AtS: 10, Instance: "shared", Reason: "autoscale", OldCPUs: 0.71, NewCPUs: 0.25},
		{AtS: 12, Instance: "shared", Reason: "autoscale", OldCPUs: 0.25, NewCPUs: 0.1, Error: "refused"},
		{AtS: 20, Instance: "shared", Reason: "restore", OldCPUs: 0.25, NewCPUs: 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(dir, Subdir, "summary.md"))
	i := strings.Index(md, "## Elasticity")
	if i < 0 {
		t.Fatalf("summary.md has no elasticity table:\n%s", md)
	}
	// Two changes made (the failed one and the restore left out), from
	// 0.25 to 0.71 CPUs.
	if !strings.Contains(md[i:], "| 001 | schema | 1 | 2 | 0.250 | 0.710 |") {
		t.Errorf("elasticity table:\n%s", md[i:])
	}
	plain := synth{}.write(t)
	if err := Write(plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, filepath.Join(plain, Subdir, "summary.md")), "## Elasticity") {
		t.Error("a report without limits.csv has an elasticity table")
	}
}
