package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pooler"
	"github.com/tenantbench/tenantbench/internal/results"
)

// TestNoiseTableRealRun runs EDB 2026's experiment in miniature through
// the CLI on real servers (2 placements, local over the unix socket and
// remote through pgbouncer, x cpu noise 0 and 30 % x 1 and 2 clients, 2 s
// each) and reads its report: the noise table has a row per placement,
// noise level and client count, in that order, whose figures are the
// runs' results.csv values, in summary.md and report.html alike. A
// report whose runs vary none of them (the synthetic one) has no such
// table.
func TestNoiseTableRealRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs PostgreSQL servers, pgbouncer and stress-ng for about a minute")
	}
	if _, err := (pooler.PgBouncer{}).Find(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("stress-ng"); err != nil {
		t.Skip("stress-ng is not installed (Debian package stress-ng)")
	}
	work, err := os.MkdirTemp("", "tenantbench-noise-")
	must(t, err)
	must(t, os.Chmod(work, 0o755)) // the servers' unprivileged user traverses it
	t.Cleanup(func() { os.RemoveAll(work) })
	bin := filepath.Join(work, "tenantbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/tenantbench").CombinedOutput(); err != nil {
		t.Fatalf("building tenantbench: %v\n%s", err, out)
	}
	spec := filepath.Join(work, "noise.yaml")
	must(t, os.WriteFile(spec, []byte(`name: noise
sut:
  placement:
    - {name: local, transport: unix}
    - {name: remote, pooler: {kind: pgbouncer, mode: transaction, pool_size: 2}}
tenancy: {model: database, tenants: 1}
workload: {name: tpcb, scale: 1, clients: [1, 2], warmup: 1s, duration: 2s}
interference:
  - {kind: cpu, at: 0s, duration: 3s, params: {load: [0, 30]}}
`), 0o644))
	dir := filepath.Join(work, "results")
	run := exec.Command(bin, "run", spec, "--out", dir, "--monitor=false")
	run.Env = append(os.Environ(), "TMPDIR="+work)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("tenantbench run: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "report", dir).CombinedOutput(); err != nil {
		t.Fatalf("tenantbench report: %v\n%s", err, out)
	}
	rd, err := results.Open(dir)
	must(t, err)
	rows, err := rd.ReadResults()
	must(t, err)
	if len(rows) != 8 {
		t.Fatalf("%d runs, want 8", len(rows))
	}
	const load = "interference[0].load"
	find := func(place, level string, clients int) results.ResultRow {
		for _, r := range rows {
			if r.Placement == place && r.Interference[load] == level && r.Clients == clients {
				return r
			}
		}
		t.Fatalf("no run of %s, load %s, %d clients", place, level, clients)
		return results.ResultRow{}
	}
	md := readFile(t, filepath.Join(dir, Subdir, "summary.md"))
	section, ok := between(md, "## Latency by placement, noise and clients (EDB 2026)", "\n## ")
	if !ok {
		t.Fatalf("summary.md has no noise table:\n%s", md)
	}
	if want := "| placement | " + load + " | clients | n | throughput (tx/s) | latency avg (ms) | latency p95 (ms) | latency p99 (ms) | host CPU idle (%) |"; !strings.Contains(section, want) {
		t.Errorf("noise table header, want %s:\n%s", want, section)
	}
	var got []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| local ") || strings.HasPrefix(line, "| remote ") {
			got = append(got, line)
		}
	}
	var want []string
	for _, place := range []string{"local", "remote"} {
		for _, level := range []string{"0", "30"} {
			for _, clients := range []int{1, 2} {
				r := find(place, level, clients)
				if r.Status != results.StatusOK {
					t.Errorf("run %s: %s %s", r.RunID, r.Status, r.Error)
				}
				idle, ok := r.Extra["host_cpu_idle_pct"]
				if !ok {
					t.Errorf("run %s has no host_cpu_idle_pct", r.RunID)
				}
				want = append(want, "| "+strings.Join([]string{place, level, strconv.Itoa(clients), "1", fmtNum(r.TPS),
					fmtNum(r.MeanMs), fmtNum(r.P95Ms), fmtNum(r.P99Ms), fmtNum(idle)}, " | ")+" |")
			}
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("noise table rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	html := readFile(t, filepath.Join(dir, Subdir, "report.html"))
	if !strings.Contains(html, `<section id="noise-table">`) || !strings.Contains(html, `<a href="#noise-table">`) {
		t.Error("report.html has no noise table, or no link to it")
	}
	if r := find("remote", "30", 2); !strings.Contains(html, "<td class=\"num\">"+fmtNum(r.P99Ms)+"</td>") {
		t.Errorf("report.html lacks run %s's p99 %s", r.RunID, fmtNum(r.P99Ms))
	}

	// Neither clients nor noise nor placement varies: no table.
	path := synth{}.write(t)
	must(t, Write(path))
	if md := readFile(t, filepath.Join(path, Subdir, "summary.md")); strings.Contains(md, "(EDB 2026)\n\n") {
		t.Error("a report of runs that vary no client count, noise or placement has the noise table")
	}
}

// between is the text of s from the line start begins to the first end
// after it.
func between(s, start, end string) (string, bool) {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return "", false
	}
	if i := strings.Index(after, end); i >= 0 {
		after = after[:i]
	}
	return after, true
}
