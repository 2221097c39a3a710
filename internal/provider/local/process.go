package local

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Process is a local server as this machine sees it: the Control of every
// Instance this provider starts. It gives the monitor the process tree
// and cgroup to sample, the run the size of the data directory, `down`
// what it needs to find the server again, and faults their signals.
type Process struct {
	Pid        int    // the postmaster; its process group is the server's
	PidStart   uint64 // its start time (startTime), 0 if not known
	DataDir    string // the server's data directory
	CgroupPath string // below the hierarchy root, "" when none could be made
	CgroupMode string // "v1", "v2" or "none"
	// CPUs and MemoryBytes are the limits the server was started with
	// (0 = none); Instance.LimitsEnforced says whether they hold.
	CPUs        float64
	MemoryBytes int64
	enforced    *bool // the instance's LimitsEnforced
	// group is the server's cgroup, nil when none could be made: what
	// Resize changes.
	group *cgroup.Group
	// mu guards Pid and PidStart, which an in-place restart changes
	// while the monitor and the faults read them.
	mu sync.RWMutex
	// restart restarts the server in place (Provider.restartInPlace);
	// nil until the server runs.
	restart func(ctx context.Context, crash bool) (time.Time, error)
	// startPooler starts the pooler (Provider.startPooler); nil until
	// the server runs. pooler is the running one's record, nil for none.
	startPooler func(ctx context.Context, c pooler.Config, secrets []string) (*provider.Pool, error)
	pooler      *provider.PoolerRecord
	// mounts are the file systems made for the data directory
	// (storage.go), in the order made.
	mounts []provider.Mount
	// poolerStats reads the running pooler's pools (server.poolerStats);
	// nil until the server runs.
	poolerStats func(ctx context.Context) ([]pooler.PoolStat, error)
	// startReplicas and replicas are provider.Replicated's
	// (Provider.startReplicas, server.replicaInstances), nil until the
	// server runs and for a standby; primary is the server a standby
	// follows, nil for a primary.
	// failOver is provider.FailOver's (Provider.failOver), nil but for
	// a running primary. A fail-over changes all four, under mu.
	startReplicas func(ctx context.Context, n int, sync bool) ([]*provider.Instance, error)
	replicas      func() []*provider.Instance
	primary       *provider.Instance
	failOver      func(ctx context.Context, promote int, moved func(*provider.Instance)) (*provider.Instance, time.Time, error)
}

var (
	_ provider.ResourceSampler = (*Process)(nil)
	_ provider.Storage         = (*Process)(nil)
	_ provider.Limits          = (*Process)(nil)
	_ provider.Killer          = (*Process)(nil)
	_ provider.Freezer         = (*Process)(nil)
	_ provider.Recorder        = (*Process)(nil)
	_ provider.Restarter       = (*Process)(nil)
	_ provider.Pooler          = (*Process)(nil)
	_ provider.Resizer         = (*Process)(nil)
	_ provider.Replicated      = (*Process)(nil)
	_ provider.Standby         = (*Process)(nil)
	_ provider.FailOver        = (*Process)(nil)
	_ provider.Cloner          = (*Provider)(nil)
	_ provider.Remover         = (*Provider)(nil)
)

// Of is the Process of an instance this provider started, nil for any
// other instance.
func Of(inst *provider.Instance) *Process {
	p, _ := inst.Control.(*Process)
	return p
}

func (p *Process) ProcessRoot() int            { return p.pid() }
func (p *Process) Cgroup() (path, mode string) { return p.CgroupPath, p.CgroupMode }

func (p *Process) Limits() (cpus float64, memoryBytes int64, enforced bool) {
	return p.CPUs, p.MemoryBytes, p.enforced != nil && *p.enforced
}

// Resize writes new limits into the server's cgroup: the quota and the
// memory limit its processes run under from the next CFS period on. An
// in-place restart keeps the group, so the limits last across it.
func (p *Process) Resize(cpus float64, memoryBytes int64) error {
	if p.group == nil {
		return errors.New("the server has no cgroup: its limits cannot change")
	}
	return p.group.Resize(cgroup.Limits{CPUs: cpus, MemoryBytes: memoryBytes})
}

// CPUSeconds is the CPU time of the server's cgroup so far.
func (p *Process) CPUSeconds() (float64, error) {
	if p.group == nil {
		return 0, errors.New("the server has no cgroup: its CPU time is not accounted")
	}
	return p.group.CPUSeconds()
}

// StorageBytes adds up the regular files of the data directory: a local
// server pays for what it holds.
func (p *Process) StorageBytes() (int64, error) {
	var bytes int64
	err := filepath.WalkDir(p.DataDir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				bytes += fi.Size()
			}
		}
		return nil
	})
	return bytes, err
}

// Kill sends SIGKILL to the postmaster: its backends then end too, and a
// start afterwards recovers from the WAL (a crash).
func (p *Process) Kill() error { return syscall.Kill(p.pid(), syscall.SIGKILL) }

// pid is the postmaster's pid now.
func (p *Process) pid() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.Pid
}

// setPid records the postmaster a start made.
func (p *Process) setPid(pid int, start uint64) {
	p.mu.Lock()
	p.Pid, p.PidStart = pid, start
	p.mu.Unlock()
}

// Restart shuts the server down (fast, or at once when crash) and starts
// it again in place: same port, socket, data directory, cgroup and log.
func (p *Process) Restart(ctx context.Context, crash bool) (time.Time, error) {
	if p.restart == nil {
		return time.Time{}, errors.New("the server is not running")
	}
	return p.restart(ctx, crash)
}

// Freeze stops the server's every process (SIGSTOP): the postmaster
// first, so that it starts no other, then all below it (each backend is
// in a session of its own: the process group does not reach them).
func (p *Process) Freeze() error { return p.signalTree(syscall.SIGSTOP) }

// Thaw resumes what Freeze stopped (SIGCONT).
func (p *Process) Thaw() error { return p.signalTree(syscall.SIGCONT) }

func (p *Process) signalTree(sig syscall.Signal) error {
	root := p.pid()
	if err := syscall.Kill(root, sig); err != nil {
		return err
	}
	for _, pid := range descendants(root) {
		// A process that ended meanwhile needs no signal.
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	return nil
}

// Record fills in what StopRecord needs beyond the name and endpoint. Its
// WorkDir is the instance's own directory (the parent of DataDir), which
// StopRecord removes.
func (p *Process) Record(r *provider.Record) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	r.Pid, r.PidStart, r.DataDir, r.Cgroup, r.CgroupMode = p.Pid, p.PidStart, p.DataDir, p.CgroupPath, p.CgroupMode
	r.WorkDir = filepath.Dir(p.DataDir)
	if p.pooler != nil {
		pr := *p.pooler
		r.Pooler = &pr
	}
	r.Mounts = append([]provider.Mount(nil), p.mounts...)
}

// newProcess gives inst its Process, on dataDir, with the limits s asks
// for; the start fills in the pid and cgroup.
func newProcess(inst *provider.Instance, dataDir string, s provider.InstanceSpec) {
	inst.Control = &Process{DataDir: dataDir, CgroupMode: "none", CPUs: s.CPUs, MemoryBytes: s.MemoryBytes,
		enforced: &inst.LimitsEnforced}
}
