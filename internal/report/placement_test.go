package report

import (
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// Runs that differ only in their storage or CPU placement are points of
// their own, named by what differs, not repetitions of one point.
func TestPlacementPoints(t *testing.T) {
	var runs []*run
	for _, st := range []string{"disk", "tmpfs"} {
		for _, pol := range []string{"pack", "spread"} {
			runs = append(runs, &run{row: results.ResultRow{Model: "instance", Tenants: 2, Scale: 1, Clients: 1,
				Storage: st, Volume: "shared", CPUPolicy: pol, Settings: map[string]string{}}})
		}
	}
	points := groupPoints(runs, varyOf(runs))
	if len(points) != 4 {
		t.Fatalf("%d points, want 4", len(points))
	}
	if got, want := points[3].series, "instance, tmpfs, cpu spread"; got != want {
		t.Errorf("series %q, want %q", got, want)
	}
}
