package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/run"
)

func checkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check RESULTS_DIR",
		Short: "Check the consistency of the tenants' data on instances kept with --keep",
		Long: "check connects to every tenant of the instances `run --keep` left up and checks its\n" +
			"data against the workload's consistency conditions (TPC-C clause 3.3.2, the TPC-B\n" +
			"balances). Every run already does this in its check phase; this command checks again\n" +
			"later, for instance after you changed something by hand. Exit status 1 on a violation.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			kept, err := run.ReadKept(dir)
			if err != nil {
				return badInput{err}
			}
			_, plan, err := load(filepath.Join(dir, "spec.yaml"))
			if err != nil {
				return err
			}
			// --keep keeps the last run of the plan.
			last := plan.Runs[len(plan.Runs)-1]
			ctx := cmd.Context()
			violated := 0
			for _, k := range kept {
				for _, t := range k.Tenants {
					dsn, err := run.TenantDSN(dir, k, t)
					if err != nil {
						return err
					}
					w, err := registry().Build(&plan.Spec.Workload, last.Scale)
					if err != nil {
						return err
					}
					connect := func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) }
					if err := run.CheckTenant(ctx, w, connect); err != nil {
						violated++
						fmt.Fprintf(cmd.OutOrStdout(), "%s: %v\n", t.Tenant, err)
						continue
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s: consistent\n", t.Tenant)
				}
			}
			if violated > 0 {
				return fmt.Errorf("%d tenant(s) failed the check", violated)
			}
			return nil
		},
	}
}
