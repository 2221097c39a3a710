package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/run"
)

// runUntilProgress starts `tenantbench run` of a long spec through
// sut.network (link, as the spec writes it) and returns it once its
// workload phase reports progress, with the results directory.
func runUntilProgress(t *testing.T, tmp, link string) (*exec.Cmd, string) {
	t.Helper()
	if why := netns.Usable(context.Background(), netns.Link{}); why != "" {
		t.Skip("sut.network: " + why)
	}
	out := filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, "remote.yaml")
	os.WriteFile(specPath, []byte(`name: remote
sut: {network: `+link+`}
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 2, duration: 10m}
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() { deadline.Stop() })
	sc := bufio.NewScanner(stdout)
	var log strings.Builder
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "progress:") {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd, out
		}
	}
	cmd.Wait()
	t.Fatalf("no progress line:\n%s%s", log.String(), stderr.String())
	return nil, ""
}

// liveNetworks are the network namespaces live.json of out lists.
func liveNetworks(t *testing.T, out string) []netns.Record {
	t.Helper()
	b, err := run.ReadLive(out)
	if err != nil || b == nil {
		t.Fatalf("live.json: %v %v", b, err)
	}
	return b.Networks
}

// delayedLink is a link with a delay on the queue emulator where it can
// run (its delayer is then tenantbench's own program started again),
// else a plain one.
func delayedLink() string {
	if netns.Usable(context.Background(), netns.Link{Delay: time.Millisecond, Emulator: "queue"}) == "" {
		return "{delay: 1ms, emulator: queue}"
	}
	return "{}"
}

// TestNetworkInterrupt: Ctrl-C during a run through sut.network stops
// its servers and removes its namespace and veth pair (and the delayer
// of a delayed link).
func TestNetworkInterrupt(t *testing.T) {
	tmp := workRoot(t)
	cmd, out := runUntilProgress(t, tmp, delayedLink())
	nets := liveNetworks(t, out)
	if len(nets) != 1 || !netns.Exists(nets[0]) {
		t.Fatalf("live.json lists networks %+v while the run goes on", nets)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit = %v, want status 1", err)
	}
	if netns.Exists(nets[0]) {
		t.Errorf("namespace %s or veth %s left after Ctrl-C", nets[0].Name, nets[0].HostIf)
		netns.Remove(nets[0])
	}
	assertNoLeftovers(t, tmp)
}

// TestNetworkKillAndDown: a tenantbench killed (SIGKILL) during a run
// through sut.network leaves its namespace (and a delayed link's
// delayer), listed in live.json; down removes it, with the servers.
func TestNetworkKillAndDown(t *testing.T) {
	tmp := workRoot(t)
	cmd, out := runUntilProgress(t, tmp, delayedLink())
	nets := liveNetworks(t, out)
	if len(nets) != 1 {
		t.Fatalf("live.json lists networks %+v", nets)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Cleanup(func() { netns.Remove(nets[0]) })
	if !netns.Exists(nets[0]) {
		t.Fatalf("namespace %s gone without down: nothing for down to do", nets[0].Name)
	}
	down := exec.Command(binary, "down", out)
	down.Env = append(os.Environ(), run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	b, err := down.CombinedOutput()
	if err != nil {
		t.Fatalf("down: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), "removed network namespace "+nets[0].Name) {
		t.Errorf("down says:\n%s", b)
	}
	if netns.Exists(nets[0]) {
		t.Errorf("down left namespace %s or veth %s", nets[0].Name, nets[0].HostIf)
	}
	if d := nets[0].Delayer; d != nil {
		if !strings.Contains(string(b), "ended its delayer") {
			t.Errorf("down does not say it ended the delayer:\n%s", b)
		}
		// Its parent killed, it is init's child: a zombie until init
		// reaps it, which is gone enough.
		if st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(d.Pid), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
			t.Errorf("delayer (pid %d) still runs after down: %s", d.Pid, st)
		}
	} else if delayedLink() != "{}" {
		t.Errorf("live.json has no delayer: %+v", nets[0])
	}
	assertNoLeftovers(t, tmp)
}

// TestNetworkEnv: a short run through sut.network records the link and
// the addresses in env.json, and its servers saw their clients come from
// the host's end of the link.
func TestNetworkEnv(t *testing.T) {
	if why := netns.Usable(context.Background(), netns.Link{}); why != "" {
		t.Skip("sut.network: " + why)
	}
	tmp := workRoot(t)
	out := filepath.Join(tmp, "results")
	specPath := filepath.Join(tmp, "remote.yaml")
	os.WriteFile(specPath, []byte(`name: remote
sut: {network: {}}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: 1, duration: 2s}
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, run.RegistryEnv+"="+filepath.Join(tmp, "registry"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	var env run.Env
	b, _ := os.ReadFile(filepath.Join(out, "env.json"))
	if err := json.Unmarshal(b, &env); err != nil || env.Network == nil {
		t.Fatalf("env.json %s: %v", b, err)
	}
	n := env.Network
	if !strings.HasPrefix(n.Namespace, "tb-001-") || n.ServerAddr == "" || n.ClientAddr == "" || !strings.HasPrefix(n.Subnet, "198.51.100.") {
		t.Errorf("env.json network %+v", n)
	}
	if netns.Exists(netns.Record{Name: n.Namespace, HostIf: "tb" + n.Namespace[len(n.Namespace)-8:] + "h"}) {
		t.Errorf("namespace %s left after the run", n.Namespace)
	}
	assertNoLeftovers(t, tmp)
}
