package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteComparison: two synthetic experiments, the second with 30 %
// more throughput at every point: the comparison report says so at every
// common point with intervals that hold +30 %, draws a line per
// experiment, and lists a point only one directory has.
func TestWriteComparison(t *testing.T) {
	one := synth{repStep: 1}.write(t)
	two := synth{scale: 1.3, repStep: 1}.write(t)
	three := synth{tenants: []int{1, 2, 4}, repStep: 1}.write(t)
	out := filepath.Join(t.TempDir(), "cmp")
	if err := WriteComparison([]string{one, two, three}, out); err != nil {
		t.Fatal(err)
	}
	md := readFile(t, filepath.Join(out, "compare.md"))
	for _, want := range []string{
		"[2]'s throughput was higher than [1]'s at every one of the 4 common points, by +30 %.",
		"At schema, 1 tenant, [2]'s throughput was 30 % higher than [1]'s (95 % CI +",
		"At schema, 1 tenant, [3] and [1] showed no difference in throughput",
		"Not compared (a directory lacks the point): schema, 4 tenants (not in [1], [2])",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
	}
	svg := readFile(t, filepath.Join(out, "throughput.svg"))
	for _, series := range []string{"[1] schema", "[2] schema", "[3] database"} {
		if !strings.Contains(svg, series) {
			t.Errorf("throughput.svg has no line %q", series)
		}
	}
	for _, f := range []string{"compare.html", "throughput.png", "throughput.pdf", "latency-p99.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if got := DefaultCompareDir("/r/one/", time.Date(2026, 11, 24, 13, 5, 6, 0, time.UTC)); got != "/r/compare-20261124-130506" {
		t.Errorf("DefaultCompareDir = %s", got)
	}
	if err := WriteComparison([]string{one, t.TempDir()}, out); err == nil {
		t.Error("a directory that is not results was compared")
	}
}

// TestComparisonInChromium opens compare.html: no console error, every
// figure drawn, the findings above the first figure, a screenshot.
func TestComparisonInChromium(t *testing.T) {
	chromiumPath(t)
	one, two := synth{repStep: 1}.write(t), synth{scale: 1.3, repStep: 1, failLast: true}.write(t)
	out := filepath.Join(t.TempDir(), "cmp")
	must(t, WriteComparison([]string{one, two}, out))
	b := startBrowser(t)
	shot := filepath.Join(t.TempDir(), "compare.png")
	if keep := os.Getenv("REPORT_SCREENSHOT_DIR"); keep != "" {
		shot = filepath.Join(keep, t.Name()+".png")
	}
	check := b.open(t, filepath.Join(out, "compare.html"), shot)
	for _, e := range check.Errors {
		t.Errorf("page error: %s", e)
	}
	if check.Figures != 3 || check.Findings == 0 || check.FindingsBottom > check.FigureTop {
		t.Errorf("%d figures, %d findings ending at %.0f px, first figure at %.0f px", check.Figures, check.Findings,
			check.FindingsBottom, check.FigureTop)
	}
	for _, s := range check.SVGs {
		if s.Children == 0 || s.Width < 100 || s.Height < 50 {
			t.Errorf("figure %s is empty or tiny", s.ID)
		}
	}
}
