package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/workload"
)

func checkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check RESULTS_DIR",
		Short: "Check the runs' rate audits again, and the consistency of the tenants' data kept with --keep",
		Long: "check re-checks every run's TPC-C rate audit (runs/<id>/audit.csv): each rate's count\n" +
			"against the bounds the run accepted. Then, if `run --keep` left instances up, it connects\n" +
			"to every tenant and checks its data against the workload's consistency conditions\n" +
			"(TPC-C clause 3.3.2, the TPC-B balances). Every run already does both in its check\n" +
			"phase; this command checks again later, for instance after you changed something by\n" +
			"hand. Exit status 1 on a rate out of bounds or a violation.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			out := cmd.OutOrStdout()
			audits, err := filepath.Glob(filepath.Join(dir, "runs", "*", "audit.csv"))
			if err != nil {
				return err
			}
			kept, kerr := run.ReadKept(dir)
			switch {
			case kerr != nil && !errors.Is(kerr, fs.ErrNotExist):
				return kerr
			case kerr != nil && len(audits) == 0:
				return badInput{fmt.Errorf("nothing to check in %s: no runs/<id>/audit.csv and %w", dir, kerr)}
			}
			off, err := recheckAudits(out, audits)
			if err != nil {
				return err
			}
			violated := 0
			if kerr == nil {
				if violated, err = checkKept(cmd.Context(), out, dir, kept); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "no instances kept (%s): the tenants' data is not checked\n", run.KeptFile)
			}
			var errs []error
			if off > 0 {
				errs = append(errs, fmt.Errorf("%d rate(s) out of bounds", off))
			}
			if violated > 0 {
				errs = append(errs, fmt.Errorf("%d tenant(s) failed the check", violated))
			}
			return errors.Join(errs...)
		},
	}
}

// recheckAudits re-checks each audit.csv and prints every rate out of
// bounds; it returns how many there are.
func recheckAudits(out io.Writer, paths []string) (int, error) {
	off := 0
	for _, p := range paths {
		id := filepath.Base(filepath.Dir(p))
		n, bad, err := run.RecheckAudit(p)
		if err != nil {
			return 0, err
		}
		for _, b := range bad {
			fmt.Fprintf(out, "run %s audit: %s\n", id, b)
		}
		if len(bad) == 0 {
			fmt.Fprintf(out, "run %s audit: %d rates within bounds\n", id, n)
		}
		off += len(bad)
	}
	return off, nil
}

// checkKept checks the data of every tenant of the kept instances and
// returns how many tenants failed.
func checkKept(ctx context.Context, out io.Writer, dir string, kept []*run.Kept) (int, error) {
	// The plan the run wrote, not the spec: the checks must build the
	// workload the kept run built, with its case's options, whatever the
	// spec's rules are today.
	p, err := plan.Read(dir)
	if err != nil {
		return 0, badInput{fmt.Errorf("%s: the kept run's plan cannot be read: %w", dir, err)}
	}
	if len(p.Runs) == 0 {
		return 0, badInput{fmt.Errorf("%s: %s holds no run", dir, plan.File)}
	}
	// --keep keeps the last run of the plan.
	last := &p.Runs[len(p.Runs)-1]
	violated := 0
	for _, k := range kept {
		for _, t := range k.Tenants {
			eng, err := registries().Engines.Get(k.Engine)
			if err != nil {
				return 0, err
			}
			dsn, err := run.TenantDSN(dir, k, t, eng)
			if err != nil {
				return 0, err
			}
			// Its own class's workload and scale, where tenants differ.
			ws, scale, err := last.TenantSpec(t.Tenant)
			if err != nil {
				return 0, err
			}
			w, err := registry().Build(ws, scale)
			if err != nil {
				return 0, err
			}
			connect := func(ctx context.Context) (workload.Conn, error) { return eng.ClientConn(ctx, dsn, nil) }
			if err := run.CheckTenant(ctx, w, connect); err != nil {
				violated++
				fmt.Fprintf(out, "%s: %v\n", t.Tenant, err)
				continue
			}
			fmt.Fprintf(out, "%s: consistent\n", t.Tenant)
		}
	}
	return violated, nil
}
