package report

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// comparison of several experiments (the compare report): each
// directory's points, labelled alike, matched by label.
type comparisonSet struct {
	dirs   []string
	exps   []*experiment
	byDir  []map[string]*point
	order  []string // every label, in order of appearance
	merged *experiment
}

// loadComparison reads dirs and labels their points with the dimensions
// that vary across all of them, so that the same point has the same label
// in each; merged holds every point, its series prefixed "[i]".
func loadComparison(dirs []string) (*comparisonSet, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no directory given", ErrNotResults)
	}
	c := &comparisonSet{dirs: dirs, merged: &experiment{name: "compare"}}
	var all []*run
	for _, d := range dirs {
		e, err := load(d)
		if err != nil {
			return nil, err
		}
		c.exps = append(c.exps, e)
		all = append(all, e.runs...)
	}
	v := varyOf(all)
	for i, e := range c.exps {
		m := map[string]*point{}
		for _, p := range groupPoints(e.runs, v) {
			if !contains(c.order, p.label) {
				c.order = append(c.order, p.label)
			}
			m[p.label] = p
			tagged := *p
			tagged.series = fmt.Sprintf("[%d] %s", i+1, p.series)
			tagged.label = tagged.series + ", " + tenantsLabel(p.tenants)
			c.merged.points = append(c.merged.points, &tagged)
		}
		c.byDir = append(c.byDir, m)
	}
	c.merged.runs, c.merged.vary = all, v
	return c, nil
}

// findings compare each directory with the first at every point both
// have, in throughput and p99 latency, over their successful
// repetitions (Welch's interval: two experiments share no rounds), and
// say when one direction holds at every common point.
func (c *comparisonSet) findings() []finding {
	var out []finding
	for i := 1; i < len(c.exps); i++ {
		for _, m := range []metric{mThroughput, mP99} {
			var ratios []metrics.Comparison
			var per []finding
			for _, label := range c.order {
				a, b := c.byDir[0][label], c.byDir[i][label]
				if a == nil || b == nil {
					continue
				}
				av, bv := values(a.runs, m), values(b.runs, m)
				if len(av) == 0 || len(bv) == 0 {
					continue
				}
				r, err := metrics.Unpaired(av, bv, confidence)
				if err != nil {
					continue
				}
				ratios = append(ratios, r)
				per = append(per, c.pointFinding(i, label, m, r))
			}
			if s, ok := c.everywhere(i, m, ratios); ok {
				out = append(out, s)
			}
			out = append(out, per...)
		}
	}
	if missing := c.notCompared(); len(missing) > 0 {
		out = append(out, finding{Text: "Not compared (a directory lacks the point): " + strings.Join(missing, "; ") + ".",
			Kind: "unknown"})
	}
	for i, e := range c.exps {
		for _, f := range e.failureFindings() {
			f.Text = fmt.Sprintf("[%d] %s", i+1, f.Text)
			f.Links = nil
			out = append(out, f)
		}
	}
	return out
}

// pointFinding states directory i against the first at one point.
func (c *comparisonSet) pointFinding(i int, label string, m metric, r metrics.Comparison) finding {
	what := strings.ToLower(m.title)
	links := []link{{"#fig-" + figureOf(m), "figure"}}
	switch {
	case math.IsNaN(r.Low):
		return finding{Text: fmt.Sprintf("At %s, [%d]'s %s was %s [1]'s; one repetition: no uncertainty known.",
			label, i+1, what, ratioWords(r.Ratio)), Kind: "unknown", Links: links, Size: math.Abs(r.Ratio - 1)}
	case r.Differs():
		return finding{Text: fmt.Sprintf("At %s, [%d]'s %s was %s [1]'s (%.0f %% CI %s to %s).",
			label, i+1, what, ratioWords(r.Ratio), confidence*100, signedPct(r.Low-1), signedPct(r.High-1)),
			Kind: "difference", Links: links, Size: math.Abs(r.Ratio - 1)}
	}
	return finding{Text: fmt.Sprintf("At %s, [%d] and [1] showed no difference in %s beyond the run-to-run noise (%.0f %% CI %s to %s).",
		label, i+1, what, confidence*100, signedPct(r.Low-1), signedPct(r.High-1)), Kind: "same", Links: links}
}

// everywhere is the sentence for a direction that holds at every common
// point, each a difference: "[2]'s throughput was higher at every common
// point, by +9 % to +15 %."
func (c *comparisonSet) everywhere(i int, m metric, rs []metrics.Comparison) (finding, bool) {
	if len(rs) < 2 {
		return finding{}, false
	}
	up, down := 0, 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		switch {
		case r.Differs() && r.Ratio > 1:
			up++
		case r.Differs() && r.Ratio < 1:
			down++
		}
		lo, hi = math.Min(lo, r.Ratio), math.Max(hi, r.Ratio)
	}
	word := ""
	switch len(rs) {
	case up:
		word = "higher"
	case down:
		word = "lower"
	default:
		return finding{}, false
	}
	by := signedPct(lo-1) + " to " + signedPct(hi-1)
	if signedPct(lo-1) == signedPct(hi-1) {
		by = signedPct(lo - 1)
	}
	// It sums up the points, so it ranks above each of them.
	return finding{Text: fmt.Sprintf("[%d]'s %s was %s than [1]'s at every one of the %d common points, by %s.",
		i+1, strings.ToLower(m.title), word, len(rs), by), Kind: "difference", Links: []link{{"#fig-" + figureOf(m), "figure"}},
		Size: math.Inf(1)}, true
}

func ratioWords(r float64) string {
	if r >= 1 {
		return pct(r-1) + " higher than"
	}
	return pct(1-r) + " lower than"
}

