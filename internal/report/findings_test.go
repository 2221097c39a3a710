package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/plan"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// synthExperiment is an experiment of two models at tenant counts, each
// point's repetitions given as throughputs (a negative one failed).
func synthExperiment(tps map[string]map[int][]float64, models []string, counts []int) *experiment {
	e := &experiment{}
	id := 0
	for _, m := range models {
		for _, n := range counts {
			for rep, v := range tps[m][n] {
				id++
				row := results.ResultRow{RunID: fmt.Sprintf("%03d", id), Model: m, Tenants: n, Scale: 1, Clients: 2,
					Repetition: rep + 1, Status: results.StatusOK, TPS: v, P99Ms: 1000 / v, Settings: map[string]string{},
					Extra: map[string]float64{}}
				if v < 0 {
					row.Status, row.Error, row.TPS = results.StatusFailed, "phase workload: synthetic failure", 0
				}
				e.runs = append(e.runs, &run{row: row})
			}
		}
	}
	e.vary = varyOf(e.runs)
	e.points = groupPoints(e.runs, e.vary)
	return e
}

func findingsText(fs []finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Kind + ": " + f.Text + "\n")
	}
	return b.String()
}

// TestFindings: a 30 % difference with low noise is a difference with a CI
// holding 30 %; equal means with noise are "no difference"; one repetition
// is "no uncertainty known"; a failed run is a finding.
func TestFindings(t *testing.T) {
	e := synthExperiment(map[string]map[int][]float64{
		"database": {1: {1000, 1010, 990}, 4: {2000, 2200, 1800}, 8: {3000}},
		"instance": {1: {1300, 1313, 1287}, 4: {1950, 2150, 2000}, 8: {3500, -1}},
	}, []string{"database", "instance"}, []int{1, 4, 8})
	got := e.findings()
	text := findingsText(got)
	want := []string{
		"difference: At 1 tenant, `instance` gave 30 % more throughput than `database` (95 % CI +",
		"same: At 4 tenants, `instance` and `database` showed no difference in throughput beyond the run-to-run noise (CV up to 10 %",
		"unknown: At 8 tenants, `instance` gave 17 % more throughput than `database`; one repetition: no uncertainty known.",
		"trend: Throughput changed from 1 to 8 tenants by 3.0x in `database`, 2.7x in `instance`.",
		"failure: 1 of 15 runs failed; the first, run 015: phase workload: synthetic failure",
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("findings lack %q:\n%s", w, text)
		}
	}
	for _, f := range got {
		if f.Kind == "difference" {
			lo, hi := ciOf(t, f.Text)
			if lo > 30 || hi < 30 {
				t.Errorf("the CI %v..%v does not hold 30 %%: %s", lo, hi, f.Text)
			}
		}
	}
}

// ciOf reads "CI +a % to +b %" from a finding.
func ciOf(t *testing.T, s string) (lo, hi float64) {
	t.Helper()
	i := strings.Index(s, "CI ")
	if i < 0 {
		t.Fatalf("no CI in %q", s)
	}
	var a, b float64
	if _, err := fmt.Sscanf(s[i:], "CI +%g %% to +%g %%", &a, &b); err != nil {
		t.Fatalf("CI of %q: %v", s, err)
	}
	return a, b
}

// TestFindingsNothingVaries: one point, every run ok: no finding.
func TestFindingsNothingVaries(t *testing.T) {
	e := synthExperiment(map[string]map[int][]float64{"schema": {2: {100, 110}}}, []string{"schema"}, []int{2})
	if fs := e.findings(); len(fs) != 0 {
		t.Errorf("findings of a single point: %s", findingsText(fs))
	}
}

