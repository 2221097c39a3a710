package run

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// check is the phase after workload: every tenant's data is checked
// against the workload's consistency conditions (TPC-C clause 3.3.2, the
// TPC-B balances), and any violation fails the run loudly. A workload
// without conditions has nothing to check.
//
// Then, when the spec asks for it (tenancy.isolation: audit), the
// isolation audit tries from one tenant's role to reach another
// (isolation.go).
func (e *execution) check(ctx context.Context) error {
	if len(e.workloads) == 0 {
		return nil
	}
	var err error
	if _, ok := e.workloads[0].(workload.Checker); ok {
		err = e.perTenant(ctx, "check", func(ctx context.Context, i int) error {
			return CheckTenant(ctx, e.workloads[i], e.connect(i))
		})
	}
	return errors.Join(err, e.audit(), e.isolationAudit(ctx))
}

// audit compares the input every tenant's clients drew during the run
// with the rates of the workload's specification (TPC-C: the rates of
// clauses 2.4 to 2.7 and the mix of 5.2.3), writes each rate, observed
// against expected and its accepted bounds, to runs/<id>/audit.csv, and
// fails the run naming every rate out of bounds. The bounds are the
// workload's (tpcc: exact binomial intervals at a level where a faithful
// run almost never fails, however short).
func (e *execution) audit() error {
	if e.result == nil {
		return nil // no workload phase ran
	}
	rows := [][]string{{"tenant", "rate", "clause", "count", "of", "observed", "expected", "low", "high", "status"}}
	var off []string
	for i, w := range e.workloads {
		a, ok := w.(workload.Auditor)
		if !ok {
			continue
		}
		tenant := e.placements[i].Tenant
		for _, r := range a.Audit() {
			status := "ok"
			if !r.OK {
				status = "out of bounds"
				off = append(off, "tenant "+tenant+": "+r.String())
			}
			f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
			// The bounds are written exactly (the shortest decimal that
			// reads back as the same float), so that RecheckAudit decides
			// as the workload did.
			exact := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
			rows = append(rows, []string{tenant, r.Name, r.Clause, strconv.FormatInt(r.Count, 10),
				strconv.FormatInt(r.Of, 10), f(r.Observed), f(r.Expected), exact(r.Low), exact(r.High), status})
		}
	}
	if len(rows) == 1 {
		return nil
	}
	var errs []error
	if e.opts.Out != nil {
		var b bytes.Buffer
		cw := csv.NewWriter(&b)
		_ = cw.WriteAll(rows) // to memory
		errs = append(errs, e.opts.Out.WriteFile("runs/"+e.run.ID+"/audit.csv", b.Bytes(), 0o644))
	}
	if len(off) > 0 {
		errs = append(errs, fmt.Errorf("audit: %d rate(s) out of bounds (runs/%s/audit.csv): %s", len(off), e.run.ID, strings.Join(off, "; ")))
	} else {
		e.logf("audit: %d rates within bounds", len(rows)-1)
	}
	return errors.Join(errs...)
}

// RecheckAudit checks a run's audit.csv again from the file alone, as
// `tenantbench check` does after the run: each row's observed rate, count
// / of (a proportion, or a mean over of), must lie within its accepted
// bounds low..high (the workload's: tpcc's binomial intervals, see
// audit). It returns how many rows it checked and one line per row out of
// bounds, naming the tenant, the rate and the file's line; an error when
// the file is not an audit (a column missing, a cell not a number).
func RecheckAudit(path string) (int, []string, error) {
	t, err := results.ReadTable(path)
	if err != nil {
		return 0, nil, err
	}
	for _, c := range []string{"tenant", "rate", "clause", "count", "of", "low", "high"} {
		if !t.Has(c) {
			return 0, nil, fmt.Errorf("%s: no column %s: not an audit file", path, c)
		}
	}
	var off []string
	for i := range t.Rows {
		line := i + 2 // the header is line 1
		bad := func(col, want string) error {
			return fmt.Errorf("%s line %d column %s: %q is not %s", path, line, col, t.Get(i, col), want)
		}
		count, err := strconv.ParseInt(t.Get(i, "count"), 10, 64)
		if err != nil {
			return 0, nil, bad("count", "a whole number")
		}
		of, err := strconv.ParseInt(t.Get(i, "of"), 10, 64)
		if err != nil {
			return 0, nil, bad("of", "a whole number")
		}
		low, err := strconv.ParseFloat(t.Get(i, "low"), 64)
		if err != nil {
			return 0, nil, bad("low", "a number")
		}
		high, err := strconv.ParseFloat(t.Get(i, "high"), 64)
		if err != nil {
			return 0, nil, bad("high", "a number")
		}
		if count < 0 || of <= 0 {
			return 0, nil, fmt.Errorf("%s line %d: count %d, of %d: count must be 0 or more and of 1 or more", path, line, count, of)
		}
		if obs := float64(count) / float64(of); obs < low || obs > high {
			off = append(off, fmt.Sprintf("tenant %s: %s (clause %s): observed %.4f (%d of %d), accepted %.4f to %.4f (%s line %d)",
				t.Get(i, "tenant"), t.Get(i, "rate"), t.Get(i, "clause"), obs, count, of, low, high, path, line))
		}
	}
	return len(t.Rows), off, nil
}

// CheckTenant runs w's consistency conditions on one tenant's data. It
// returns an error naming every violated condition.
func CheckTenant(ctx context.Context, w workload.Workload, connect workload.Connect) error {
	c, ok := w.(workload.Checker)
	if !ok {
		return nil
	}
	conn, err := connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	violations, err := c.Check(ctx, conn)
	if err != nil {
		return err
	}
	if len(violations) > 0 {
		return fmt.Errorf("%d consistency condition(s) violated: %s", len(violations), strings.Join(violations, "; "))
	}
	return nil
}
