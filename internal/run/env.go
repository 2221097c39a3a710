package run

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/results"
)

// Env is env.json: the machine and software an experiment ran on.
type Env struct {
	Started     time.Time `json:"started"`
	CPUs        int       `json:"cpus"`
	MemoryBytes int64     `json:"memory_bytes"`
	Kernel      string    `json:"kernel"`
	OS          string    `json:"os"`
	Arch        string    `json:"arch"`
	GoVersion   string    `json:"go_version"`
	DriverProcs int       `json:"driver_procs"` // GOMAXPROCS of the driver
	Version     string    `json:"tenantbench_version"`
	Commit      string    `json:"tenantbench_commit"`
	Modified    bool      `json:"tenantbench_modified"`
	DBMSVersion string    `json:"dbms_version,omitempty"`
	// DBMSVersions is each engine's server version, by engine, when the
	// plan runs several (sut.engine a list): the first run of each
	// engine's first instance. Absent with one engine.
	DBMSVersions   map[string]string `json:"dbms_versions,omitempty"`
	CgroupMode     string            `json:"cgroup_mode,omitempty"`
	LimitsEnforced *bool             `json:"limits_enforced,omitempty"`
	// Pooler is the pooler in front of the first instance of the first
	// run that has one (sut.placement may give the first run none), nil
	// for none: its version and whether the clients' statements ran
	// unnamed.
	Pooler *results.Pooler `json:"pooler,omitempty"`
	// Network is the link and the namespace and addresses of the first
	// run through sut.network (or a placement's), nil for loopback.
	Network *NetworkEnv `json:"network,omitempty"`
}

// CollectEnv reads what it can of the machine; a missing piece stays empty.
func CollectEnv(version string) *Env {
	e := &Env{Started: time.Now(), CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		GoVersion: runtime.Version(), Version: version, MemoryBytes: memTotal(), DriverProcs: runtime.GOMAXPROCS(0)}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				e.Commit = s.Value
			case "vcs.modified":
				e.Modified = s.Value == "true"
			}
		}
	}
	return e
}

// AddInstance records what the first instance says of the DBMS and cgroups.
func (e *Env) AddInstance(i results.Instance) {
	e.DBMSVersion = i.Version
	e.CgroupMode = i.CgroupMode
	enforced := i.LimitsEnforced
	e.LimitsEnforced = &enforced
	e.Pooler = i.Pooler
}

// addRun records what a run says of the machine: the first run's
// instance (AddInstance), and the first pooler and network of any run.
// It says whether env.json changed.
func (e *Env) addRun(first bool, i results.Instance, n *netns.Net) bool {
	changed := false
	if first {
		e.AddInstance(i)
		changed = true
	}
	if e.Pooler == nil && i.Pooler != nil {
		e.Pooler, changed = i.Pooler, true
	}
	if e.Network == nil && n != nil {
		e.Network, changed = networkEnv(n), true
	}
	return changed
}

// AddEngine records the version of an engine's server, when the plan has
// several engines; it says whether env.json must be written again.
func (e *Env) AddEngine(engine string, i results.Instance) bool {
	if _, ok := e.DBMSVersions[engine]; ok {
		return false
	}
	if e.DBMSVersions == nil {
		e.DBMSVersions = map[string]string{}
	}
	e.DBMSVersions[engine] = i.Version
	return true
}

func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
