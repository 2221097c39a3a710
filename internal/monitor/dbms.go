package monitor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
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
func (st *statsState) init(ctx context.Context, conn *pgx.Conn, views []string) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := conn.Query(ctx,
		`SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, o) WHERE to_regclass('pg_catalog.' || v) IS NOT NULL ORDER BY o`,
		views)
	if err != nil {
		return fmt.Errorf("find the statistics views: %w", err)
	}
	st.views, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("find the statistics views: %w", err)
	}
	return nil
}

// take reads every view; a view that fails is left out of this snapshot
// (and so of the deltas it is part of) and reported.
func (st *statsState) take(ctx context.Context, conn *pgx.Conn, label string, t time.Duration) error {
	snap := snapshot{label: label, t: t, rows: map[string]map[string]map[string]float64{}, reset: map[string]string{}}
	var errs []string
	for _, v := range st.views {
		if err := snap.read(ctx, conn, v); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", v, err))
		}
	}
	st.snaps = append(st.snaps, snap)
	if len(errs) > 0 {
		return fmt.Errorf("statistics at %s: %s", label, strings.Join(errs, "; "))
	}
	return nil
}

func (s *snapshot) read(ctx context.Context, conn *pgx.Conn, view string) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	// view is one of the engine's StatisticsViews, never a user value.
	rows, err := conn.Query(ctx, "SELECT * FROM pg_catalog."+view)
	if err != nil {
		return err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	out := map[string]map[string]float64{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		var key []string
		cols := map[string]float64{}
		reset := ""
		for i, v := range vals {
			name := fields[i].Name
			switch x := v.(type) {
			case string:
				key = append(key, x)
			case nil:
				if fields[i].DataTypeOID == pgtype.TextOID || fields[i].DataTypeOID == pgtype.NameOID {
					key = append(key, "(null)")
				}
			case time.Time:
				if name == "stats_reset" {
					reset = x.String()
				}
			default:
				if f, ok := number(v); ok && name != "datid" {
					cols[name] = f
				}
			}
		}
		k := "all"
		if len(key) > 0 {
			k = strings.Join(key, "/")
		}
		out[k] = cols
		s.reset[view+"/"+k] = reset
	}
	if err := rows.Err(); err != nil {
		return err
	}
	s.rows[view] = out
	return nil
}

// number converts the numeric types statistics views use.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case pgtype.Numeric: // pg_stat_wal.wal_bytes
		f, err := x.Float64Value()
		return f.Float64, err == nil && f.Valid
	}
	return 0, false
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
