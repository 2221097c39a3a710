package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealRunInChromium runs a tiny experiment through the CLI (2 models
// x 1 and 2 tenants, 3 s each, real PostgreSQL servers), renders its
// report with `tenantbench report` and opens it in Chromium.
func TestRealRunInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs PostgreSQL servers for about half a minute")
	}
	chromiumPath(t) // skip before spending the run when there is no browser
	// The servers run as an unprivileged user when the test runs as
	// root: their work directories go under a root it can traverse.
	work, err := os.MkdirTemp("", "tenantbench-report-")
	must(t, err)
	must(t, os.Chmod(work, 0o755))
	t.Cleanup(func() { os.RemoveAll(work) })
	bin := filepath.Join(work, "tenantbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/tenantbench").CombinedOutput(); err != nil {
		t.Fatalf("building tenantbench: %v\n%s", err, out)
	}
	spec := filepath.Join(work, "tiny.yaml")
	must(t, os.WriteFile(spec, []byte(`name: tiny
tenancy: {model: [schema, instance], tenants: [1, 2]}
workload: {name: tpcb, scale: 1, clients: 2, warmup: 1s, duration: 3s}
`), 0o644))
	results := filepath.Join(work, "results")
	run := exec.Command(bin, "run", spec, "--out", results)
	run.Env = append(os.Environ(), "TMPDIR="+work)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("tenantbench run: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "report", results).CombinedOutput()
	if err != nil || !strings.Contains(string(out), filepath.Join(results, Subdir, "report.html")) {
		t.Fatalf("tenantbench report: %v\n%s", err, out)
	}
	checkInBrowser(t, results)

	html := readFile(t, filepath.Join(results, Subdir, "report.html"))
	for _, id := range []string{"throughput", "latency-mean", "latency-p99", "fairness", "tenant-throughput",
		"throughput-time", "phases"} {
		if !strings.Contains(html, `<figure id="fig-`+id+`">`) {
			t.Errorf("report.html lacks figure %s", id)
		}
	}
	// One repetition: the figures about spread say why they are missing.
	if !strings.Contains(html, needRepeat) {
		t.Error("report.html does not say the repetition figures need repeat: 2")
	}

	// compare against itself: every ratio is 1.
	cmp, err := exec.Command(bin, "compare", results, results).CombinedOutput()
	if err != nil {
		t.Fatalf("tenantbench compare: %v\n%s", err, cmp)
	}
	for _, line := range strings.Split(string(cmp), "\n") {
		if f := strings.Fields(line); strings.Contains(line, "Throughput") && f[len(f)-1] != "1.000" {
			t.Errorf("compare of a directory with itself: %q", line)
		}
	}
	for _, arg := range []string{work, filepath.Join(work, "nope")} {
		c := exec.Command(bin, "report", arg)
		b, _ := c.CombinedOutput()
		if c.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "not a tenantbench results directory") {
			t.Errorf("report %s: exit %d, %s; want 2 and a clear message", arg, c.ProcessState.ExitCode(), b)
		}
	}
	// Nothing the run started may outlive it.
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), work) {
			t.Errorf("a process still runs from %s: %s", work, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}
