package run

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestAudit: after a real TPC-C run the check phase audits every tenant's
// drawn input against the specification's rates, writes them to
// runs/<id>/audit.csv and passes; a rate out of bounds fails the phase,
// naming the tenant and the rate.
func TestAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads TPC-C warehouses")
	}
	ex := newExecution(t, `name: t
tenancy: {model: schema, tenants: 2}
workload: {name: tpcc, scale: 2, clients: 4, duration: 4s}
`)
	out, err := results.Create(filepath.Join(pgtest.TempDir(t), "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ex.opts.Out = out
	ex.steps(t, "provision", "setup", "ingest", "post-ingest", "workload", "check")

	f, err := os.Open(filepath.Join(out.Path, "runs", ex.run.ID, "audit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 1 || strings.Join(rows[0], ",") != "tenant,rate,clause,count,of,observed,expected,low,high,status" {
		t.Fatalf("audit.csv header: %v", rows)
	}
	seen := map[string]int64{}
	for _, r := range rows[1:] {
		if r[9] != "ok" {
			t.Errorf("out of bounds: %v", r)
		}
		n, _ := strconv.ParseInt(r[3], 10, 64)
		seen[r[0]+" "+r[1]] += n
	}
	for _, tn := range []string{"t01", "t02"} {
		for _, rate := range []string{"mix new_order", "new_order rollbacks", "remote order lines", "remote payments",
			"payments by last name", "order lines per new_order"} {
			if _, ok := seen[tn+" "+rate]; !ok {
				t.Errorf("%s: no rate %q in %v", tn, rate, seen)
			}
		}
		if seen[tn+" remote payments"] == 0 || seen[tn+" mix payment"] == 0 {
			t.Errorf("%s: no remote payments over two warehouses: %v", tn, seen)
		}
	}

	// The same run with one tenant's rates skewed fails loudly.
	ex.workloads[1] = skewed{ex.workloads[1]}
	err = ex.check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "tenant t02: remote payments") || !strings.Contains(err.Error(), "out of bounds") {
		t.Fatalf("skewed audit: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(out.Path, "runs", ex.run.ID, "audit.csv"))
	if !strings.Contains(string(b), "t02,remote payments,2.5.1.2,0,") || !strings.Contains(string(b), "out of bounds") {
		t.Errorf("audit.csv of the skewed run:\n%s", b)
	}
}

// skewed is a workload whose clients drew no remote payment.
type skewed struct{ workload.Workload }

func (s skewed) Audit() []workload.Rate {
	rates := s.Workload.(workload.Auditor).Audit()
	for i, r := range rates {
		if r.Name == "remote payments" {
			r.Count, r.Observed, r.OK = 0, 0, r.Low <= 0
			rates[i] = r
		}
	}
	return rates
}
