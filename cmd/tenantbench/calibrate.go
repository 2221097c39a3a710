package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	loadshape "github.com/tenantbench/tenantbench/internal/load"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// calibrateCmd is `tenantbench calibrate SPEC`: it finds
// tau, the concurrency at which the spec's system reaches its limit, from
// which the CloudyBench patterns of workload.pattern are built.
func calibrateCmd() *cobra.Command {
	var out string
	var start, step, most, procs int
	var minGain float64
	var maxP99, warmup, duration time.Duration
	cmd := &cobra.Command{
		Use:   "calibrate SPEC",
		Short: "Find tau, the concurrency where the system saturates, for workload.pattern.tau",
		Long: "calibrate starts one server with one tenant of SPEC's first model, scale and settings,\n" +
			"loads the workload, then measures a closed loop of more and more clients (1, 2, 4, ...\n" +
			"or --step more each time) until throughput grows by less than --min-gain % or p99\n" +
			"latency passes --max-p99. tau is the last concurrency before that knee (Zhang et al. 2025,\n" +
			"section II-C). It prints a row per step and tau, and writes tau to --out as YAML.\n" +
			"Everything it starts is stopped before it exits, also on Ctrl-C. Exit status: 0 done,\n" +
			"1 failed or interrupted, 2 bad input (nothing was started).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			fixed := procs // 0: each workload phase's load decides (driver.Options.Procs)
			if procs, err = driverProcs(procs); err != nil {
				return err
			}
			p, err := loadForCalibration(args[0], most)
			if err != nil {
				return err
			}
			s := p.Spec
			if err := checkCalibrateFlags(start, step, most, minGain, maxP99, warmup, duration); err != nil {
				return err
			}
			// A max_connections of the spec bounds the clients a step may open.
			if v, ok := s.SUT.SettingsOf(p.Engine)["max_connections"]; ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v[0])); err == nil {
					limit := n - registries().Engines[p.Engine].ConnectionReserve()
					if limit < start {
						return badInput{fmt.Errorf("sut.settings.max_connections %d leaves room for %d clients, fewer than --start %d", n, limit, start)}
					}
					if most > limit {
						fmt.Fprintf(cmd.ErrOrStderr(), "tenantbench: --max lowered from %d to %d: sut.settings.max_connections is %d\n", most, limit, n)
						most = limit
					}
				}
			}
			// The plan's run has room for the largest step (and the
			// workload's limits checked with it).
			if p, err = loadForCalibration(args[0], most); err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("results", s.Name+"-tau-"+time.Now().Format("20060102-150405")+".yaml")
			}
			// Fail before starting anything if the file cannot be written.
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return badInput{fmt.Errorf("--out: %w", err)}
			}
			prov, err := registries().Providers.New(p.Provider)
			if err != nil {
				return err
			}
			// Ctrl-C, SIGTERM, SIGHUP and a closed output cancel the
			// calibration; Calibrate then stops the server before
			// tenantbench exits.
			ctx, cancel, stop := interruptContext(cmd.Context())
			defer stop()
			// The server and work directory go to the machine-wide
			// registry only (no results directory), for `down --all`.
			ledger, lerr := run.OpenLedger("", p.Provider, p.Engine)
			if ledger == nil {
				return lerr
			}
			if lerr != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "tenantbench:", lerr)
			}
			defer ledger.Close()
			runtime.GOMAXPROCS(procs)
			stdout := cmd.OutOrStdout()
			log := &outputLog{w: stdout, cancel: cancel}
			r := p.Runs[0]
			fmt.Fprintf(log, "tenantbench %s: calibrating %s: workload %s, model %s, 1 tenant, scale %s\n",
				version, s.Name, s.Workload.Name, r.Model, strconv.FormatFloat(r.Scale, 'g', -1, 64))
			cal, err := run.Calibrate(ctx, p, run.CalibrateOptions{Log: log, Terminal: isTerminal(stdout), Provider: prov,
				Workloads: registry(), Models: tenancy.Builtin(), Ledger: ledger,
				Steps:  loadshape.Calibration{Start: start, Step: step, Max: most, MinGain: minGain / 100, MaxP99: maxP99},
				Warmup: warmup, Duration: duration, Procs: fixed})
			if err != nil {
				return err
			}
			return reportTau(log, args[0], out, s, cal, calibrateFlags{start, step, most, minGain, maxP99, warmup, duration})
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "YAML file tau is written to (default results/<name>-tau-<timestamp>.yaml)")
	f.IntVar(&start, "start", 1, "clients of the first step")
	f.IntVar(&step, "step", 0, "clients added per step; 0 doubles them instead (1, 2, 4, ...)")
	f.IntVar(&most, "max", 1024, "the most clients tried")
	f.Float64Var(&minGain, "min-gain", 5, "stop when throughput grows by less than this many % from one step to the next")
	f.DurationVar(&maxP99, "max-p99", 0, "stop when a step's p99 latency passes this (e.g. 100ms); 0 for no bound")
	f.DurationVar(&warmup, "warmup", 5*time.Second, "unmeasured time at the start of each step")
	f.DurationVar(&duration, "duration", 15*time.Second, "measured time of each step")
	f.IntVar(&procs, "procs", 0, procsUsage)
	return cmd
}

