package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freePort is a loopback address nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// scrape is /metrics at addr.
func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var committedLine = regexp.MustCompile(`(?m)^tenantbench_transactions_committed_total\{run="001",tenant="(t0[12])",txn="[^"]+"\} (\S+)$`)

// committed sums each tenant's committed transactions in a scrape.
func committed(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range committedLine.FindAllStringSubmatch(body, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] += v
	}
	return out
}

// assertPortFree: nothing listens on addr any more.
func assertPortFree(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Errorf("the metrics port %s is still taken: %v", addr, err)
		return
	}
	ln.Close()
}

// liveRun starts `run` of a 2-tenant tpcb spec with live metrics at addr
// and returns when its workload phase has printed a progress line.
func liveRun(t *testing.T, tmp, addr, duration string) (*exec.Cmd, *bufio.Scanner, *strings.Builder, *bytes.Buffer) {
	t.Helper()
	specPath := filepath.Join(tmp, "live.yaml")
	os.WriteFile(specPath, []byte(`name: live
tenancy: {model: database, tenants: 2}
workload: {name: tpcb, scale: 1, clients: 1, duration: `+duration+`}
progress: 1s
`), 0o644)
	cmd := exec.Command(binary, "run", specPath, "--out", filepath.Join(tmp, "results"), "--metrics-addr", addr)
	cmd.Env = registryEnv(tmp)
	stdout, _ := cmd.StdoutPipe()
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() { deadline.Stop() })
	sc := bufio.NewScanner(stdout)
	log := &strings.Builder{}
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "progress:") {
			return cmd, sc, log, stderr
		}
	}
	cmd.Wait()
	t.Fatalf("the run printed no progress line\n%s%s", log, stderr)
	return nil, nil, nil, nil
}

// TestLiveMetrics: a scrape during a run's workload phase has every
// tenant's series, rising from one scrape to the next, the instance's
// CPU and memory and the run's phase; when the run ends the port is free.
func TestLiveMetrics(t *testing.T) {
	tmp := workRoot(t)
	addr := freePort(t)
	cmd, sc, log, stderr := liveRun(t, tmp, addr, "8s")
	first := scrape(t, addr)
	time.Sleep(2500 * time.Millisecond)
	second := scrape(t, addr)
	before, after := committed(t, first), committed(t, second)
	for _, tenant := range []string{"t01", "t02"} {
		if after[tenant] <= before[tenant] {
			t.Errorf("tenant %s: committed %v, then %v 2.5 s later: want it rising", tenant, before[tenant], after[tenant])
		}
	}
	for _, want := range []string{
		`tenantbench_run_phase{phase="workload",run="001"} 1`,
		`tenantbench_run_info{case="",engine="postgres",model="database",run="001",workload="tpcb"} 1`,
		`tenantbench_transaction_latency_seconds_bucket{run="001",tenant="t02"`,
		`tenantbench_instance_cpu_seconds_total{instance=`,
		`tenantbench_instance_memory_bytes{instance=`,
	} {
		if !strings.Contains(second, want) {
			t.Errorf("the scrape lacks %s:\n%s", want, second)
		}
	}
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s%s", err, log, stderr)
	}
	if !strings.Contains(log.String(), "live metrics: http://"+addr+"/metrics") {
		t.Errorf("the run does not say where its metrics are:\n%s", log)
	}
	assertPortFree(t, addr)
	assertNoLeftovers(t, tmp)
}

// TestLiveMetricsInterrupted: a run cut by Ctrl-C frees the port too.
func TestLiveMetricsInterrupted(t *testing.T) {
	tmp := workRoot(t)
	addr := freePort(t)
	cmd, sc, log, stderr := liveRun(t, tmp, addr, "10m")
	scrape(t, addr)
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit = %v, want status 1\n%s%s", err, log, stderr)
	}
	assertPortFree(t, addr)
	assertNoLeftovers(t, tmp)
}

// TestLiveMetricsBadAddr: an address without a host, or a busy port, is
// bad input, refused before anything starts.
func TestLiveMetricsBadAddr(t *testing.T) {
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "live.yaml")
	os.WriteFile(specPath, []byte("name: live\ntenancy: {model: database, tenants: 2}\nworkload: {name: tpcb, scale: 1, clients: 1, duration: 2s}\n"), 0o644)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for addr, want := range map[string]string{
		":9464":                     "names no host",
		"127.0.0.1:99999":           "from 1 to 65535",
		busy.Addr().String():        "address already in use",
		"no-such-host.invalid:9464": "--metrics-addr",
	} {
		out := filepath.Join(tmp, "results-"+strconv.Itoa(len(want)))
		cmd := exec.Command(binary, "run", specPath, "--out", out, "--metrics-addr", addr)
		cmd.Env = registryEnv(tmp)
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), want) || !strings.Contains(string(b), "--metrics-addr") {
			t.Errorf("--metrics-addr %s: exit %v, want status 2 and %q:\n%s", addr, err, want, b)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--metrics-addr %s: the results directory was made", addr)
		}
	}
	assertNoLeftovers(t, tmp)
}
