package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAggregateOf(t *testing.T) {
	tenants := []TenantTotals{
		{Tenant: "t01", TPS: 100, MeanMs: 2, P95Ms: 5, P99Ms: 9, Committed: 1000, Failed: 1, TPM: 6000, NOPM: ptr(2700)},
		{Tenant: "t02", TPS: 300, MeanMs: 4, P95Ms: 7, P99Ms: 8, Committed: 3000, Failed: 2, TPM: 18000, NOPM: ptr(8100)},
	}
	phases := []Phase{
		{Tenant: "t01", Phase: "ingest", Start: 1, End: 4},
		{Tenant: "t02", Phase: "ingest", Start: 1, End: 6},
		{Tenant: "t01", Phase: "post-ingest", Start: 6, End: 7},
		{Tenant: "t02", Phase: "post-ingest", Start: 6, End: 6.5},
	}
	a := AggregateOf(tenants, phases)
	if a.NOPM == nil || *a.NOPM != 10800 {
		t.Errorf("NOPM = %v, want the tenants' sum 10800", a.NOPM)
	}
	a.NOPM = nil
	// Jain over throughput 100 and 300: 400² / (2 (100² + 300²)) = 0.8
	want := Aggregate{TPS: 400, MeanMs: 3, P95Ms: 7, P99Ms: 9, Committed: 4000, Failed: 3, IngestS: 5, PostIngest: 1,
		TPM: 24000, FairnessJain: 0.8}
	if a != want {
		t.Errorf("AggregateOf = %+v\nwant %+v", a, want)
	}
	if got := AggregateOf(nil, nil); got != (Aggregate{}) {
		t.Errorf("empty aggregate = %+v", got)
	}

	// Monitored: E_TpX = tps x d / cpu = 400 x 10 / 20 = 200
	// (Erdelt and Rabl 2026 eq. 1); E_Lat = 1 / sqrt(0.003 s x 20 CPU-s) =
	// 4.0825 (eq. 2).
	a.Monitored(20, 512, 10)
	if *a.CPUS != 20 || *a.MemPeakMB != 512 || math.Abs(*a.ETpX-200) > 1e-9 || math.Abs(*a.ELat-4.0825) > 1e-4 {
		t.Errorf("Monitored: cpu %v mem %v e_tpx %v e_lat %v", *a.CPUS, *a.MemPeakMB, *a.ETpX, *a.ELat)
	}
	a.Monitored(0, 512, 10) // no CPU time measured: no efficiency
	if a.ETpX != nil || a.ELat != nil {
		t.Errorf("efficiencies without CPU time: e_tpx %v e_lat %v, want none", a.ETpX, a.ELat)
	}
}

func TestAppendResult(t *testing.T) {
	dir := t.TempDir()
	d, err := Create(filepath.Join(dir, "out"), []string{"shared_buffers"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"001", "002"} {
		s := &Summary{RunID: id, Model: "schema", Tenants: 2, Scale: 1, Clients: 4, Repetition: 1,
			Settings: map[string]string{"shared_buffers": "128MB"}, Status: StatusOK, Interaction: "statements",
			Provider: Aggregate{TPS: 1234.56789, MeanMs: 1.5}}
		if err := d.AppendResult(s); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(d.Path, "results.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("results.csv has %d lines, want header + 2:\n%s", len(lines), b)
	}
	if !strings.HasPrefix(lines[0], "run_id,model,tenants,scale,clients,repetition,set_shared_buffers,status,throughput_tps,latency_mean_ms,latency_p95_ms,latency_p99_ms") {
		t.Errorf("header = %s", lines[0])
	}
	if !strings.HasPrefix(lines[2], "002,schema,2,1,4,1,128MB,ok,1234.568,1.5,") {
		t.Errorf("row = %s", lines[2])
	}
	rows, err := d.ReadResults()
	if err != nil || len(rows) != 2 || rows[1].Interaction != "statements" {
		t.Errorf("read back: %+v, %v; want interaction statements", rows, err)
	}
	if _, err := Create(d.Path, nil); err == nil {
		t.Error("Create accepted a non-empty results directory")
	}
}

func TestFtoa(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 1.5: "1.5", 2: "2", 1234.56789: "1234.568", -0.0001: "0", math.Pi: "3.142"} {
		if got := ftoa(in); got != want {
			t.Errorf("ftoa(%v) = %q, want %q", in, got, want)
		}
	}
}
