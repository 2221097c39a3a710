package report

import (
	"bytes"
	"html/template"
	"regexp"
	"strings"
)

// page is what the HTML template renders.
type page struct {
	Name     string
	Dir      string
	Findings []finding
	// MoreFindings are those rank folds away under Findings.
	MoreFindings []finding
	Headline     string
	Counts       string
	Span         string
	Env          *table
	Plan         *table
	SpecText     string
	Results      []*table
	Failed       *table
	Events       *table // nil without interference
	// Noise is EDB 2026's table of latency by placement, noise and
	// clients; nil when none of them varies.
	Noise     *table
	Isolation *table // nil when no run audited isolation
	Drift     *driftPart
	Classes   *table       // nil without tenant classes
	CPUSplit  *table       // nil when no run has background and foreground CPU
	Perfect   *table       // nil when the experiment measured few of Zhang et al.'s (2025) seven scores
	Elastic   *table       // nil when no run's limits changed during its workload
	Density   *densityPart // nil without density.csv
	Sections  []section
	Warnings  []string
	Generated string
}

// prolog is what gonum writes before <svg>: an XML declaration and a
// comment, which have no place inside an HTML document.
var prolog = regexp.MustCompile(`(?s)^.*?<svg\b`)

// inlineSVG makes a figure's SVG part of the page, so that report.html is
// one file that needs nothing else to open (no network, no neighbours).
// The SVG is ours, drawn by gonum from numbers; the title, which may hold
// text from the results (a setting's value), is escaped. role and
// aria-label let a screen reader name the figure.
func inlineSVG(svg []byte, title string) template.HTML {
	attrs := `<svg role="img" aria-label="` + template.HTMLEscapeString(title) + `"`
	return template.HTML(prolog.ReplaceAllLiteral(svg, []byte(attrs)))
}

// codeSpans escapes s and sets its `quoted` names in code, as the
// findings write names of models, series and settings.
func codeSpans(s string) template.HTML {
	parts := strings.Split(template.HTMLEscapeString(s), "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + p + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(p)
	}
	return template.HTML(b.String())
}

var funcs = template.FuncMap{
	"code":  codeSpans,
	"svg":   func(f *figure) template.HTML { return inlineSVG(f.Img.svg, f.Title) },
	"align": func(t *table, i int) string { return map[bool]string{true: "num", false: ""}[t.Numeric[i]] },
}

