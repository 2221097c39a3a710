package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

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
	var out string
	cmd := &cobra.Command{
		Use:   "compare RESULTS_DIR...",
		Short: "Compare several results directories: a table, and a comparison report",
		Long: "compare matches the matrix points of the results directories and prints, for each,\n" +
			"throughput, mean and p99 latency and fairness (Jain's index) per directory, with the\n" +
			"ratio of each to the first directory. It also writes a comparison report, compare.html\n" +
			"and compare.md with findings and figures, into --out (default: compare-<time> beside\n" +
			"the first directory). Exit status 2 when an argument is not a results directory.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.Compare(cmd.OutOrStdout(), args, markdown); err != nil {
				return reportError(err)
			}
			if out == "" {
				out = report.DefaultCompareDir(args[0], time.Now())
			}
			if err := report.WriteComparison(args, out); err != nil {
				return reportError(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "comparison: %s (compare.md and figures beside it)\n", filepath.Join(out, "compare.html"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown table instead of aligned text")
	cmd.Flags().StringVar(&out, "out", "", "directory of the comparison report (default: compare-<time> beside the first directory)")
	return cmd
}

// reportError makes "not a results directory" bad input (exit 2).
func reportError(err error) error {
	if errors.Is(err, report.ErrNotResults) {
		return badInput{err}
	}
	return err
}
