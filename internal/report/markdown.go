package report

import (
	"fmt"
	"strings"
)

// mdCell escapes what would break a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// writeMDTable writes t as a GitHub-flavoured Markdown table.
func writeMDTable(b *strings.Builder, t *table) {
	if len(t.Rows) == 0 {
		return
	}
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + mdCell(h) + " |")
	}
	b.WriteString("\n|")
	for i := range t.Header {
		if t.Numeric[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// renderMarkdown writes summary.md: the report's tables, and its figures
// as links to the SVG files beside it.
func renderMarkdown(p *page) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Name)
	fmt.Fprintf(&b, "Results directory `%s`. %s", p.Dir, p.Counts)
	if p.Span != "" {
		fmt.Fprintf(&b, " Runs from %s.", p.Span)
	}
	fmt.Fprintf(&b, "\n\n%s\n\n", p.Headline)
	b.WriteString("## Findings\n\n")
	if len(p.Findings) == 0 {
		b.WriteString("The matrix varies nothing but the repetitions, and every run succeeded: there is nothing to compare.\n\n")
	}
	for _, f := range p.Findings {
		b.WriteString("- " + findingMD(f) + "\n")
	}
	writeMoreMD(&b, p.MoreFindings, findingMD)
	if len(p.Findings) > 0 {
		b.WriteString("\nA difference is called one only when the 95 % confidence interval of the ratio excludes no difference: paired " +
			"within rounds when the runs ran in rounds, else Welch's interval on the logarithms of the repetitions (Welch 1947); " +
			"docs/report.md explains the method.\n\n")
	}
	if t := p.Noise; t != nil {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", t.Title, t.Note)
		writeMDTable(&b, t)
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Title)
		for _, f := range s.Figures {
			if f.Note != "" {
				fmt.Fprintf(&b, "**%s**: %s\n\n", f.Title, f.Note)
				continue
			}
			fmt.Fprintf(&b, "![%s](%s.svg)\n\n%s\n\n", f.Title, f.ID, f.Caption)
		}
	}
	b.WriteString("## Results\n\nPer matrix point, over its successful repetitions: n of them, mean, sample standard " +
		"deviation, coefficient of variation, minimum, maximum, and the less favourable value (Erdelt and Rabl 2026, section 5.1). " +
		"Empty: no value (one repetition has no standard deviation).\n\n")
	for _, t := range p.Results {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", t.Title, t.Note)
		writeMDTable(&b, t)
	}
	if d := p.Drift; d != nil {
		fmt.Fprintf(&b, "## Drift and paired comparisons\n\n%s\n\n", d.Note)
		for _, w := range d.Warn {
			fmt.Fprintf(&b, "**Warning**: %s\n\n", w)
		}
		if d.Table != nil {
			if d.Table.Note != "" {
				fmt.Fprintf(&b, "%s\n\n", d.Table.Note)
			}
			writeMDTable(&b, d.Table)
		}
	}
	fmt.Fprintf(&b, "## Failed runs\n\n%s\n\n", p.Failed.Note)
	writeMDTable(&b, p.Failed)
	if p.Classes != nil {
		fmt.Fprintf(&b, "## Tenant classes\n\n%s\n\n", p.Classes.Note)
		writeMDTable(&b, p.Classes)
	}
	if p.Elastic != nil {
		fmt.Fprintf(&b, "## Elasticity\n\n%s\n\n", p.Elastic.Note)
		writeMDTable(&b, p.Elastic)
	}
	if p.Perfect != nil {
		fmt.Fprintf(&b, "## PERFECT scores\n\n%s\n\n", p.Perfect.Note)
		writeMDTable(&b, p.Perfect)
	}
	if p.CPUSplit != nil {
		fmt.Fprintf(&b, "## Background and foreground CPU\n\n%s\n\n", p.CPUSplit.Note)
		writeMDTable(&b, p.CPUSplit)
	}
	if p.Density != nil {
		writeDensityMD(&b, p.Density)
	}
	if p.Events != nil {
		fmt.Fprintf(&b, "## Interference\n\n%s\n\n", p.Events.Note)
		writeMDTable(&b, p.Events)
	}
	if p.Isolation != nil {
		fmt.Fprintf(&b, "## Isolation audit\n\n%s\n\n", p.Isolation.Note)
		writeMDTable(&b, p.Isolation)
	}
	b.WriteString("## Environment\n\n")
	if p.Env.Note != "" {
		b.WriteString(p.Env.Note + "\n\n")
	}
	writeMDTable(&b, p.Env)
	fmt.Fprintf(&b, "## Plan\n\n%s\n\n", p.Plan.Note)
	writeMDTable(&b, p.Plan)
	if len(p.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range p.Warnings {
			fmt.Fprintf(&b, "- %s\n", mdCell(w))
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// findingMD is a finding's sentence with its figure's link (summary.md
// sits beside the figures' SVG files).
func findingMD(f finding) string {
	s := f.Text
	for _, l := range f.Links {
		if strings.HasPrefix(l.Href, "#fig-") {
			s += fmt.Sprintf(" [%s](%s.svg)", l.Label, strings.TrimPrefix(l.Href, "#fig-"))
		}
	}
	return s
}
