package run

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
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

	// `tenantbench check` re-checks the file alone and decides as the run
	// did, also at the bounds: a proportion's count may be low x of or
	// high x of, and not one less or one more.
	path := filepath.Join(out.Path, "runs", ex.run.ID, "audit.csv")
	if n, off, err := RecheckAudit(path); err != nil || n != len(rows)-1 || len(off) > 0 {
		t.Fatalf("recheck of the run's audit: %d rows, out of bounds %v, %v", n, off, err)
	}
	for i, r := range rows[1:] {
		of, _ := strconv.ParseFloat(r[4], 64)
		low, _ := strconv.ParseFloat(r[7], 64)
		high, _ := strconv.ParseFloat(r[8], 64)
		if r[1] == "order lines per new_order" { // a mean: its bounds are no count
			continue
		}
		lo, hi := int64(math.Round(low*of)), int64(math.Round(high*of))
		for _, c := range []struct {
			count int64
			in    bool
		}{{lo, true}, {hi, true}, {lo - 1, false}, {hi + 1, false}} {
			if c.count < 0 {
				continue
			}
			edited := append([]string{}, r...)
			edited[3] = strconv.FormatInt(c.count, 10)
			_, off, err := RecheckAudit(writeAudit(t, rows[0], edited))
			if err != nil || (len(off) == 0) != c.in {
				t.Errorf("row %d %v with count %d: out of bounds %v, %v; want within: %v", i+1, r, c.count, off, err, c.in)
			}
		}
	}

	// The same run with one tenant's rates skewed fails loudly.
	ex.workloads[1] = skewed{ex.workloads[1]}
	err = ex.check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "tenant t02: remote payments") || !strings.Contains(err.Error(), "out of bounds") {
		t.Fatalf("skewed audit: %v", err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "t02,remote payments,2.5.1.2,0,") || !strings.Contains(string(b), "out of bounds") {
		t.Errorf("audit.csv of the skewed run:\n%s", b)
	}
	if _, off, err := RecheckAudit(path); err != nil || len(off) != 1 || !strings.HasPrefix(off[0], "tenant t02: remote payments (clause 2.5.1.2)") {
		t.Errorf("recheck of the skewed audit: %v, %v", off, err)
	}
}

// writeAudit writes an audit.csv of one row.
func writeAudit(t *testing.T, header, row []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.WriteAll([][]string{header, row})
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
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