var pageTemplate = template.Must(template.New("report").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tenantbench report: {{.Name}}</title>
<style>
body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1em 2em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { margin: 0.2em 0; font-size: 1.05em; }
.sub { color: #555; margin: 0.2em 0; }
nav ul { columns: 2; font-size: 0.95em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
.Note { color: #555; font-size: 0.9em; margin: 0.2em 0; }
figure { margin: 1.5em 0; padding: 0.5em; border: 1px solid #e5e5e5; }
figure svg { display: block; width: 100%; max-width: 840px; height: auto; }
figcaption { font-size: 0.9em; color: #333; margin-top: 0.4em; }
figure.missing { background: #fafafa; color: #555; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
.warn { color: #8a4b00; }
#findings li { margin: 0.3em 0; }
#findings li.failure { color: #8a4b00; }
details > summary { cursor: pointer; font-weight: bold; margin: 0.4em 0; }
code { background: #f3f3f3; padding: 0 0.2em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
</style>
</head>
<body>
<header>
<h1>{{.Name}}</h1>
<p class="sub">Results directory {{.Dir}}. {{.Counts}}{{if .Span}} Runs from {{.Span}}.{{end}}</p>
<p class="sub">{{.Headline}}</p>
</header>
<section id="findings">
<h2>Findings</h2>
{{if .Findings}}<ul>
{{range .Findings}}<li class="{{.Kind}}">{{code .Text}}{{range .Links}} <a href="{{.Href}}">[{{.Label}}]</a>{{end}}</li>
{{end}}</ul>
{{template "more" .MoreFindings}}
<p class="note">A difference is called one only when the 95 % confidence interval of the ratio of the two points' figures excludes no difference: paired within rounds when the runs ran in rounds, else Welch's interval on the logarithms of their repetitions (Welch 1947); docs/report.md explains the method.</p>
{{else}}<p class="note">The matrix varies nothing but the repetitions, and every run succeeded: there is nothing to compare. The figures and tables below describe the runs.</p>{{end}}
</section>
{{with .Noise}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
<nav><ul>
{{with .Noise}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}
{{range $i, $s := .Sections}}<li><a href="#section-{{$i}}">{{$s.Title}}</a></li>
{{end}}{{if .Warnings}}<li><a href="#warnings">Warnings</a></li>{{end}}
<li><a href="#results">Results tables</a></li>
{{if .Drift}}<li><a href="#drift">Drift and paired comparisons</a></li>{{end}}
<li><a href="#failed">Failed runs</a></li>
{{if .Classes}}<li><a href="#classes">Tenant classes</a></li>{{end}}
{{if .Elastic}}<li><a href="#elasticity">Elasticity</a></li>{{end}}
{{if .Perfect}}<li><a href="#perfect">PERFECT scores</a></li>{{end}}
{{if .CPUSplit}}<li><a href="#cpu-split">Background and foreground CPU</a></li>{{end}}
{{if .Density}}<li><a href="#density">Density</a></li>{{end}}
{{if .Isolation}}<li><a href="#isolation">Isolation audit</a></li>{{end}}
{{if .Events}}<li><a href="#interference">Interference</a></li>{{end}}
<li><a href="#env">Environment</a></li>
<li><a href="#plan">Plan</a></li>
</ul></nav>
{{define "density-section"}}<section id="density">
<h2>Density (Oracle 2014, Test 3)</h2>
<p class="note">{{.Note}}</p>
{{template "table" .Table}}
{{with .Probes}}<h3>Probes</h3>
<p class="note">Every probe in the order run: whether it fit, else why not (run failed, SLA not met, CPU or memory over its ceiling, not measured).</p>
{{template "table" .}}{{end}}
{{if .Links}}<p class="note">Each probe's report:{{range .Links}} <a href="{{.Href}}">{{.Label}}</a>{{end}}</p>{{end}}
</section>{{end}}
` + moreFindingsTemplate + `
{{define "table"}}<table>
<thead><tr>{{range $i, $h := .Header}}<th class="{{align $ $i}}">{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range $i, $c := .}}<td class="{{align $ $i}}">{{$c}}</td>{{end}}</tr>
{{end}}</tbody>
</table>{{end}}
{{range $i, $s := .Sections}}<section id="section-{{$i}}">
<h2>{{$s.Title}}</h2>
{{range $s.Figures}}{{if .Note}}<figure class="missing" id="fig-{{.ID}}">
<h3>{{.Title}}</h3>
<p>{{.Note}}</p>
</figure>
{{else}}<figure id="fig-{{.ID}}">
{{svg .}}
<figcaption>{{.Caption}} Files: <a href="{{.ID}}.svg">{{.ID}}.svg</a>, <a href="{{.ID}}.png">{{.ID}}.png</a>, <a href="{{.ID}}.pdf">{{.ID}}.pdf</a>.</figcaption>
</figure>
{{end}}{{end}}</section>
{{end}}
{{if .Warnings}}<section id="warnings">
<h2>Warnings</h2>
<ul>{{range .Warnings}}<li class="warn">{{.}}</li>{{end}}</ul>
</section>{{end}}
<section id="results">
<h2>Results tables</h2>
<p class="note">Per matrix point, over its successful repetitions: n of them, mean, sample standard deviation, coefficient of variation, minimum, maximum, and the less favourable value (Erdelt and Rabl 2026, section 5.1). Empty: no value (one repetition has no standard deviation). Each table opens on a click.</p>
{{range .Results}}<details id="table-{{.ID}}"><summary>{{.Title}}</summary>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</details>
{{end}}
</section>
{{with .Drift}}<section id="drift">
<h2>Drift and paired comparisons</h2>
<p class="note">{{.Note}}</p>
{{range .Warn}}<p class="warn">{{.}}</p>
{{end}}{{with .Table}}{{if .Note}}<p class="note">{{.Note}}</p>{{end}}{{template "table" .}}{{end}}
</section>{{end}}
<section id="failed">
<h2>Failed runs</h2>
<p class="note">{{.Failed.Note}}</p>
{{if .Failed.Rows}}{{template "table" .Failed}}{{end}}
</section>
{{with .Classes}}<section id="classes">
<h2>Tenant classes</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
{{with .Elastic}}<section id="elasticity">
<h2>Elasticity</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
{{with .Perfect}}<section id="perfect">
<h2>PERFECT scores</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
{{with .CPUSplit}}<section id="cpu-split">
<h2>Background and foreground CPU</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
{{with .Density}}{{template "density-section" .}}{{end}}
{{with .Isolation}}<section id="isolation">
<h2>Isolation audit</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
{{with .Events}}<section id="interference">
<h2>Interference</h2>
<p class="note">{{.Note}}</p>
{{template "table" .}}
</section>{{end}}
<section id="env">
<details><summary>Environment</summary>
{{if .Env.Note}}<p class="note">{{.Env.Note}}</p>{{end}}
{{if .Env.Rows}}{{template "table" .Env}}{{end}}
</details>
</section>
<section id="plan">
<details><summary>Plan</summary>
<p class="note">{{.Plan.Note}}</p>
{{template "table" .Plan}}
{{if .SpecText}}<details><summary>spec.yaml, as run</summary><pre>{{.SpecText}}</pre></details>{{end}}
</details>
</section>
<script>
// A link to a collapsed table opens it.
function openTarget() {
  const t = location.hash && document.getElementById(location.hash.slice(1));
  if (t && t.tagName === "DETAILS") t.open = true;
}
addEventListener("hashchange", openTarget);
openTarget();
</script>
<footer>Written by tenantbench report from the results files only (nothing was re-run). {{.Generated}}</footer>
</body>
</html>
`))

// densityTemplate renders a density search's directory: its tables, with
// the report's style and table layout.
var densityTemplate = template.Must(template.Must(pageTemplate.Clone()).New("density").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tenantbench density: {{.Name}}</title>
<style>
body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1em 2em; color: #222; line-height: 1.4; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: 0.9em; margin: 0.2em 0; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
</style>
</head>
<body>
<header>
<h1>{{.Name}}</h1>
<p class="sub">Density search directory {{.Dir}}.</p>
</header>
{{template "density-section" .Density}}
<footer>Written by tenantbench report from density.csv and probes.csv (nothing was re-run). {{.Generated}}</footer>
</body>
</html>
`))

func renderHTML(p *page) ([]byte, error) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
