package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// compareMetrics are the key metrics compare puts side by side.
var compareMetrics = []metric{mThroughput, mMeanLat, mP99, mFairness}

// Compare writes the key metrics of several results directories side by
// side: for each matrix point (model, tenants and the other dimensions)
// and metric, the mean over the successful repetitions in each directory,
// and its ratio to the first directory's. Points are matched by their
// values, so directories with different plans compare where they overlap;
// a point a directory lacks shows "-". markdown selects a Markdown table
// over aligned text. An error wraps ErrNotResults when a directory is not
// a results directory.
func Compare(w io.Writer, dirs []string, markdown bool) error {
	if len(dirs) == 0 {
		return fmt.Errorf("%w: no directory given", ErrNotResults)
	}
	exps := make([]*experiment, len(dirs))
	var all []*run
	for i, d := range dirs {
		e, err := load(d)
		if err != nil {
			return err
		}
		exps[i] = e
		all = append(all, e.runs...)
	}
	// Label points with the dimensions that vary across all directories,
	// so that the same point has the same label in each.
	v := varyOf(all)
	var order []string
	byDir := make([]map[string]*point, len(exps))
	for i, e := range exps {
		byDir[i] = map[string]*point{}
		for _, p := range groupPoints(e.runs, v) {
			if !contains(order, p.label) {
				order = append(order, p.label)
			}
			byDir[i][p.label] = p
		}
	}
	head := []string{"matrix point", "metric"}
	for i := range dirs {
		head = append(head, fmt.Sprintf("[%d]", i+1))
		if i > 0 {
			head = append(head, fmt.Sprintf("[%d]/[1]", i+1))
		}
	}
	t := newTable("compare", head...)
	for i := 2; i < len(head); i++ {
		t.Numeric[i] = true
	}
	for _, label := range order {
		for k, m := range compareMetrics {
			row := []string{"", m.label()}
			if k == 0 {
				row[0] = label
			}
			first := math.NaN()
			for i := range exps {
				val, cell := compareCell(byDir[i][label], m)
				if i == 0 {
					first = val
				} else {
					ratio := "-"
					if !math.IsNaN(val) && !math.IsNaN(first) && first != 0 {
						ratio = strings.TrimSpace(fmt.Sprintf("%.3f", val/first))
					}
					row = append(row, cell, ratio)
					continue
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	for i, e := range exps {
		fmt.Fprintf(w, "[%d] %s: %s, %s\n", i+1, dirs[i], e.name, e.counts())
	}
	fmt.Fprintln(w, "Means over the successful repetitions of each matrix point; [n]/[1] is the ratio to the first directory.")
	fmt.Fprintln(w)
	if err := writeCompareTable(w, t, markdown); err != nil {
		return err
	}
	// Zhang et al.'s (2025) Table IX: a row per directory that measured
	// its scores, the systems side by side.
	var perfect *table
	for i, e := range exps {
		if pt := e.perfectTable(); pt != nil {
			row := pt.Rows[0]
			if perfect == nil {
				perfect = pt
				perfect.Rows = nil
			}
			row[0] = fmt.Sprintf("[%d] %s", i+1, row[0])
			perfect.Rows = append(perfect.Rows, row)
		}
	}
	if perfect == nil {
		return nil
	}
	fmt.Fprintf(w, "\n%s. Each score is the mean over the runs that measured it (their number in brackets); O-Score as eq. 8 with C in seconds.\n\n", perfect.Title)
	return writeCompareTable(w, perfect, markdown)
}

// writeCompareTable writes t as Markdown or as aligned text.
func writeCompareTable(w io.Writer, t *table, markdown bool) error {
	if markdown {
		var b strings.Builder
		writeMDTable(&b, t)
		_, err := io.WriteString(w, b.String())
		return err
	}
	return writeTextTable(w, t)
}

// compareCell is a point's mean of m, and how to show it: "-" for a point
// the directory lacks, "failed" when all its repetitions failed.
func compareCell(p *point, m metric) (float64, string) {
	if p == nil {
		return math.NaN(), "-"
	}
	st, ok := statOf(p, m)
	if !ok {
		if len(p.okRuns()) == 0 {
			return math.NaN(), "failed"
		}
		return math.NaN(), "-"
	}
	return st.Mean, fmtNum(st.Mean)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeTextTable writes t with aligned columns: numbers to the right so
// that their digits line up, text to the left.
func writeTextTable(w io.Writer, t *table) error {
	width := make([]int, len(t.Header))
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) string {
		parts := make([]string, len(cells))
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if t.Numeric[i] {
				parts[i] = pad + c
			} else {
				parts[i] = c + pad
			}
		}
		return strings.TrimRight(strings.Join(parts, "  "), " ") + "\n"
	}
	if _, err := io.WriteString(w, line(t.Header)); err != nil {
		return err
	}
	for _, r := range t.Rows {
		if _, err := io.WriteString(w, line(r)); err != nil {
			return err
		}
	}
	return nil
}