// TestFindingsPaired: with the runs in rounds, a 5 % effect under a 10 %
// drift per round is a difference paired within rounds, where the
// unpaired comparison would see only noise.
func TestFindingsPaired(t *testing.T) {
	tps := map[string]map[int][]float64{
		"database": {2: {1000, 1100, 1200}},
		"instance": {2: {1050, 1160, 1255}},
	}
	e := synthExperiment(tps, []string{"database", "instance"}, []int{2})
	if text := findingsText(e.findings()); !strings.Contains(text, "same: At 2 tenants") {
		t.Errorf("blocked: want no difference beyond the noise:\n%s", text)
	}
	e.plan = &plan.Plan{Order: spec.OrderInterleaved}
	text := findingsText(e.findings())
	if !strings.Contains(text, "difference: At 2 tenants, `instance` gave 5.0 % more throughput than `database`") ||
		!strings.Contains(text, "paired within 3 rounds") {
		t.Errorf("interleaved: want a paired difference:\n%s", text)
	}
}

// TestFaultFindings: a point whose runs had faults gets a sentence with
// the mean F- and R-Score.
func TestFaultFindings(t *testing.T) {
	e := synthExperiment(map[string]map[int][]float64{"schema": {2: {100, 110}}}, []string{"schema"}, []int{2})
	e.runs[0].row.Extra["f_score_s"], e.runs[1].row.Extra["f_score_s"] = 1.5, 2.5
	e.runs[0].row.Extra["r_score_s"], e.runs[1].row.Extra["r_score_s"] = 4, 6
	text := findingsText(e.findings())
	if !strings.Contains(text, "In schema, 2 tenants, service resumed 2.00 s after a fault on average (F-Score, 2 run(s)), and throughput was back 5.00 s after that (R-Score).") {
		t.Errorf("findings:\n%s", text)
	}
}

// TestSLAFindings: a point some of whose tenants missed their SLA is a
// finding.
func TestSLAFindings(t *testing.T) {
	e := synthExperiment(map[string]map[int][]float64{"schema": {3: {100, 110}}}, []string{"schema"}, []int{3})
	met, two, three := false, 2, 3
	yes := true
	e.runs[0].summary = &results.Summary{Provider: results.Aggregate{SLAMet: &met, SLAMetTenants: &two}}
	e.runs[1].summary = &results.Summary{Provider: results.Aggregate{SLAMet: &yes, SLAMetTenants: &three}}
	text := findingsText(e.findings())
	if !strings.Contains(text, "failure: At schema, 3 tenants, some tenant missed its SLA in 1 of 2 run(s): 5 of 6 tenant runs met it.") {
		t.Errorf("findings:\n%s", text)
	}
}

// TestDriverFinding: a run whose driver took over a quarter of the host's
// CPU is a finding.
func TestDriverFinding(t *testing.T) {
	e := synthExperiment(map[string]map[int][]float64{"schema": {2: {100, 110}}}, []string{"schema"}, []int{2})
	e.runs[1].row.Extra["driver_cpu_share"] = 0.4
	if text := findingsText(e.findings()); !strings.Contains(text, "failure: The driver used more than 25 % of the host's CPU in run 002 (40 %)") {
		t.Errorf("findings:\n%s", text)
	}
}

// TestInterferencePoints: runs that differ only in a list-valued
// interference param (a cpu load of 0, 30, 40) are three points, which
// the findings compare against the first value like any dimension.
func TestInterferencePoints(t *testing.T) {
	e := &experiment{}
	id := 0
	for _, load := range []struct {
		v   string
		tps float64
	}{{"0", 1000}, {"30", 700}, {"40", 600}} {
		for rep, noise := range []float64{1, 1.01, 0.99} {
			id++
			e.runs = append(e.runs, &run{row: results.ResultRow{RunID: fmt.Sprintf("%03d", id), Model: "schema", Tenants: 2,
				Scale: 1, Clients: 2, Repetition: rep + 1, Status: results.StatusOK, TPS: load.tps * noise, P99Ms: 1,
				Settings: map[string]string{}, Interference: map[string]string{"interference[0].load": load.v},
				Extra: map[string]float64{}}})
		}
	}
	e.vary = varyOf(e.runs)
	e.points = groupPoints(e.runs, e.vary)
	if len(e.points) != 3 || e.points[1].series != "schema, interference[0].load=30" {
		var labels []string
		for _, p := range e.points {
			labels = append(labels, p.label)
		}
		t.Fatalf("points %q", labels)
	}
	text := findingsText(e.findings())
	if !strings.Contains(text, "`interference[0].load=30` gave 30 % less throughput than `interference[0].load=0`") {
		t.Errorf("findings do not compare the noise levels:\n%s", text)
	}
}

