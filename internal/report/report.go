// Package report renders a results directory into report.html, summary.md
// and figures (SVG and PNG), from the results files only: it never re-runs
// anything and never touches a database. Statistics
// come from package metrics. docs/report.md describes every table and
// figure and the file each comes from.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Subdir is the directory of a results directory the report is written to.
const Subdir = "report"

// Write renders the results directory dir into dir/report/: report.html
// (self-contained: it opens from disk with no network), summary.md (the
// same tables in Markdown) and every figure as <name>.svg, <name>.png and
// <name>.pdf.
// A previous report is replaced whole. The error wraps ErrNotResults when
// dir is not a results directory. A density search's directory
// (`tenantbench density`: density.csv, and each probe a results directory
// under probes/) gets a report of the search; a results directory that
// holds density.csv shows it as a section.
func Write(dir string) error {
	generated := "Generated " + time.Now().UTC().Format("2006-01-02 15:04:05 MST") + "."
	density, derr := readDensity(dir)
	e, err := load(dir)
	if err != nil {
		if density != nil && errors.Is(err, ErrNotResults) {
			return errors.Join(derr, writeDensityOnly(dir, density, generated))
		}
		return err
	}
	if derr != nil {
		e.warn("%v", derr)
	}
	sections := e.sections() // first: reading the monitor's files may add warnings
	top, more := rank(e.findings())
	p := &page{
		Name:         e.name,
		Dir:          dir,
		Findings:     top,
		MoreFindings: more,
		Headline:     e.headline(),
		Counts:       e.counts(),
		Span:         e.runSpan(),
		Env:          e.envTable(),
		Plan:         e.planTable(),
		SpecText:     e.specText,
		Results:      e.resultTables(),
		Failed:       e.failedTable(),
		Isolation:    e.isolationTable(),
		Drift:        e.driftPart(),
		Events:       e.eventsTable(),
		Noise:        e.noiseTable(),
		Classes:      e.classesTable(),
		CPUSplit:     e.cpuSplitTable(),
		Perfect:      e.perfectTable(),
		Elastic:      e.elasticTable(),
		Density:      density,
		Sections:     sections,
		Warnings:     e.warnings,
		Generated:    generated,
	}
	html, err := renderHTML(p)
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	files := map[string][]byte{"report.html": html, "summary.md": renderMarkdown(p)}
	for _, s := range sections {
		for _, f := range s.Figures {
			if f.Note == "" {
				files[f.ID+".svg"] = f.Img.svg
				files[f.ID+".png"] = f.Img.png
				files[f.ID+".pdf"] = f.Img.pdf
			}
		}
	}
	return writeReportFiles(dir, files)
}

// writeReportFiles writes files into dir/report/, replacing it whole:
// written beside the old report and swapped, so that a reader never sees
// a report half old and half new, nor figures a newer report dropped.
func writeReportFiles(dir string, files map[string][]byte) error {
	tmp, err := os.MkdirTemp(dir, ".report-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	out := filepath.Join(dir, Subdir)
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// counts says how many runs the plan has and how they ended.
func (e *experiment) counts() string {
	ok, cut := e.okCount(), 0
	for _, r := range e.runs {
		if r.interrupted() {
			cut++
		}
	}
	s := fmt.Sprintf("%d run(s) ended: %d ok, %d failed.", len(e.runs), ok, len(e.runs)-ok-cut)
	if cut > 0 {
		s = fmt.Sprintf("%d run(s) ended: %d ok, %d failed, %d interrupted.", len(e.runs), ok, len(e.runs)-ok-cut, cut)
	}
	if e.plan != nil && len(e.plan.Runs) > len(e.runs) {
		s += fmt.Sprintf(" The plan has %d: %d did not run (the experiment was cut or is still running).",
			len(e.plan.Runs), len(e.plan.Runs)-len(e.runs))
	}
	return s
}
