package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/run"
)

func downCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "down [RESULTS_DIR]",
		Short: "Stop the instances a run left up (--keep, or a tenantbench that was killed)",
		Long: "down RESULTS_DIR stops the servers of that results directory: those kept with --keep\n" +
			"(instances.json) and those a killed tenantbench left (live.json), and removes their\n" +
			"cgroups and directories. down --all does so for every results directory this machine's\n" +
			"registry lists whose tenantbench has ended. A recorded process is stopped only if it\n" +
			"still is that server (pid, start time and data directory).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return badInput{fmt.Errorf("give a results directory or --all, not both")}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
			defer cancel()
			if all {
				return downAll(ctx, cmd.OutOrStdout())
			}
			return downDir(ctx, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "stop what every earlier run on this machine left")
	return cmd
}

// downDir stops what dir's runs kept or left.
func downDir(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	live, err := run.ReadLive(dir)
	if err != nil {
		return badInput{err}
	}
	recs, kerr := run.ReadKept(dir)
	if kerr != nil && live == nil {
		return badInput{fmt.Errorf("%w, and no %s", kerr, run.LiveFile)}
	}
	if live != nil && live.Owner.Alive() {
		return badInput{fmt.Errorf("tenantbench (pid %d) is still running the experiment of %s: stop it (Ctrl-C, or kill %d) and it stops its servers",
			live.Owner.Pid, dir, live.Owner.Pid)}
	}
	var failed error
	stopped := map[string]bool{}
	for _, r := range recs {
		stop, err := stopper(r.Provider)
		if err == nil {
			err = stop(ctx, r.Record)
		}
		if err != nil {
			fmt.Fprintf(stderr, "instance %s: %v\n", r.Name, err)
			failed = err
			continue
		}
		stopped[r.DataDir] = true
		fmt.Fprintf(stdout, "stopped instance %s (port %d)\n", r.Name, r.Port)
	}
	if live != nil {
		// The kept servers are in the ledger too.
		var rest []provider.Record
		for _, r := range live.Instances {
			if !stopped[r.DataDir] {
				rest = append(rest, r)
			}
		}
		live.Instances = rest
		if err := cleanUp(ctx, live, stdout); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", dir, err)
			failed = err
		}
	}
	if failed != nil {
		return failed
	}
	for _, f := range []string{run.KeptFile, "pgpass"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// downAll cleans up after every ended tenantbench the registry lists.
func downAll(ctx context.Context, stdout io.Writer) error {
	books, err := run.Leftovers()
	if err != nil {
		return err
	}
	if len(books) == 0 {
		fmt.Fprintln(stdout, "nothing left by earlier runs")
		return nil
	}
	var failed error
	for _, b := range books {
		if err := cleanUp(ctx, b, stdout); err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", where(b), err)
			failed = err
			continue
		}
		if b.Results != "" {
			// Its kept servers are stopped: their connection files go.
			for _, f := range []string{run.KeptFile, "pgpass"} {
				_ = os.Remove(filepath.Join(b.Results, f))
			}
		}
	}
	return failed
}

func cleanUp(ctx context.Context, b *run.LiveBook, stdout io.Writer) error {
	stop, err := stopper(b.Provider)
	if err != nil {
		return err
	}
	return run.CleanUp(ctx, b, stop, func(s string) { fmt.Fprintln(stdout, s) })
}

// stopper is how the provider named stops a recorded server.
func stopper(name string) (run.StopFunc, error) {
	f, err := registries().Providers.Get(name)
	if err != nil {
		return nil, err
	}
	if f.StopRecord == nil {
		return nil, fmt.Errorf("provider %s keeps no servers", name)
	}
	return f.StopRecord, nil
}

// where names a ledger for the user: its results directory, or its
// tenantbench process (calibrate has no results directory).
func where(b *run.LiveBook) string {
	if b.Results != "" {
		return b.Results
	}
	return fmt.Sprintf("tenantbench pid %d", b.Owner.Pid)
}

// warnLeftovers says, before a run starts, that earlier runs left servers
// or directories behind, and how to remove them. A registry that cannot be
// read is no reason not to run.
func warnLeftovers(w io.Writer) {
	books, _ := run.Leftovers()
	if len(books) == 0 {
		return
	}
	n := 0
	var dirs []string
	for _, b := range books {
		n += len(b.Instances)
		dirs = append(dirs, where(b))
	}
	fmt.Fprintf(w, "tenantbench: earlier runs (killed, or kept with --keep) left %d server(s) (processes, cgroups or directories) behind in %v; stop them with `tenantbench down --all`\n", n, dirs)
}
