// Command tenantbench benchmarks multi-tenant database deployments.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes: 0 all runs ok, 1 a run failed, 2 bad input.
const (
	exitOK       = 0
	exitFailed   = 1 // a run failed, or the experiment could not be done
	exitBadInput = 2 // the spec or the command line is wrong; nothing started
)

// badInput marks an error as the user's input, for exit code 2.
type badInput struct{ error }

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

func execute(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "tenantbench",
		Short: "Benchmark multi-tenant database deployments",
		Long: "tenantbench provisions database instances, places tenants on them in a tenancy model\n" +
			"(schema, database or instance per tenant), loads a workload per tenant, drives all\n" +
			"tenants at once and writes per-tenant and per-run results.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput{err} })
	root.AddCommand(runCmd(), planCmd(), densityCmd(), calibrateCmd(), downCmd(), checkCmd(), auditCmd(), reportCmd(), compareCmd(), versionCmd())
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var bad badInput
	var failed runsFailed
	switch {
	case errors.As(err, &failed):
		fmt.Fprintln(stderr, "tenantbench:", err)
		return exitFailed
	case errors.As(err, &bad):
		fmt.Fprintln(stderr, "tenantbench:", err)
		return exitBadInput
	default:
		fmt.Fprintln(stderr, "tenantbench:", err)
		return exitFailed
	}
}

// runsFailed reports that the experiment ran but some runs failed.
type runsFailed struct{ failed, runs int }

func (r runsFailed) Error() string { return fmt.Sprintf("%d of %d runs failed", r.failed, r.runs) }

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tenantbench's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env := envOf()
			commit := env.Commit
			if commit == "" {
				commit = "unknown"
			} else if env.Modified {
				commit += " (modified)"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "tenantbench %s, commit %s, %s\n", version, commit, env.GoVersion)
			return nil
		},
	}
}
