package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// calibrateSpec has a pattern but no tau yet: calibrate is how one gets it.
const calibrateSpec = `name: cal
tenancy: {model: database, tenants: 3}
workload:
  name: tpcb
  scale: 1
  pattern: {name: high-contention, slot: 10s}
`

// TestCalibrate calibrates a tiny spec against a real server through the
// CLI: a row per step, tau >= 1 with the reason calibration stopped, a tau
// file the spec can use, and nothing left running.
func TestCalibrate(t *testing.T) {
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "cal.yaml")
	calMust(t, os.WriteFile(specPath, []byte(calibrateSpec), 0o644))
	out := filepath.Join(tmp, "tau.yaml")
	cmd := exec.Command(binary, "calibrate", specPath, "--out", out, "--warmup", "1s", "--duration", "2s", "--max", "8")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("calibrate: %v\n%s", err, b)
	}
	log := string(b)
	m := regexp.MustCompile(`(?m)^tau = (\d+) clients`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no tau in the output:\n%s", log)
	}
	tau, _ := strconv.Atoi(m[1])
	if tau < 1 || tau > 8 {
		t.Errorf("tau = %d, want 1..8", tau)
	}
	if !regexp.MustCompile(`(?m)^stopped: (throughput grew by .* less than 5\.0 %|reached the largest concurrency tried, 8, still gaining)$`).MatchString(log) {
		t.Errorf("no stopping reason in the output:\n%s", log)
	}
	rows := regexp.MustCompile(`(?m)^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\d+\s+(-|[+-][\d.]+ %)$`).FindAllStringSubmatch(log, -1)
	if len(rows) < 2 || rows[0][1] != "1" || rows[1][1] != "2" {
		t.Errorf("want a row per step, 1 and 2 clients first:\n%s", log)
	}
	if !strings.Contains(log, "workload.pattern.tau: "+m[1]) {
		t.Errorf("the output does not say what to set:\n%s", log)
	}
	var file struct {
		Tau     float64 `yaml:"tau"`
		Stopped string  `yaml:"stopped"`
		Steps   []struct {
			Clients int     `yaml:"clients"`
			TPS     float64 `yaml:"tps"`
		} `yaml:"steps"`
	}
	fb, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(fb, &file); err != nil || file.Tau != float64(tau) || file.Stopped == "" ||
		len(file.Steps) != len(rows) || file.Steps[0].TPS <= 0 {
		t.Errorf("tau file (%v):\n%s", err, fb)
	}
	// The tau found makes the spec whole.
	whole := filepath.Join(tmp, "whole.yaml")
	calMust(t, os.WriteFile(whole, []byte(strings.Replace(calibrateSpec, "slot: 10s}", "slot: 10s, tau: "+m[1]+"}", 1)), 0o644))
	if pb, err := exec.Command(binary, "plan", whole).CombinedOutput(); err != nil {
		t.Errorf("plan with the calibrated tau: %v\n%s", err, pb)
	}
	assertNoLeftovers(t, tmp)
}

// TestCalibrateInterrupt: Ctrl-C during a step stops the server and exits 1.
func TestCalibrateInterrupt(t *testing.T) {
	tmp := workRoot(t)
	specPath := filepath.Join(tmp, "cal.yaml")
	calMust(t, os.WriteFile(specPath, []byte(calibrateSpec), 0o644))
	out := filepath.Join(tmp, "tau.yaml")
	cmd := exec.Command(binary, "calibrate", specPath, "--out", out, "--warmup", "0s", "--duration", "1m")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	calMust(t, cmd.Start())
	killer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer killer.Stop()
	sc := bufio.NewScanner(stdout)
	var log strings.Builder
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "closed loop") { // the first step has started
			time.Sleep(time.Second)
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit = %v, want 1 and interrupted\n%s%s", err, log.String(), stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted calibration wrote a tau file")
	}
	assertNoLeftovers(t, tmp)
}

// TestCalibrateBadInput: a bad spec or bad flags exit 2 before anything
// starts.
func TestCalibrateBadInput(t *testing.T) {
	tmp := workRoot(t)
	bad := filepath.Join(tmp, "bad.yaml")
	calMust(t, os.WriteFile(bad, []byte("name: bad\ntenancy: {model: sharded}\nworkload: {name: tpcb, scale: 0}\n"), 0o644))
	good := filepath.Join(tmp, "good.yaml")
	calMust(t, os.WriteFile(good, []byte(calibrateSpec), 0o644))
	// Limits of the plan's checks (registry().CheckPlan), as run and plan
	// find them: tpch refuses a warmup, and stream seeds past 2^31 - 1
	// for the largest step's clients.
	tpch := filepath.Join(tmp, "tpch.yaml")
	calMust(t, os.WriteFile(tpch, []byte("name: cal\ntenancy: {model: schema}\nworkload: {name: tpch, scale: 0.01, warmup: 10s, options: {seed: 2147483606}}\n"), 0o644))
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{bad}, []string{"tenancy.model", "sharded", "workload.scale", "nothing was started"}},
		{[]string{good, "--start", "0", "--max", "20000", "--min-gain", "0", "--duration", "0s"},
			[]string{"--start 0", "--max 20000", "--min-gain 0", "--duration 0s"}},
		{[]string{good, "--step", "x"}, []string{"--step"}},
		{[]string{tpch, "--max", "64"}, []string{"workload.warmup (line 3): 10s: tpch runs each stream once", "workload.options.seed", "nothing was started"}},
	} {
		cmd := exec.Command(binary, append([]string{"calibrate", "--out", filepath.Join(tmp, "tau.yaml")}, c.args...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("calibrate %v: exit %v, want 2\n%s", c.args, err, b)
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("calibrate %v: output lacks %q:\n%s", c.args, w, b)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "tau.yaml")); err == nil {
		t.Error("bad input wrote a tau file")
	}
	assertNoLeftovers(t, tmp)
}

func calMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
