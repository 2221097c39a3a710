package run

import (
	"context"
	"fmt"
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
	if _, ok := e.workloads[0].(workload.Checker); !ok {
		return nil
	}
	return e.perTenant(ctx, "check", func(ctx context.Context, i int) error {
		return CheckTenant(ctx, e.workloads[i], e.connect(i))
	})
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
