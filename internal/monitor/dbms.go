package monitor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/server"
)

// gauge columns hold a current value, not a cumulative count: a delta
// reports their value at the later mark.
func gauge(col string) bool { return col == "numbackends" || col == "op_bytes" }

// statsState holds the views present and the snapshots taken.
type statsState struct {
	views []string
	snaps []snapshot
}

// snapshot is every present view read at one mark. Columns are read
// generically (every number a value, every text a part of the row key), so
// that the columns each server version adds or drops need no code.
type snapshot struct {
	label string
	t     time.Duration
	rows  map[string]map[string]map[string]float64 // view -> key -> column -> value
	reset map[string]string                        // "view/key" -> stats_reset
}

// init finds which of views (engine.Statistics.StatisticsViews) the
// server has: those are snapshotted at marks.
func (st *statsState) init(ctx context.Context, conn server.Stats, views []string) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var err error
	if st.views, err = conn.PresentViews(ctx, views); err != nil {
		return fmt.Errorf("find the statistics views: %w", err)
	}
	return nil
}

// take reads every view; a view that fails is left out of this snapshot
// (and so of the deltas it is part of) and reported.
func (st *statsState) take(ctx context.Context, conn server.Stats, label string, t time.Duration) error {
	snap := snapshot{label: label, t: t, rows: map[string]map[string]map[string]float64{}, reset: map[string]string{}}
	var errs []string
	for _, v := range st.views {
		rows, resets, err := conn.ReadView(ctx, v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", v, err))
			continue
		}
		snap.rows[v] = rows
		for k, r := range resets {
			snap.reset[v+"/"+k] = r
		}
	}
	st.snaps = append(st.snaps, snap)
	if len(errs) > 0 {
		return fmt.Errorf("statistics at %s: %s", label, strings.Join(errs, "; "))
	}
	return nil
}

// deltas are the changes between consecutive snapshots.
func (st *statsState) deltas() []StatsDelta {
	var out []StatsDelta
	for i := 1; i < len(st.snaps); i++ {
		out = append(out, delta(st.snaps[i-1], st.snaps[i]))
	}
	return out
}

func delta(from, to snapshot) StatsDelta {
	d := StatsDelta{From: from.label, To: to.label, Seconds: (to.t - from.t).Seconds(),
		Views: map[string]map[string]map[string]float64{}}
	for view, rows := range to.rows {
		before, ok := from.rows[view]
		if !ok {
			continue // the view failed at the earlier mark
		}
		out := map[string]map[string]float64{}
		for key, cols := range rows {
			prev := before[key] // nil for a row new since: its counters started at 0
			dc := make(map[string]float64, len(cols))
			for c, v := range cols {
				if gauge(c) {
					dc[c] = v
				} else {
					dc[c] = v - prev[c]
				}
			}
			out[key] = dc
			if r, ok := from.reset[view+"/"+key]; ok && r != to.reset[view+"/"+key] {
				d.Reset = append(d.Reset, view+"/"+key)
			}
		}
		d.Views[view] = out
	}
	sort.Strings(d.Reset)
	return d
}
