package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tenantbench/tenantbench/internal/live"
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
	var metricsAddr string
	cmd := &cobra.Command{
		Use:   "run SPEC",
		Short: "Run the experiment a spec describes and write its results",
		Long: "run validates SPEC, then executes every run of its plan in order: provision, setup,\n" +
			"ingest, post-ingest and workload, with all tenants entering each phase together.\n" +
			"Results are written to --out as each run ends. Exit status: 0 all runs ok, 1 a run\n" +
			"failed, 2 bad input (nothing was started).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnLeftovers(cmd.ErrOrStderr())
			var err error
			fixed := procs // 0: each workload phase's load decides (driver.Options.Procs)
			if procs, err = driverProcs(procs); err != nil {
				return err
			}
			if metricsAddr != "" {
				if err := live.CheckAddr(metricsAddr); err != nil {
					return badInput{fmt.Errorf("--metrics-addr %w", err)}
				}
			}
			resolved, p, err := load(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			// Bound before anything starts, so that a busy port is bad
			// input; closed when the command returns, whatever the runs
			// did, so that the port is free again.
			var metrics *live.Server
			if metricsAddr != "" {
				if metrics, err = live.Listen(metricsAddr, live.New()); err != nil {
					return badInput{fmt.Errorf("--metrics-addr %w", err)}
				}
				defer metrics.Close()
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
			dir.SetInterferenceKeys(p.InterferenceKeys)
			if err := dir.WriteFile("spec.yaml", resolved, 0o644); err != nil {
				return err
			}
			if err := p.Write(dir.Path); err != nil {
				return err
			}
			// Ctrl-C, SIGTERM, SIGHUP and a closed output cancel the
			// experiment; the orchestrator then stops every server before
			// tenantbench exits.
			ctx, cancel, stop := interruptContext(cmd.Context())
			defer stop()
			// Every server and work directory is in live.json as soon as
			// it exists, for `down` after a SIGKILL.
			ledger, lerr := run.OpenLedger(dir.Path, p.Provider, p.Engine)
			if ledger == nil {
				return lerr
			}
			if lerr != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "tenantbench:", lerr)
			}
			runtime.GOMAXPROCS(procs)
			stdout := cmd.OutOrStdout()
			log := &outputLog{w: stdout, cancel: cancel}
			fmt.Fprintf(log, "tenantbench %s: %s, %d run(s), results in %s\n", version, p.Name, len(p.Runs), out)
			if metrics != nil {
				fmt.Fprintf(log, "live metrics: http://%s/metrics\n", metrics.Addr())
			}
			outcome, err := run.Experiment(ctx, p, run.Options{Out: dir, FailFast: failFast, Keep: keep, Log: log,
				Terminal: isTerminal(stdout), Provider: prov, Workloads: registry(), Models: tenancy.Builtin(), Version: version,
				Monitor: monitorOn, Ledger: ledger, Live: metrics.Metrics(), Procs: fixed})
			// The runs are over: the port is free before the report.
			if cerr := metrics.Close(); cerr != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "tenantbench: live metrics: %v\n", cerr)
			}
			if cerr := ledger.Close(); cerr != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "tenantbench: %s: %v\n", run.LiveFile, cerr)
			}
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
	cmd.Flags().BoolVar(&failFast, "fail-fast", false, "stop at the first failed run (a run with faults fails at its first failed attempt)")
	cmd.Flags().BoolVar(&keep, "keep", false, "leave the last run's instances up; stop them with `tenantbench down`")
	cmd.Flags().BoolVar(&monitorOn, "monitor", true, "sample resources, DBMS statistics and wait events (--monitor=false to measure without)")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve live Prometheus metrics at HOST:PORT/metrics while the runs go (off by default; e.g. 127.0.0.1:9464)")
	cmd.Flags().IntVar(&procs, "procs", 0, procsUsage)
	return cmd
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
