package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// recordStopTimeout is StopRecord's wait for a fast shutdown.
const recordStopTimeout = 10 * time.Second

// StopRecord stops a server that an earlier tenantbench process kept up
// (see Instance.Record), then removes its cgroup and its directory (the
// parent of rec.DataDir), and rec.WorkDir too once it is empty: WorkDir
// may be the instance's directory or the run's, which the run's other
// instances share until their own StopRecord. The recorded pid is
// signalled only if it still is a postgres on rec.DataDir (else the data
// directory's postmaster.pid is tried): a pid may have been reused since.
// When the record has the process's start time (PidStart), the pid must
// also have started then.
// A server already gone is not an error; StopRecord may be run again
// after a failure.
func StopRecord(ctx context.Context, rec provider.Record) error {
	workDir := filepath.Clean(rec.WorkDir)
	instDir := filepath.Dir(filepath.Clean(rec.DataDir))
	if rec.DataDir == "" || rec.WorkDir == "" || !filepath.IsAbs(instDir) ||
		(instDir != workDir && !strings.HasPrefix(instDir, workDir+"/")) {
		return fmt.Errorf("record of instance %q: data directory %q is not in work directory %q; not touching either", rec.Name, rec.DataDir, rec.WorkDir)
	}
	name := rec.Engine
	if name == "" {
		name = postgres.Name // a record from before there was a second engine
	}
	e, err := engine.Builtin().Get(name)
	if err != nil {
		return fmt.Errorf("record of instance %q: %w", rec.Name, err)
	}
	_, eng, err := serverEngine(e)
	if err != nil {
		return fmt.Errorf("record of instance %q: %w", rec.Name, err)
	}
	pid := 0
	if isServer(eng, rec.Pid, rec.DataDir) && (rec.PidStart == 0 || provider.StartTime(rec.Pid) == rec.PidStart) {
		pid = rec.Pid
	} else if p := pidFromFile(eng.PidFile(rec.DataDir)); isServer(eng, p, rec.DataDir) {
		pid = p
	}

	var group *cgroup.Group
	if rec.Cgroup != "" && rec.CgroupMode != string(cgroup.None) {
		if !strings.HasPrefix(rec.Cgroup, cgroup.Root+"/") || filepath.Clean(rec.Cgroup) != rec.Cgroup {
			return fmt.Errorf("record of instance %q: cgroup %q is not tenantbench's", rec.Name, rec.Cgroup)
		}
		// A machine rebooted into another cgroup mode has lost the group.
		if sys := cgroup.Detect(); string(sys.Mode) == rec.CgroupMode {
			group = sys.Open(rec.Cgroup)
		}
	}

	if rec.Pooler != nil {
		if err := stopPoolerRecord(rec.Pooler); err != nil {
			return fmt.Errorf("stop the pooler of instance %s: %w", rec.Name, err)
		}
	}
	if pid > 0 {
		gone := func() bool { return !alive(pid) }
		if err := terminate(ctx, eng, pid, gone, group, recordStopTimeout); err != nil {
			return fmt.Errorf("stop instance %s: %w", rec.Name, err)
		}
	}
	// Also kills whatever is still in the group, if the server is gone.
	if err := group.Remove(killWait); err != nil {
		return fmt.Errorf("stop instance %s: %w", rec.Name, err)
	}
	if err := unmountAll(rec.Mounts, workDir); err != nil {
		return fmt.Errorf("instance %s: %w", rec.Name, err)
	}
	removeSocket(eng, rec.SocketDir, rec.Port)
	if rec.SocketDir != "" && !strings.HasPrefix(rec.SocketDir, instDir+"/") &&
		strings.HasPrefix(filepath.Base(rec.SocketDir), socketDirPrefix) {
		_ = os.RemoveAll(rec.SocketDir)
	}
	if err := os.RemoveAll(instDir); err != nil {
		return fmt.Errorf("remove the directory of instance %s: %w", rec.Name, err)
	}
	if workDir != instDir {
		_ = os.Remove(workDir) // only once empty: other instances may live there
	}
	return nil
}

// pidFromFile reads the server's pid from the first line of its pid file
// (PostgreSQL's postmaster.pid); 0 when there is none.
func pidFromFile(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	return pid
}
