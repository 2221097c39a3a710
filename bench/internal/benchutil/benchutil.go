// Package benchutil holds what the benchmark commands under bench/ share:
// the process's CPU time, medians, the load average, loading a workload
// as a run does (Load), and running pgbench as the peer measured in the
// same run.
package benchutil

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPUSeconds is this process's user+system CPU time so far.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// Usage is a process's CPU time split into user and system seconds, and
// its context switches (voluntary: it waited; involuntary: it was
// preempted). A client on loopback spends most of its time in the kernel,
// so the split tells whether a difference is the client's code or its
// system calls and wake-ups.
type Usage struct {
	User, Sys   float64
	Vcsw, Ivcsw float64
}

// Sub is u minus an earlier reading.
func (u Usage) Sub(v Usage) Usage {
	return Usage{User: u.User - v.User, Sys: u.Sys - v.Sys, Vcsw: u.Vcsw - v.Vcsw, Ivcsw: u.Ivcsw - v.Ivcsw}
}

// SelfUsage is this process's Usage so far.
func SelfUsage() Usage {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return usageOf(&ru)
}

func usageOf(ru *syscall.Rusage) Usage {
	return Usage{User: time.Duration(ru.Utime.Nano()).Seconds(), Sys: time.Duration(ru.Stime.Nano()).Seconds(),
		Vcsw: float64(ru.Nvcsw), Ivcsw: float64(ru.Nivcsw)}
}

// Median of v (the mean of the middle two for an even count); v is not
// changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MedianOf is Median of f over items.
func MedianOf[T any](items []T, f func(T) float64) float64 {
	v := make([]float64, len(items))
	for i, it := range items {
		v[i] = f(it)
	}
	return Median(v)
}

// Loadavg is the 1, 5 and 15 minute load averages, "?" where unknown.
func Loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// Pgbench is one pgbench run's figures.
type Pgbench struct {
	TPS, Txns, CPU float64 // CPU: pgbench's user+system seconds
	LagMs          float64 // with --rate: the average schedule lag
	Usage          Usage   // CPU split and context switches
	Out            []byte
}

var (
	tpsLine = regexp.MustCompile(`tps = ([0-9.]+)`)
	txLine  = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
	lagLine = regexp.MustCompile(`schedule lag: avg ([0-9.]+)`)
)

// PassFile gives cmd the password through a pgpass file of its own
// (mode 0600, PGPASSFILE), read by libpq and by lib/pq (go-tpc): neither
// a flag, which any user sees in the process list, nor PGPASSWORD. The
// file matches any server, database and user: a bench tool's peer
// connects to one server only. remove deletes it.
func PassFile(cmd *exec.Cmd, password string) (remove func(), err error) {
	f, err := os.CreateTemp("", "tenantbench-pgpass-")
	if err != nil {
		return nil, err
	}
	escaped := strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(password)
	if _, err := fmt.Fprintf(f, "*:*:*:*:%s\n", escaped); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, "PGPASSFILE="+f.Name())
	return func() { os.Remove(f.Name()) }, nil
}

// RunPgbench runs pgbench (from PATH) with args and the password (given
// through PassFile), and reads its figures.
func RunPgbench(args []string, password string) (Pgbench, error) {
	cmd := exec.Command("pgbench", args...)
	remove, err := PassFile(cmd, password)
	if err != nil {
		return Pgbench{}, err
	}
	defer remove()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Pgbench{}, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	tps, tx := tpsLine.FindSubmatch(out), txLine.FindSubmatch(out)
	if tps == nil || tx == nil {
		return Pgbench{}, fmt.Errorf("pgbench output not understood:\n%s", out)
	}
	p := Pgbench{Out: out, CPU: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.Usage = usageOf(ru)
	}
	p.TPS, _ = strconv.ParseFloat(string(tps[1]), 64)
	p.Txns, _ = strconv.ParseFloat(string(tx[1]), 64)
	if lag := lagLine.FindSubmatch(out); lag != nil {
		p.LagMs, _ = strconv.ParseFloat(string(lag[1]), 64)
	}
	return p, nil
}