type calibrateFlags struct {
	start, step, most       int
	minGain                 float64
	maxP99, warmup, measure time.Duration
}

func checkCalibrateFlags(start, step, most int, minGain float64, maxP99, warmup, duration time.Duration) error {
	var problems []string
	if start < 1 || start > spec.MaxClients {
		problems = append(problems, fmt.Sprintf("--start %d: must be 1..%d clients", start, spec.MaxClients))
	}
	if step < 0 {
		problems = append(problems, fmt.Sprintf("--step %d: must be 0 (double) or more", step))
	}
	if most < start || most > spec.MaxClients {
		problems = append(problems, fmt.Sprintf("--max %d: must be --start (%d) ..%d clients", most, start, spec.MaxClients))
	}
	if !(minGain > 0) || math.IsInf(minGain, 0) {
		problems = append(problems, fmt.Sprintf("--min-gain %g: must be more than 0 (%%)", minGain))
	}
	if maxP99 < 0 {
		problems = append(problems, fmt.Sprintf("--max-p99 %s: must be 0 (no bound) or more", maxP99))
	}
	if warmup < 0 {
		problems = append(problems, fmt.Sprintf("--warmup %s: must be 0s or more", warmup))
	}
	if duration < time.Second {
		problems = append(problems, fmt.Sprintf("--duration %s: must be 1s or more", duration))
	}
	if len(problems) > 0 {
		return badInput{fmt.Errorf("%s", strings.Join(problems, "; "))}
	}
	return nil
}

// loadForCalibration builds the one-tenant plan calibrate measures, with
// room for clients connections (plan.Calibration).
func loadForCalibration(path string, clients int) (*plan.Plan, error) {
	p, problems := plan.Calibration(path, registries(), max(1, clients))
	if len(problems) > 0 {
		return nil, badInput{problemsError(path, problems)}
	}
	return p, nil
}

// reportTau prints tau and writes the --out file.
func reportTau(log io.Writer, specPath, out string, s *spec.Spec, cal *run.Calibrated, fl calibrateFlags) error {
	open := !s.Workload.Shape().Target().Clients
	tau := strconv.Itoa(cal.Tau)
	unit := "clients"
	if open {
		if cal.TPS <= 0 {
			return fmt.Errorf("no throughput measured at tau %d, so no rate for an open load: %s", cal.Tau, cal.Why)
		}
		// For an open load tau is a rate (docs/spec.md): the throughput the
		// system reached at the knee.
		tau, unit = strconv.FormatFloat(math.Round(cal.TPS), 'f', -1, 64), "transactions per second"
	}
	fmt.Fprintf(log, "stopped: %s\n", cal.Why)
	fmt.Fprintf(log, "tau = %d clients (%.1f tx/s)\n", cal.Tau, cal.TPS)
	var b strings.Builder
	fmt.Fprintf(&b, "# tenantbench calibrate %s, %s\n", specPath, time.Now().Format(time.RFC3339))
	fmt.Fprintf(&b, "# %s: workload %s, model %s, 1 tenant, scale %s, PostgreSQL %s\n", s.Name, s.Workload.Name, cal.Model,
		strconv.FormatFloat(cal.Run.Scale, 'g', -1, 64), cal.Server)
	fmt.Fprintf(&b, "# steps: clients from %d, %s, up to %d; %s warmup + %s each; stop below %g %% growth",
		fl.start, stepText(fl.step), fl.most, fl.warmup, fl.measure, fl.minGain)
	if fl.maxP99 > 0 {
		fmt.Fprintf(&b, " or at p99 above %s", fl.maxP99)
	}
	fmt.Fprintf(&b, "\n# tau is workload.pattern.tau for this spec: %s.\n", unit)
	fmt.Fprintf(&b, "tau: %s\n", tau)
	fmt.Fprintf(&b, "concurrency: %d\nthroughput_tps: %s\n", cal.Tau, strconv.FormatFloat(round1(cal.TPS), 'f', -1, 64))
	fmt.Fprintf(&b, "stopped: %s\n", strconv.Quote(cal.Why))
	b.WriteString("steps:\n")
	for _, r := range cal.Rows {
		fmt.Fprintf(&b, "  - {clients: %d, tps: %s, mean_ms: %s, p99_ms: %s, failed: %d}\n", r.Clients,
			strconv.FormatFloat(round1(r.TPS), 'f', -1, 64), strconv.FormatFloat(r.MeanMs, 'f', 3, 64),
			strconv.FormatFloat(r.P99Ms, 'f', 3, 64), r.Failed)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s; set it in the spec:\n  workload.pattern.tau: %s\n", out, tau)
	return nil
}

func stepText(step int) string {
	if step == 0 {
		return "doubling"
	}
	return fmt.Sprintf("+%d per step", step)
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
