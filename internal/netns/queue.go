package netns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"github.com/tenantbench/tenantbench/internal/cgroup"
)

// queue is the emulator for kernels without netem: iptables rules in the
// namespace (the host's firewall is untouched) send the packets that
// cross the namespace's veth end, in each direction, to an NFQUEUE of
// their own, served by a delayer process (delayer.go) that holds each
// packet until its departure and then accepts it, or drops it with the
// link's loss. A rate is an HTB class on each end's egress.
//
// No --queue-bypass: were the delayer to die, the kernel would pass the
// packets undelayed and the run would measure a link it did not ask
// for. Without a reader the queue drops them instead, and the Net tells
// its owner (Died) so that the run fails saying why, rather than
// timing out.
type queue struct{}

// queueBase is the first NFQUEUE number; each Net takes two from its /30.
const queueBase = 0x7462

// delays says whether the link needs the delayer, not only a rate.
func (l Link) delays() bool { return l.Delay > 0 || l.Jitter > 0 || l.Loss > 0 }

func (queue) usable(ctx context.Context, link Link) string {
	if link.delays() {
		if _, err := lookPath("iptables"); err != nil {
			return "iptables not found: install iptables"
		}
		if _, err := os.Executable(); err != nil {
			return "cannot find tenantbench's own program to start the delayer: " + err.Error()
		}
	}
	rec, remove, why := probeNamespace(ctx)
	if why != "" {
		return why
	}
	defer remove()
	if link.delays() {
		if err := run(ctx, "ip", "netns", "exec", rec.Name, "iptables", "-w", "-t", "mangle", "-A", "POSTROUTING",
			"-o", "lo", "-j", "NFQUEUE", "--queue-num", strconv.Itoa(queueBase)); err != nil {
			return "iptables cannot send packets to an NFQUEUE (CONFIG_NETFILTER_XT_TARGET_NFQUEUE): " + err.Error()
		}
	}
	if link.Rate > 0 {
		if err := run(ctx, "tc", "-n", rec.Name, "qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb", "default", "1"); err != nil {
			return "tc cannot put an HTB qdisc on a link (CONFIG_NET_SCH_HTB): " + err.Error()
		}
	}
	return ""
}

func (queue) describe() string {
	return "iptables NFQUEUE rules in the namespace and a delayer process hold each packet for delay ± jitter (uniform) and drop the loss; " +
		"each direction keeps its order (netem would reorder under jitter); a rate is HTB on each end"
}

