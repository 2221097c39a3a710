package run

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// check is the phase after workload: every tenant's data is checked
// against the workload's consistency conditions (TPC-C clause 3.3.2, the
// TPC-B balances), and any violation fails the run loudly. A workload
// without conditions has nothing to check.
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
	return errors.Join(err, e.audit())
}

// audit compares the input every tenant's clients drew during the run
// with the rates of the workload's specification (TPC-C: issue 3 point
// 5), writes each rate, observed against expected and its accepted
// bounds, to runs/<id>/audit.csv, and fails the run naming every rate out
// of bounds. The bounds are the workload's (tpcc: exact binomial
// intervals at a level where a faithful run almost never fails, however
// short).
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
			rows = append(rows, []string{tenant, r.Name, r.Clause, strconv.FormatInt(r.Count, 10),
				strconv.FormatInt(r.Of, 10), f(r.Observed), f(r.Expected), f(r.Low), f(r.High), status})
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
