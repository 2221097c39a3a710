package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/run"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/lag"
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
			_, p, err := load(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return p.WriteTable(cmd.OutOrStdout())
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
	r.Add(lag.Factory())
	return r
}

// registries are what a spec is resolved against.
func registries() plan.Registries {
	return plan.Builtin(registry())
}

// load builds the plan of the spec at path, reporting every problem at
// once as bad input, and the spec as resolved (defaults filled) for the
// results. The plan's warnings go to warn.
func load(path string, warn io.Writer) ([]byte, *plan.Plan, error) {
	p, problems := plan.Build(path, registries())
	if len(problems) > 0 {
		return nil, nil, badInput{problemsError(path, problems)}
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(warn, "%s: warning: %s\n", path, w.Error())
	}
	resolved, err := spec.Marshal(p.Spec)
	if err != nil {
		return nil, nil, err
	}
	return resolved, p, nil
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
