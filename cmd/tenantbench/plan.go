package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/sales"
	"github.com/tenantbench/tenantbench/internal/workload/tpcb"
	"github.com/tenantbench/tenantbench/internal/workload/tpcc"
	"github.com/tenantbench/tenantbench/internal/workload/tpch"
)

func planCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "plan SPEC",
		Short: "Validate a spec and print the runs it expands to; execute nothing",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, plan, err := load(args[0])
			if err != nil {
				return err
			}
			return plan.WriteTable(cmd.OutOrStdout())
		},
	}
}

// registry is every workload tenantbench knows.
func registry() workload.Registry {
	r := workload.Registry{}
	r.Add(tpcb.Factory())
	r.Add(sales.Factory())
	r.Add(tpcc.Factory())
	r.Add(tpch.Factory())
	return r
}

// load reads, validates and expands a spec, reporting every problem at
// once as bad input (exit status 2).
func load(path string) ([]byte, *spec.Plan, error) {
	s, problems := spec.Load(path)
	if s != nil {
		problems = append(problems, registry().Check(&s.Workload)...)
	}
	var plan *spec.Plan
	if len(problems) == 0 {
		plan, problems = spec.Expand(s)
	}
	if len(problems) == 0 {
		// Limits that depend on each run's tenants and clients (tpch's
		// streams).
		problems = registry().CheckPlan(plan)
	}
	if len(problems) > 0 {
		return nil, nil, badInput{problemsError(path, problems)}
	}
	plan.StreamsEnd = streamsEnd(plan)
	resolved, err := spec.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	return resolved, plan, nil
}

// streamsEnd says whether the plan's workload runs query streams: a
// workload.Streamer's clients are each one stream and stop when it has run
// its queries (workload.Finisher; tpch), so a run may end before its
// duration. The spec is valid: the workload builds without a server.
func streamsEnd(p *spec.Plan) bool {
	if len(p.Runs) == 0 {
		return false
	}
	w, err := registry().Build(&p.Spec.Workload, p.Runs[0].Scale)
	if err != nil {
		return false
	}
	_, ok := w.(workload.Streamer)
	return ok
}

func problemsError(path string, problems []spec.Problem) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problem(s), nothing was started:", path, len(problems))
	for _, p := range problems {
		b.WriteString("\n  - " + p.Error())
	}
	return fmt.Errorf("%s", b.String())
}

func envOf() *run.Env { return run.CollectEnv(version) }
