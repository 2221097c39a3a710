package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/report"
)

func reportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report RESULTS_DIR",
		Short: "Render a results directory into report.html, summary.md and figures",
		Long: "report reads the results files of RESULTS_DIR (it re-runs nothing) and writes\n" +
			"RESULTS_DIR/report/: report.html (self-contained, opens from disk), summary.md and every\n" +
			"figure as SVG and PNG. Exit status 2 when RESULTS_DIR is not a results directory.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.Write(args[0]); err != nil {
				return reportError(err)
			}
			out := filepath.Join(args[0], report.Subdir)
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s (summary.md and figures beside it)\n", filepath.Join(out, "report.html"))
			return nil
		},
	}
}

func compareCmd() *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "compare RESULTS_DIR...",
		Short: "Print the key metrics of several results directories side by side",
		Long: "compare matches the matrix points of the results directories and prints, for each,\n" +
			"throughput, mean and p99 latency and fairness (Jain's index) per directory, with the\n" +
			"ratio of each to the first directory. Exit status 2 when an argument is not a results\n" +
			"directory.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return reportError(report.Compare(cmd.OutOrStdout(), args, markdown))
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown table instead of aligned text")
	return cmd
}

// reportError makes "not a results directory" bad input (exit 2).
func reportError(err error) error {
	if errors.Is(err, report.ErrNotResults) {
		return badInput{err}
	}
	return err
}
