package report

import (
	"strconv"
	"strings"
)

// eventsTable lists every run's interference occurrences (summary.json's
// events, events.csv): when, what, and for a fault F and R (Zhang et al.
// 2025, eq. 3-4), for a noise its requested and achieved load. Nil when no
// run had interference.
func (e *experiment) eventsTable() *table {
	t := newTable("Interference", "run", "at (s)", "kind", "target", "params", "F (s)", "R (s)", "requested", "achieved", "observed")
	t.numbers(1, 5, 6, 7, 8)
	for _, r := range e.runs {
		if r.summary == nil {
			continue
		}
		for _, ev := range r.summary.Events {
			obs := ev.Observed
			if ev.Error != "" {
				obs = strings.TrimPrefix(obs+"; error: "+ev.Error, "; ")
			}
			t.Rows = append(t.Rows, []string{r.row.RunID, fmtSeconds(ev.AtS), ev.Kind, ev.Target, ev.Params,
				optNum(ev.FS), optNum(ev.RS), optNum(ev.Requested), optNum(ev.Achieved), obs})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Note = "Every occurrence of the runs' interference (runs/<id>/events.csv). F is the time from a fault's " +
		"injection until every affected tenant committed again, R from then until their throughput was back " +
		"(the fault's window and fraction); empty when not reached within the phase. requested and achieved " +
		"are a cpu noise's load in percent of its target's CPUs, achieved measured from its cgroup. " +
		"results.csv's f_score_s and r_score_s are a run's means."
	return t
}

func fmtSeconds(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func optNum(v *float64) string {
	if v == nil {
		return ""
	}
	return fmtSeconds(*v)
}
