package benchutil

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
)

var sysbenchTxns = regexp.MustCompile(`transactions:\s+([0-9]+)\s+\(([0-9.]+) per sec\.\)`)

// RunSysbench runs sysbench (from PATH) with args, and reads its figures
// into pgbench's form: a transaction is one of sysbench's events. The
// password is in args (sysbench has no password file): a bench tool's
// peer connects to a throwaway server the tool started.
func RunSysbench(args []string) (Pgbench, error) {
	cmd := exec.Command("sysbench", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Pgbench{}, fmt.Errorf("sysbench: %v\n%s", err, out)
	}
	m := sysbenchTxns.FindSubmatch(out)
	if m == nil {
		return Pgbench{}, fmt.Errorf("sysbench output not understood:\n%s", out)
	}
	p := Pgbench{Out: out, CPU: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.Usage = usageOf(ru)
	}
	p.Txns, _ = strconv.ParseFloat(string(m[1]), 64)
	p.TPS, _ = strconv.ParseFloat(string(m[2]), 64)
	return p, nil
}
