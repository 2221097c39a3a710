package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// ReadLive reads the ledger of a results directory; nil, nil when it has
// none.
func ReadLive(dir string) (*LiveBook, error) {
	b, err := readBook(filepath.Join(dir, LiveFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func readBook(path string) (*LiveBook, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b LiveBook
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &b, nil
}

// Leftovers are the ledgers of the machine-wide registry whose tenantbench
// has ended and that still list a server or a directory: what earlier
// runs left (killed, or kept with --keep). A ledger whose owner still runs
// is not left over.
func Leftovers() ([]*LiveBook, error) {
	reg, err := RegistryDir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(reg, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*LiveBook
	var errs []error
	for _, f := range files {
		b, err := readBook(f)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) { // removed meanwhile
				errs = append(errs, err)
			}
			continue
		}
		if !b.Owner.Alive() && !b.Empty() {
			out = append(out, b)
		}
	}
	return out, errors.Join(errs...)
}

// StopFunc stops one recorded server (a provider.Factory's StopRecord).
type StopFunc func(context.Context, provider.Record) error

// CleanUp stops every server b lists with stop (which checks that the
// recorded process still is that server: pid, start time, data directory),
// removes b's network namespaces and run work directories, and then forgets b: its live.json, if
// it still is b's, and its registry copy. It goes on after a failure and
// forgets b only when all went well, so that it can be run again.
func CleanUp(ctx context.Context, b *LiveBook, stop StopFunc, say func(string)) error {
	var errs []error
	for _, p := range b.Stressors {
		if err := endStressor(p); err != nil {
			errs = append(errs, err)
			continue
		}
		say(fmt.Sprintf("ended stressor %s (pid %d)", p.Name, p.Pid))
	}
	for _, r := range b.Instances {
		if err := stop(ctx, r); err != nil {
			errs = append(errs, fmt.Errorf("instance %s (%s): %w", r.Name, r.DataDir, err))
			continue
		}
		say(fmt.Sprintf("stopped and removed instance %s (port %d, %s)", r.Name, r.Port, filepath.Dir(r.DataDir)))
	}
	// After the servers: a namespace goes only once no process is in it.
	for _, n := range b.Networks {
		if err := netns.Remove(n); err != nil {
			errs = append(errs, fmt.Errorf("network namespace %s: %w", n.Name, err))
			continue
		}
		what := fmt.Sprintf("removed network namespace %s and veth %s (%s)", n.Name, n.HostIf, n.Subnet)
		if n.Delayer != nil {
			what += fmt.Sprintf(", ended its delayer (pid %d)", n.Delayer.Pid)
		}
		say(what)
	}
	for _, w := range b.WorkDirs {
		if !isWorkDir(w) {
			errs = append(errs, fmt.Errorf("%s is not a run work directory of tenantbench; not removing it", w))
			continue
		}
		if _, err := os.Stat(w); os.IsNotExist(err) {
			continue
		}
		if err := os.RemoveAll(w); err != nil {
			errs = append(errs, err)
			continue
		}
		say("removed " + w)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return forget(b)
}

// isWorkDir: only an absolute directory named as execution makes them
// ("tenantbench-<run>-<random>") is ever removed whole.
func isWorkDir(dir string) bool {
	return filepath.IsAbs(dir) && filepath.Clean(dir) == dir && strings.HasPrefix(filepath.Base(dir), "tenantbench-")
}

// forget removes b's files: live.json of its results directory when it
// still is b's (a later run may have written its own), and the registry's
// copy.
func forget(b *LiveBook) error {
	if b.Results != "" {
		live := filepath.Join(b.Results, LiveFile)
		if cur, err := readBook(live); err == nil && cur.Owner == b.Owner {
			if err := os.Remove(live); err != nil {
				return err
			}
		}
	}
	reg, err := RegistryDir()
	if err != nil {
		return nil
	}
	copyPath := registryFile(reg, b)
	if cur, err := readBook(copyPath); err == nil && cur.Owner == b.Owner {
		return os.Remove(copyPath)
	}
	return nil
}
