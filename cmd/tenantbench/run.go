package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tenantbench/tenantbench/internal/report"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

func runCmd() *cobra.Command {
	var out string
	var failFast, keep bool
	var procs int
	var monitorOn bool
	cmd := &cobra.Command{
		Use:   "run SPEC",
		Short: "Run the experiment a spec describes and write its results",
		Long: "run validates SPEC, then executes every run of its plan in order: provision, setup,\n" +
			"ingest, post-ingest and workload, with all tenants entering each phase together.\n" +
			"Results are written to --out as each run ends. Exit status: 0 all runs ok, 1 a run\n" +
			"failed, 2 bad input (nothing was started).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if procs, err = driverProcs(procs); err != nil {
				return err
			}
			resolved, p, err := load(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("results", p.Name+"-"+time.Now().Format("20060102-150405"))
			}
			prov, err := registries().Providers.New(p.Provider)
			if err != nil {
				return err
			}
			dir, err := results.Create(out, p.SettingKeys)
			if err != nil {
				return badInput{err}
			}
			if err := dir.WriteFile("spec.yaml", resolved, 0o644); err != nil {
				return err
			}
			if err := p.Write(dir.Path); err != nil {
				return err
			}
			// Ctrl-C and SIGTERM cancel the experiment; the orchestrator
			// then stops every server before tenantbench exits.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			runtime.GOMAXPROCS(procs)
			log := cmd.OutOrStdout()
			fmt.Fprintf(log, "tenantbench %s: %s, %d run(s), results in %s\n", version, p.Name, len(p.Runs), out)
			outcome, err := run.Experiment(ctx, p, run.Options{Out: dir, FailFast: failFast, Keep: keep, Log: log,
				Terminal: isTerminal(log), Provider: prov, Workloads: registry(), Models: tenancy.Builtin(), Version: version, Monitor: monitorOn})
			if err != nil {
				return err
			}
			if len(outcome.Kept) > 0 {
				if err := run.WriteKept(dir, outcome.Kept, log); err != nil {
					return err
				}
			}
			// The report is made from the files alone; a report that cannot be
			// made does not undo the runs, so it is said, not failed.
			if err := report.Write(out); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "tenantbench: the report could not be written: %v\n", err)
			} else {
				fmt.Fprintf(log, "report: %s\n", filepath.Join(out, report.Subdir, "report.html"))
			}
			fmt.Fprintf(log, "results: %s (results.csv, runs/<id>/)\n", out)
			if outcome.Interrupted {
				return runsFailed{failed: outcome.Failed, runs: outcome.Runs}
			}
			if outcome.Failed > 0 {
				return runsFailed{failed: outcome.Failed, runs: outcome.Runs}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "results directory (default results/<name>-<timestamp>)")
	cmd.Flags().BoolVar(&failFast, "fail-fast", false, "stop at the first failed run")
	cmd.Flags().BoolVar(&keep, "keep", false, "leave the last run's instances up; stop them with `tenantbench down`")
	cmd.Flags().BoolVar(&monitorOn, "monitor", true, "sample resources, DBMS statistics and wait events (--monitor=false to measure without)")
	cmd.Flags().IntVar(&procs, "procs", 0, "OS threads for the driver (GOMAXPROCS); default half the CPUs, at least 1")
	return cmd
}

func downCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "down RESULTS_DIR",
		Short: "Stop the instances a run left up with --keep",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			recs, err := run.ReadKept(args[0])
			if err != nil {
				return badInput{err}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
			defer cancel()
			var failed error
			for _, r := range recs {
				f, err := registries().Providers.Get(r.Provider)
				if err == nil && f.StopRecord == nil {
					err = fmt.Errorf("provider %s keeps no servers", r.Provider)
				}
				if err == nil {
					err = f.StopRecord(ctx, r.Record)
				}
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "instance %s: %v\n", r.Name, err)
					failed = err
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "stopped instance %s (port %d)\n", r.Name, r.Port)
			}
			if failed != nil {
				return failed
			}
			for _, f := range []string{run.KeptFile, "pgpass"} {
				if err := os.Remove(filepath.Join(args[0], f)); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			return nil
		},
	}
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
