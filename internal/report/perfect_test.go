package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantbench/tenantbench/internal/results"
)

// TestPerfectTable writes Table IX's CDB3 scores into a synthetic results
// directory, spread over its runs, and finds them and the O-Score in the
// report and in compare; a directory without them has no such table.
func TestPerfectTable(t *testing.T) {
	plain := synth{}.write(t)
	dir := synth{}.write(t)
	scores := []map[string]string{
		{"p_score": "217002", "t_score": "75377", "e1_score": "286643"},
		{"f_score_s": "12", "r_score_s": "30"},
		{"f_score_s": "6", "r_score_s": "6"},
		{"e2_score": "4", "c_score_ms": "14"},
	}
	setColumn(t, filepath.Join(dir, "results.csv"), func(tab *results.Table, i int, col string) (string, bool) {
		if i < len(scores) {
			v, ok := scores[i][col]
			return v, ok
		}
		return "", false
	}, "c_score_ms")
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(dir, Subdir, "summary.md"))
	i := strings.Index(md, "## PERFECT scores")
	if i < 0 {
		t.Fatalf("summary.md has no PERFECT table:\n%s", md)
	}
	part := md[i+3:]
	if j := strings.Index(part, "\n## "); j >= 0 {
		part = part[:j]
	}
	for _, want := range []string{"9.000 (2)", "18.00 (2)", "| 15.92 |"} {
		if !strings.Contains(part, want) {
			t.Errorf("PERFECT table lacks %q:\n%s", want, part)
		}
	}
	if err := Write(plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, filepath.Join(plain, Subdir, "summary.md")), "PERFECT") {
		t.Error("a report without the scores has a PERFECT table")
	}
	var out bytes.Buffer
	if err := Compare(&out, []string{plain, dir}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "PERFECT scores") || !strings.Contains(out.String(), "[2] ") ||
		!strings.Contains(out.String(), "15.92") {
		t.Errorf("compare:\n%s", out.String())
	}
}
