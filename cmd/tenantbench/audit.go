package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/isolation"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/run"
)

func auditCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "audit RESULTS_DIR",
		Short: "Audit the isolation of the tenants kept with --keep",
		Long: "audit connects to the instances `run --keep` left up and tries, from the first tenant's\n" +
			"role, to reach the second tenant: its data by every path (direct, search_path, a view, a\n" +
			"security definer function, large objects, COPY TO PROGRAM, dblink), its metadata (table\n" +
			"names, row counts, activity and planner statistics, planner estimates, role names),\n" +
			"stalling it with locks, holding back its vacuum, taking every connection slot, ending its\n" +
			"sessions. It prints each probe's outcome (denied, visible or\n" +
			"possible) with the evidence and writes runs/<id>/isolation.csv for the kept run, as a run\n" +
			"with tenancy.isolation: audit does. What it finds is not an error: exit status 0 unless\n" +
			"the audit cannot run. It leaves nothing behind on the servers. The guards the run set\n" +
			"(tenancy.guards, from plan.json) are named in the evidence of the probes they answer.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			out := cmd.OutOrStdout()
			kept, err := run.ReadKept(dir)
			if errors.Is(err, fs.ErrNotExist) {
				return badInput{fmt.Errorf("nothing to audit: %w", err)}
			} else if err != nil {
				return err
			}
			p, err := plan.Read(dir)
			if err != nil {
				return badInput{fmt.Errorf("%s: the kept run's plan cannot be read: %w", dir, err)}
			}
			if len(p.Runs) == 0 || len(kept) == 0 {
				return badInput{fmt.Errorf("%s: no run or no instance kept", dir)}
			}
			// --keep keeps the last run of the plan.
			last := &p.Runs[len(p.Runs)-1]
			regs := registries()
			model, ok := regs.Models[last.Model]
			if !ok {
				return badInput{fmt.Errorf("%s: tenancy model %q of run %s is unknown", dir, last.Model, last.ID)}
			}
			eng, err := regs.Engines.Get(kept[0].Engine)
			if err != nil {
				return err
			}
			var names []string
			for _, t := range last.TenantList {
				names = append(names, t.Name)
			}
			ps, err := run.KeptPlacements(dir, kept, eng, names)
			if err != nil {
				return err
			}
			if len(ps) < 2 {
				return badInput{fmt.Errorf("%s: the audit needs two tenants; %d kept", dir, len(ps))}
			}
			found, err := isolation.Audit(cmd.Context(), model, ps[0], ps[1], last.Guards)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "run %s, model %s: %s against %s\n", last.ID, last.Model, ps[0].Tenant, ps[1].Tenant)
			for _, f := range found {
				fmt.Fprintf(out, "  %-45s %-8s %s\n", f.Probe, f.Outcome, f.Evidence)
			}
			fmt.Fprintf(out, "%s\n", run.Tally(found))
			d, err := results.Open(dir)
			if err != nil {
				return err
			}
			return d.WriteFile(filepath.Join("runs", last.ID, isolation.File), run.IsolationCSV(last.Model, found), 0o644)
		},
	}
}