// notCompared are the points some directory lacks.
func (c *comparisonSet) notCompared() []string {
	var out []string
	for _, label := range c.order {
		var lack []string
		for i := range c.exps {
			if c.byDir[i][label] == nil {
				lack = append(lack, fmt.Sprintf("[%d]", i+1))
			}
		}
		if len(lack) > 0 {
			out = append(out, label+" (not in "+strings.Join(lack, ", ")+")")
		}
	}
	return out
}

// DefaultCompareDir is where WriteComparison writes when no directory is
// given: compare-<UTC time> beside the first results directory.
func DefaultCompareDir(first string, now time.Time) string {
	return filepath.Join(filepath.Dir(filepath.Clean(first)), "compare-"+now.UTC().Format("20060102-150405"))
}

// WriteComparison writes the comparison report of dirs into out:
// compare.html (self-contained), compare.md and every figure as SVG, PNG
// and PDF, one line per experiment and series. The error wraps
// ErrNotResults when an argument is not a results directory.
func WriteComparison(dirs []string, out string) error {
	c, err := loadComparison(dirs)
	if err != nil {
		return err
	}
	top, more := rank(c.findings())
	p := &comparePage{Findings: top, MoreFindings: more, Generated: time.Now().UTC().Format("2006-01-02 15:04:05 MST")}
	for i, e := range c.exps {
		p.Dirs = append(p.Dirs, fmt.Sprintf("[%d] %s: %s, %s", i+1, dirs[i], e.name, e.counts()))
	}
	for _, m := range []metric{mThroughput, mMeanLat, mP99} {
		p.Figures = append(p.Figures, c.merged.byTenants(figureOf(m), m, m.title+" against tenants, by experiment",
			"results.csv "+m.key+" of each results directory; [n] marks the directory."))
	}
	var tb bytes.Buffer
	if err := Compare(&tb, dirs, true); err != nil {
		return err
	}
	p.Table = tb.String()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{"compare.md": p.markdown()}
	html, err := p.html()
	if err != nil {
		return err
	}
	files["compare.html"] = html
	for _, f := range p.Figures {
		if f.Note == "" {
			files[f.ID+".svg"], files[f.ID+".png"], files[f.ID+".pdf"] = f.Img.svg, f.Img.png, f.Img.pdf
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// comparePage is what compare.html and compare.md render.
type comparePage struct {
	Dirs         []string
	Findings     []finding
	MoreFindings []finding // folded away (rank)
	Figures      []*figure
	Table        string // Compare's Markdown table
	Generated    string
}

func (p *comparePage) markdown() []byte {
	var b strings.Builder
	b.WriteString("# Comparison\n\n")
	for _, d := range p.Dirs {
		b.WriteString("- " + d + "\n")
	}
	b.WriteString("\n## Findings\n\n")
	for _, f := range p.Findings {
		b.WriteString("- " + f.Text + "\n")
	}
	writeMoreMD(&b, p.MoreFindings, func(f finding) string { return f.Text })
	b.WriteString("\n## Figures\n\n")
	for _, f := range p.Figures {
		if f.Note != "" {
			fmt.Fprintf(&b, "**%s**: %s\n\n", f.Title, f.Note)
			continue
		}
		fmt.Fprintf(&b, "![%s](%s.svg)\n\n%s\n\n", f.Title, f.ID, f.Caption)
	}
	b.WriteString("## Table\n\n" + p.Table + "\n")
	return []byte(b.String())
}

var comparePageTemplate = template.Must(template.New("compare").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tenantbench comparison</title>
<style>
body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1em 2em; color: #222; line-height: 1.4; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
figure { margin: 1.5em 0; padding: 0.5em; border: 1px solid #e5e5e5; }
figure svg { display: block; width: 100%; max-width: 840px; height: auto; }
figcaption { font-size: 0.9em; color: #333; margin-top: 0.4em; }
figure.missing { background: #fafafa; color: #555; }
#findings li { margin: 0.3em 0; }
#findings li.failure { color: #8a4b00; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
code { background: #f3f3f3; padding: 0 0.2em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
</style>
</head>
<body>
<h1>Comparison</h1>
<ul>{{range .Dirs}}<li>{{.}}</li>{{end}}</ul>
<section id="findings">
<h2>Findings</h2>
<ul>{{range .Findings}}<li class="{{.Kind}}">{{code .Text}}{{range .Links}} <a href="{{.Href}}">[{{.Label}}]</a>{{end}}</li>
{{end}}</ul>
{{template "more" .MoreFindings}}
<p class="note">Each directory against the first ([1]), at every matrix point both have, over their successful repetitions: the ratio of the means of the logarithms with Welch's 95 % interval (Welch 1947); a difference is called one only when the interval excludes none.</p>
</section>
{{range .Figures}}{{if .Note}}<figure class="missing" id="fig-{{.ID}}"><h3>{{.Title}}</h3><p>{{.Note}}</p></figure>
{{else}}<figure id="fig-{{.ID}}">
{{svg .}}
<figcaption>{{.Caption}} Files: <a href="{{.ID}}.svg">{{.ID}}.svg</a>, <a href="{{.ID}}.png">{{.ID}}.png</a>, <a href="{{.ID}}.pdf">{{.ID}}.pdf</a>.</figcaption>
</figure>
{{end}}{{end}}
<details><summary>Table: means per matrix point and directory</summary><pre>{{.Table}}</pre></details>
<footer>Written by tenantbench compare from the results files only. Generated {{.Generated}}.</footer>
</body>
</html>
` + moreFindingsTemplate))

func (p *comparePage) html() ([]byte, error) {
	var b bytes.Buffer
	if err := comparePageTemplate.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