// TestRank: failures open the list however many there are, then the
// differences largest first, the trends, single repetitions and the points
// within the noise; past shownFindings the rest fold away, in that order.
func TestRank(t *testing.T) {
	var fs []finding
	for i := range 6 {
		fs = append(fs, finding{Text: fmt.Sprintf("same %d", i), Kind: "same"})
	}
	for i, size := range []float64{0.05, 0.40, 0.10, 0.25, 0.01, 0.30, 0.20, 0.15, 0.35, 0.45} {
		fs = append(fs, finding{Text: fmt.Sprintf("difference %d", i), Kind: "difference", Size: size})
	}
	fs = append(fs, finding{Text: "trend", Kind: "trend"}, finding{Text: "failure 0", Kind: "failure"},
		finding{Text: "unknown", Kind: "unknown", Size: 0.9}, finding{Text: "failure 1", Kind: "failure"})

	top, rest := rank(fs)
	if len(top) != shownFindings || len(top)+len(rest) != len(fs) {
		t.Fatalf("rank gave %d + %d findings of %d, want %d first", len(top), len(rest), len(fs), shownFindings)
	}
	want := []string{"failure 0", "failure 1", "difference 9", "difference 1", "difference 8", "difference 5",
		"difference 3", "difference 6", "difference 7", "difference 2", "difference 0", "difference 4"}
	for i, f := range top {
		if f.Text != want[i] {
			t.Fatalf("top[%d] = %q, want %q (top: %v)", i, f.Text, want[i], top)
		}
	}
	if rest[0].Text != "trend" || rest[1].Text != "unknown" || rest[2].Text != "same 0" {
		t.Fatalf("rest begins %q, %q, %q; want trend, unknown, same 0", rest[0].Text, rest[1].Text, rest[2].Text)
	}

	// More failures than shownFindings: every one shows.
	var many []finding
	for i := range shownFindings + 3 {
		many = append(many, finding{Text: fmt.Sprint(i), Kind: "failure"}, finding{Text: "d", Kind: "difference", Size: 1})
	}
	if top, _ := rank(many); len(top) != shownFindings+3 || top[len(top)-1].Kind != "failure" {
		t.Fatalf("with %d failures the first list has %d findings, the last a %s", shownFindings+3, len(top), top[len(top)-1].Kind)
	}
	if top, rest := rank(fs[:5]); len(top) != 5 || rest != nil {
		t.Fatalf("5 findings: %d first, %d folded; want all first", len(top), len(rest))
	}
}

// TestMoreFindingsRender: what rank folds away is in report.html under a
// details element, and in the comparison's Markdown.
func TestMoreFindingsRender(t *testing.T) {
	more := []finding{{Text: "a `folded` finding", Kind: "same", Links: []link{{"#fig-x", "figure"}}}}
	html, err := renderHTML(&page{Name: "n", Findings: []finding{{Text: "first", Kind: "difference"}}, MoreFindings: more, Failed: &table{}, Env: &table{}, Plan: &table{}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "<details><summary>1 more findings") || !strings.Contains(string(html), "<code>folded</code>") {
		t.Fatalf("report.html lacks the folded finding:\n%s", html)
	}
	md := string((&comparePage{Findings: []finding{{Text: "first"}}, MoreFindings: more}).markdown())
	if !strings.Contains(md, "<details><summary>1 more findings") || !strings.Contains(md, "- a `folded` finding") {
		t.Fatalf("compare.md lacks the folded finding:\n%s", md)
	}
	if _, err := (&comparePage{Findings: []finding{{Text: "first"}}, MoreFindings: more}).html(); err != nil {
		t.Fatal(err)
	}
}
