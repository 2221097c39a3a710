package k8stest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
)

// cleanNetwork removes the pods' veths, the bridge, the iptables rules
// and chains the kubelet and the CNI plugins made (rule by rule, so that
// what others change meanwhile is kept), tables that were not there and
// hold nothing now, and the connection tracking entries of the cluster's
// range.
func (c *Cluster) cleanNetwork() error {
	var errs []error
	if out, err := exec.Command("ip", "-o", "link", "show", "master", bridge).Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Split(l, ": "); len(f) > 1 {
				name, _, _ := strings.Cut(f[1], "@")
				_ = exec.Command("ip", "link", "del", name).Run()
			}
		}
	}
	if _, err := net.InterfaceByName(bridge); err == nil {
		if out, err := exec.Command("ip", "link", "del", bridge).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("ip link del %s: %v: %s", bridge, err, out))
		}
	}
	ours := func(s string) bool { return strings.Contains(s, "KUBE-") || strings.Contains(s, "CNI-") }
	for _, ipt := range []string{"iptables", "ip6tables"} {
		for _, t := range iptablesTables {
			out, _ := exec.Command(ipt+"-save", "-t", t).Output()
			var chains []string
			for _, l := range strings.Split(string(out), "\n") {
				switch {
				case strings.HasPrefix(l, "-A ") && ours(l):
					// iptables-save quotes as a shell would: bash splits it back.
					_ = exec.Command("bash", "-c", ipt+" -w -t "+t+" -D "+l[3:]).Run()
				case strings.HasPrefix(l, ":") && ours(l):
					chains = append(chains, strings.Fields(l[1:])[0])
				}
			}
			for _, ch := range chains {
				if c.base != nil && c.base.chains[ipt+" "+t+" "+ch] {
					continue
				}
				_ = exec.Command(ipt, "-w", "-t", t, "-F", ch).Run()
				if out, err := exec.Command(ipt, "-w", "-t", t, "-X", ch).CombinedOutput(); err != nil {
					errs = append(errs, fmt.Errorf("%s -t %s -X %s: %v: %s", ipt, t, ch, err, out))
				}
			}
			// iptables-nft cannot drop a table; nft can. A table holding
			// anything beyond the builtin chains is kept.
			if c.base != nil && !c.base.tables[ipt+" "+t] && emptyTable(ipt, t) {
				fam := map[string]string{"iptables": "ip", "ip6tables": "ip6"}[ipt]
				_ = exec.Command("nft", "delete", "table", fam, t).Run()
			}
		}
	}
	for _, dir := range []string{"-s", "-d"} {
		for _, net := range []string{PodNet, ServiceNet} {
			_ = exec.Command("conntrack", "-D", dir, net).Run()
		}
	}
	return errors.Join(errs...)
}

// emptyTable says table t exists and holds no rule and no chain but the
// builtin ones.
func emptyTable(ipt, t string) bool {
	out, err := exec.Command(ipt+"-save", "-t", t).Output()
	if err != nil || !strings.Contains(string(out), "*"+t) {
		return false
	}
	builtin := map[string]bool{"PREROUTING": true, "INPUT": true, "FORWARD": true, "OUTPUT": true, "POSTROUTING": true}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "-A") {
			return false
		}
		if strings.HasPrefix(l, ":") && !builtin[strings.Fields(l[1:])[0]] {
			return false
		}
	}
	return true
}

// verify lists what of the cluster is still on the host, against the
// baseline: nil when nothing is.
func (c *Cluster) verify() error {
	var left []string
	for _, p := range c.procs {
		select {
		case <-p.done:
		default:
			left = append(left, "process "+p.name)
		}
	}
	if s := c.shims(); len(s) > 0 {
		left = append(left, fmt.Sprintf("containerd shims %v", s))
	}
	if m := c.mounts(); len(m) > 0 {
		left = append(left, fmt.Sprintf("mounts %v", m))
	}
	if _, err := net.InterfaceByName(bridge); err == nil {
		left = append(left, "link "+bridge)
	}
	if _, err := os.Stat(c.Dir); err == nil {
		left = append(left, "directory "+c.Dir)
	}
	if c.base == nil {
		return leftErr(left)
	}
	chains, tables := ourChains()
	for ch := range chains {
		if !c.base.chains[ch] {
			left = append(left, "chain "+ch)
		}
	}
	for t := range tables {
		if !c.base.tables[t] {
			left = append(left, "table "+t)
		}
	}
	for k, v := range c.base.sysctl {
		if now, err := os.ReadFile("/proc/sys/" + k); err == nil && strings.TrimSpace(string(now)) != v {
			left = append(left, fmt.Sprintf("sysctl %s = %s (was %s)", k, strings.TrimSpace(string(now)), v))
		}
	}
	for _, p := range fixedPaths {
		if _, err := os.Lstat(p); err == nil && !c.base.paths[p] {
			left = append(left, "path "+p)
		}
	}
	for _, cg := range cgroupDirs() {
		if !c.base.cgroups[cg] {
			left = append(left, "cgroup "+cg)
		}
	}
	return leftErr(left)
}

func leftErr(left []string) error {
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("k8stest: the cluster left on the host: %s", strings.Join(left, "; "))
}
