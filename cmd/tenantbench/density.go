package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/density"
	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/report"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

func densityCmd() *cobra.Command {
	var out string
	cfg := density.Config{Start: 1, Factor: 2, Limits: density.Oracle2014, MaxRuns: 12, MaxTime: time.Hour}
	cmd := &cobra.Command{
		Use:   "density SPEC",
		Short: "Find the most tenants each model holds within its SLA and the CPU and memory ceilings",
		Long: "density searches, for each tenancy.model of SPEC, the most tenants at which every tenant meets its SLA\n" +
			"(workload.sla, tenancy.classes; a run without one must only succeed) while the servers use at most\n" +
			"--cpu % of the machine's CPUs and --memory % of its memory (Oracle 2014, Test 3: 68 % and 75 %).\n" +
			"It grows the tenant count from --start by --factor until a probe does not fit, then bisects,\n" +
			"within --max-runs runs and --max-time per model. Each probe is a run of SPEC with tenancy.tenants\n" +
			"set, written to OUT/probes/<model>-<n>/ like any other; OUT/density.csv, probes.csv and density.md\n" +
			"hold the search. SPEC's tenancy.tenants and repeat are replaced.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			warnLeftovers(cmd.ErrOrStderr())
			s, problems := spec.Load(args[0])
			if len(problems) > 0 {
				return badInput{problemsError(args[0], problems)}
			}
			if cfg.Max == 0 {
				cfg.Max = spec.MaxTenants
			}
			if err := cfg.Check(); err != nil {
				return badInput{err}
			}
			if out == "" {
				out = filepath.Join("results", s.Name+"-density-"+time.Now().Format("20060102-150405"))
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			ctx, cancel, stop := interruptContext(cmd.Context())
			defer stop()
			log := &outputLog{w: cmd.OutOrStdout(), cancel: cancel}
			var models []density.Model
			var searchErr error
			for _, m := range s.Tenancy.Model {
				fmt.Fprintf(log, "density: model %s, from %d tenants, ceilings %g %% CPU, %g %% memory\n", m, cfg.Start, cfg.Limits.CPUPct, cfg.Limits.MemPct)
				pr := &prober{spec: s, model: m, out: out, log: log, limits: cfg.Limits}
				res, err := density.Search(ctx, cfg, pr.probe)
				if res != nil {
					models = append(models, density.Model{Name: m, Result: res})
					fmt.Fprintf(log, "density: model %s holds %d tenants (%d probes)\n", m, res.Found, len(res.Probes))
				}
				if err != nil {
					searchErr = err
					break
				}
			}
			if err := writeDensity(out, models, cfg.Limits); err != nil {
				return err
			}
			fmt.Fprintf(log, "density: %s\n", filepath.Join(out, "density.csv"))
			if err := report.Write(out); err != nil {
				fmt.Fprintf(log, "density: the report of %s could not be written: %v\n", out, err)
			} else {
				fmt.Fprintf(log, "density: %s\n", filepath.Join(out, report.Subdir, "report.html"))
			}
			return searchErr
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory of the search (default results/<name>-density-<timestamp>)")
	f.Float64Var(&cfg.Limits.CPUPct, "cpu", cfg.Limits.CPUPct, "CPU ceiling: the servers' share of the machine's CPUs, percent")
	f.Float64Var(&cfg.Limits.MemPct, "memory", cfg.Limits.MemPct, "memory ceiling: the servers' peak memory, percent of the machine's")
	f.IntVar(&cfg.Start, "start", cfg.Start, "the first tenant count tried")
	f.IntVar(&cfg.Max, "max", 0, fmt.Sprintf("the most tenants tried (default %d)", spec.MaxTenants))
	f.Float64Var(&cfg.Factor, "factor", cfg.Factor, "growth of the tenant count until a probe does not fit")
	f.IntVar(&cfg.MaxRuns, "max-runs", cfg.MaxRuns, "the most probes per model (0: no bound)")
	f.DurationVar(&cfg.MaxTime, "max-time", cfg.MaxTime, "the most time per model (0: no bound)")
	return cmd
}

// prober runs the probes of one model: SPEC with the model and n
// tenants, as `run` runs a spec.
type prober struct {
	spec   *spec.Spec
	model  string
	out    string
	log    io.Writer
	limits density.Limits
}

func (p *prober) probe(ctx context.Context, n int) (density.Probe, error) {
	pr := density.Probe{Tenants: n, CPUPct: -1, MemPct: -1, MemMB: -1, IOPS: -1}
	s := *p.spec
	s.Name = fmt.Sprintf("%s-%s-%d", p.spec.Name, p.model, n)
	s.Repeat = 1
	s.Tenancy.Model, s.Tenancy.Tenants = spec.Strings{p.model}, spec.Ints{n}
	resolved, err := spec.Marshal(&s)
	if err != nil {
		return pr, err
	}
	pl, problems := plan.BuildBytes(resolved, registries())
	if len(problems) > 0 {
		// The machine cannot hold n tenants (connections, processes,
		// memory): n does not fit, as a failed run does not.
		fmt.Fprintf(p.log, "density: %d tenants refused at plan: %v\n", n, problems[0])
		return pr, nil
	}
	if len(pl.Runs) != 1 {
		return pr, badInput{fmt.Errorf("a density probe is one run; the spec makes %d of each tenant count (cases, lists): give one value each", len(pl.Runs))}
	}
	dirPath := filepath.Join(p.out, "probes", fmt.Sprintf("%s-%d", p.model, n))
	pr.Where = dirPath
	dir, err := results.Create(dirPath, pl.SettingKeys)
	if err != nil {
		return pr, err
	}
	dir.SetInterferenceKeys(pl.InterferenceKeys)
	if err := dir.WriteFile("spec.yaml", resolved, 0o644); err != nil {
		return pr, err
	}
	if err := pl.Write(dir.Path); err != nil {
		return pr, err
	}
	prov, err := registries().Providers.New(pl.Provider)
	if err != nil {
		return pr, err
	}
	ledger, lerr := run.OpenLedger(dir.Path, pl.Provider, pl.Engine)
	if ledger == nil {
		return pr, lerr
	}
	_, err = run.Experiment(ctx, pl, run.Options{Out: dir, Log: p.log, Provider: prov, Workloads: registry(),
		Models: tenancy.Builtin(), Version: version, Monitor: true, Ledger: ledger})
	if cerr := ledger.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return pr, err
	}
	if err := ctx.Err(); err != nil {
		return pr, err
	}
	if rerr := report.Write(dirPath); rerr != nil {
		fmt.Fprintf(p.log, "density: the report of %s could not be written: %v\n", dirPath, rerr)
	}
	sum, err := dir.ReadSummary(pl.Runs[0].ID)
	if err != nil {
		return pr, err
	}
	probeFigures(&pr, sum, runtime.NumCPU(), plan.Here().MemoryBytes)
	why := pr.Why(p.limits)
	if why == "" {
		why = "fits"
	}
	fmt.Fprintf(p.log, "density: %s, %d tenants: %s (cpu %.1f %%, memory %.1f %%, %.1f tps)\n", p.model, n, why, pr.CPUPct, pr.MemPct, pr.TPS)
	return pr, nil
}

// probeFigures reads a probe's figures from its run's summary: the
// servers' CPU as a share of the machine's cpus over the measured
// workload, their peak memory as a share of its memory, the SLA (met by
// every tenant; a run without SLA only has to succeed).
func probeFigures(pr *density.Probe, sum *results.Summary, cpus int, memBytes int64) {
	a := sum.Provider
	pr.OK = sum.Status == results.StatusOK
	pr.SLAMet = pr.OK && (a.SLAMet == nil || *a.SLAMet)
	pr.TPS, pr.MeanMs, pr.P95Ms = a.TPS, a.MeanMs, a.P95Ms
	if a.CPUS != nil && sum.Measured > 0 && cpus > 0 {
		pr.CPUPct = *a.CPUS / (sum.Measured * float64(cpus)) * 100
	}
	if a.MemPeakMB != nil && memBytes > 0 {
		pr.MemMB = *a.MemPeakMB
		pr.MemPct = *a.MemPeakMB * (1 << 20) / float64(memBytes) * 100
	}
	if a.Priced != nil && a.Priced.IOPS != nil {
		pr.IOPS = *a.Priced.IOPS
	}
}

// writeDensity writes density.csv, probes.csv and density.md.
func writeDensity(out string, models []density.Model, l density.Limits) error {
	for name, write := range map[string]func(io.Writer, []density.Model, density.Limits) error{
		"density.csv": density.WriteDensity, "probes.csv": density.WriteProbes, "density.md": density.WriteTable} {
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			return err
		}
		if err := errors.Join(write(f, models, l), f.Close()); err != nil {
			return err
		}
	}
	return nil
}