func (queue) start(ctx context.Context, n *Net, note func(Record)) error {
	if n.Link.delays() {
		// The queues are served before any rule sends a packet there.
		if err := n.startDelayer(ctx, note); err != nil {
			return err
		}
		q := func(num int) string { return strconv.Itoa(num) }
		for _, rule := range [][]string{
			{"PREROUTING", "-i", n.NSIf, "-j", "NFQUEUE", "--queue-num", q(n.Queue)},
			{"POSTROUTING", "-o", n.NSIf, "-j", "NFQUEUE", "--queue-num", q(n.Queue + 1)},
		} {
			args := append([]string{"netns", "exec", n.Name, "iptables", "-w", "-t", "mangle", "-A"}, rule...)
			if err := run(ctx, "ip", args...); err != nil {
				return err
			}
		}
	}
	if n.Link.Rate > 0 {
		rate := strconv.FormatInt(n.Link.Rate, 10) + "bit"
		for _, ns := range [][]string{{"dev", n.HostIf}, {"-n", n.Name, "dev", n.NSIf}} {
			dev := ns[len(ns)-1]
			pre := []string{"tc"}
			if ns[0] == "-n" {
				pre = append(pre, "-n", n.Name)
			}
			if err := run(ctx, pre[0], append(pre[1:], "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")...); err != nil {
				return err
			}
			if err := run(ctx, pre[0], append(pre[1:], "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delayer is the queue emulator's process, as the ledger records it.
type Delayer struct {
	Pid        int    `json:"pid"`
	Start      uint64 `json:"start"` // its start time (/proc/<pid>/stat)
	Cgroup     string `json:"cgroup,omitempty"`
	CgroupMode string `json:"cgroup_mode,omitempty"`
	// Dir holds its status file and log ("tenantbench-netns-*").
	Dir string `json:"dir"`
}

// delayerProc is the running delayer of a Net this process made.
type delayerProc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when it has exited
	died   chan struct{} // closed when it exited unasked
	asked  chan struct{} // closed when it is asked to end
	err    error         // why it died, once died is closed
	final  *DelayerStatus
}

func (d *Delayer) statusFile() string { return filepath.Join(d.Dir, "status.json") }
func (d *Delayer) logFile() string    { return filepath.Join(d.Dir, "delayer.log") }

// startDelayer starts the delayer inside the namespace, in a cgroup of
// its own (/tenantbench/<namespace>/delayer, but for v1's cpu controller)
// so that its CPU is accounted apart from tenantbench's and the servers',
// in a process group of its own and
// without a parent-death signal: a kept run's servers stay reachable
// after tenantbench ends, and `down` ends it from the ledger. It returns
// once both queues are served.
func (n *Net) startDelayer(ctx context.Context, note func(Record)) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("the delayer's program: %w", err)
	}
	dir, err := os.MkdirTemp("", "tenantbench-netns-")
	if err != nil {
		return err
	}
	d := &Delayer{Dir: dir}
	n.Delayer = d
	note(n.Record)
	var g *cgroup.Group
	// Not below /tenantbench in v1's cpu hierarchy: there its wake-ups
	// would wait behind the servers (WithoutCPUController); cpuacct
	// still counts its CPU apart.
	if sys := cgroup.Detect().WithoutCPUController(); sys.Mode != cgroup.None {
		path, err := cgroup.GroupPath(n.Name, "delayer")
		if err != nil {
			return err
		}
		d.Cgroup, d.CgroupMode = path, string(sys.Mode)
		note(n.Record)
		if g, err = sys.Create(path, cgroup.Limits{}); err != nil {
			return err
		}
	}
	log, err := os.Create(d.logFile())
	if err != nil {
		return err
	}
	defer log.Close()
	cmd, done, err := g.Command(exe, delayerArg, "-queue", strconv.Itoa(n.Queue),
		"-delay", n.Link.Delay.String(), "-jitter", n.Link.Jitter.String(),
		"-loss", strconv.FormatFloat(n.Link.Loss, 'g', -1, 64), "-status", d.statusFile())
	if err != nil {
		return err
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Stdout, cmd.Stderr = log, log
	err = n.Start(cmd)
	done()
	if err != nil {
		return fmt.Errorf("start the delayer: %w", err)
	}
	d.Pid, d.Start = cmd.Process.Pid, startTime(cmd.Process.Pid)
	note(n.Record)
	p := &delayerProc{cmd: cmd, exited: make(chan struct{}), died: make(chan struct{}), asked: make(chan struct{})}
	n.proc = p
	go func() {
		werr := cmd.Wait()
		select {
		case <-p.asked:
		default:
			p.err = fmt.Errorf("the delayer of network namespace %s (pid %d) exited (%v): %s", n.Name, d.Pid, werr, tail(d.logFile()))
			close(p.died)
		}
		close(p.exited)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if st, err := readStatus(d.statusFile()); err == nil && st.Ready {
			return nil
		}
		select {
		case <-p.died:
			return p.err
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the delayer (pid %d) did not serve its queues within 10 s: %s", d.Pid, tail(d.logFile()))
		}
	}
}

// stop ends the delayer (SIGTERM, then SIGKILL after 5 s) and keeps its
// last counts.
func (p *delayerProc) stop(d *Delayer) {
	select {
	case <-p.asked:
	default:
		close(p.asked)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	if st, err := readStatus(d.statusFile()); err == nil {
		p.final = &st
	}
}

// Died is closed when the Net's delayer exits without being asked to
// (DelayerErr says why): from then on the link drops every packet. Nil,
// never closed, for a Net without a delayer.
func (n *Net) Died() <-chan struct{} {
	if n.proc == nil {
		return nil
	}
	return n.proc.died
}

// DelayerErr says why the delayer died, nil while it runs.
func (n *Net) DelayerErr() error {
	if n.proc == nil {
		return nil
	}
	select {
	case <-n.proc.died:
		return n.proc.err
	default:
		return nil
	}
}

// DelayerCounts are the delayer's counts so far (its last, once the Net
// is removed); false for a Net without one, or before it wrote any.
func (n *Net) DelayerCounts() (DelayerStatus, bool) {
	if n.proc == nil {
		return DelayerStatus{}, false
	}
	if n.proc.final != nil {
		return *n.proc.final, true
	}
	st, err := readStatus(n.Delayer.statusFile())
	return st, err == nil
}

// endDelayer ends a recorded delayer from any process (down): SIGKILL of
// its process group if its pid still is that process (start time), its
// cgroup removed (which kills what is left in it), its directory
// removed.
func endDelayer(d *Delayer) error {
	var errs []error
	if d.Pid > 0 && d.Start != 0 && startTime(d.Pid) == d.Start {
		_ = syscall.Kill(-d.Pid, syscall.SIGKILL)
		_ = syscall.Kill(d.Pid, syscall.SIGKILL)
		for i := 0; i < 250 && startTime(d.Pid) == d.Start; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if d.Cgroup != "" {
		sys := cgroup.Detect()
		if string(sys.Mode) != d.CgroupMode {
			errs = append(errs, fmt.Errorf("the delayer's cgroup %s is %s, this machine's %s", d.Cgroup, d.CgroupMode, sys.Mode))
		} else if err := sys.WithoutCPUController().Open(d.Cgroup).Remove(10 * time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	if d.Dir != "" {
		if !filepath.IsAbs(d.Dir) || !strings.HasPrefix(filepath.Base(d.Dir), "tenantbench-netns-") {
			errs = append(errs, fmt.Errorf("%s is not a delayer's directory; not removing it", d.Dir))
		} else if err := os.RemoveAll(d.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// startTime is a process's start time in clock ticks since boot, 0 when
// it is gone: with the pid, it names one process.
func startTime(pid int) uint64 {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0
	}
	st, err := p.Stat()
	if err != nil || st.State == "Z" {
		return 0
	}
	return st.Starttime
}

// tail is the end of a log file, for an error message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "no log: " + err.Error()
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return "its log " + path + " is empty"
	}
	return s
}

// lookPath finds a program in PATH or root's directories.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(d, name); exists(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
