package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// ScaleOutRun is one run as Zhang et al.'s (2025) E2-Score (eq. 5) groups
// it: the runs of one experiment that differ only in their replicas
// (sut.replicas) make a scale-out group, Group naming it (spec.Run's
// ScaleOutGroup: everything of the run's matrix point but its replica
// count, and not its repetition).
type ScaleOutRun struct {
	RunID    string
	Group    string
	Replicas int
	TPS      float64
	Scale    float64
	OK       bool // the run succeeded: a failed run's throughput is no point
}

// E2Scores is the E2-Score of every run of a scale-out group, by run ID:
// metrics.E2Score over the group's successful runs, their replica counts
// as the nodes (repetitions averaged) and their scale as δ (the scale
// factor; docs/metrics.md says why). Every run of the group gets the
// group's score, a failed one too (it belongs to the group the score
// describes). A group with fewer than two replica counts among its
// successful runs, or whose runs differ in scale, has none.
func E2Scores(runs []ScaleOutRun) map[string]float64 {
	groups := map[string][]ScaleOutRun{}
	var order []string
	for _, r := range runs {
		if _, seen := groups[r.Group]; !seen {
			order = append(order, r.Group)
		}
		groups[r.Group] = append(groups[r.Group], r)
	}
	out := map[string]float64{}
	for _, g := range order {
		var points []metrics.NodesTPS
		scale, oneScale := 0.0, true
		for _, r := range groups[g] {
			if !r.OK {
				continue
			}
			if scale != 0 && r.Scale != scale {
				oneScale = false
			}
			scale = r.Scale
			points = append(points, metrics.NodesTPS{Nodes: r.Replicas, TPS: r.TPS})
		}
		if !oneScale {
			continue
		}
		e2, err := metrics.E2Score(points, scale)
		if err != nil {
			continue
		}
		for _, r := range groups[g] {
			out[r.RunID] = e2
		}
	}
	return out
}

// FillScores writes e2 (E2Scores) into results.csv's e2_score column,
// for each run's row and for the aggregate row of its point ("001-003",
// by its first run), rewriting the file atomically. Runs not in e2 keep
// their cell.
func (d *Dir) FillScores(e2 map[string]float64) error {
	if len(e2) == 0 {
		return nil
	}
	path := filepath.Join(d.Path, "results.csv")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil
	}
	col, id := -1, -1
	for i, h := range recs[0] {
		switch h {
		case "e2_score":
			col = i
		case "run_id":
			id = i
		}
	}
	if col < 0 || id < 0 {
		return fmt.Errorf("%s: no e2_score or run_id column", path)
	}
	for _, rec := range recs[1:] {
		if col >= len(rec) || id >= len(rec) {
			continue
		}
		first, _, _ := strings.Cut(rec[id], "-")
		if v, ok := e2[first]; ok {
			rec[col] = ftoa(v)
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(recs); err != nil {
		return err
	}
	return d.WriteFile("results.csv", out.Bytes(), 0o644)
}
