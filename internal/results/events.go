package results

import (
	"math"
	"path/filepath"
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// Event is one occurrence of the run's interference (noise or a fault),
// as runs/<id>/events.csv holds it. Times are seconds since the workload
// phase started (warmup included), like the series.
type Event struct {
	AtS    float64 `json:"at_s"` // injection (t_f of a fault)
	EndS   float64 `json:"end_s"`
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	Params string  `json:"params,omitempty"`
	Fault  bool    `json:"fault"`
	// Recovery is what "throughput is back" means for a fault's R; the
	// zero value is metrics.DefaultRecovery.
	Recovery metrics.Recovery `json:"recovery"`
	Tenants  []string         `json:"tenants,omitempty"` // the tenants it affected
	// DownS is when the target stopped serving, ReadyS when it served
	// again by its own account (a restart: the server log's "ready to
	// accept connections"); nil when not applicable or not known.
	DownS  *float64 `json:"down_s,omitempty"`
	ReadyS *float64 `json:"ready_s,omitempty"`
	// ResumedS is t_s: the first commit of the affected tenants after the
	// fault took them down, each of them having committed by then;
	// RecoveredS is t_r (metrics.RecoveredAt); FS and RS their
	// differences (Zhang et al. 2025, eq. 3-4). nil when not reached.
	ResumedS   *float64 `json:"resumed_s,omitempty"`
	RecoveredS *float64 `json:"recovered_s,omitempty"`
	FS         *float64 `json:"f_s,omitempty"`
	RS         *float64 `json:"r_s,omitempty"`
	// Requested and Achieved are a noise's load (cpu: percent of the
	// target's CPUs); nil when not applicable.
	Requested *float64 `json:"requested,omitempty"`
	Achieved  *float64 `json:"achieved,omitempty"`
	Observed  string   `json:"observed,omitempty"`
	Error     string   `json:"error,omitempty"`
	// Promoted is the replica a fail-over (fail-primary) promoted, ""
	// for none; PromotionMS how long its promotion took by its own log,
	// from the promote request to accepting connections (nil when not
	// known): the server's share of F.
	Promoted    string   `json:"promoted,omitempty"`
	PromotionMS *float64 `json:"promotion_ms,omitempty"`
}

// failover fills in each fault's t_r, F and R from the workload's
// series, and returns the means over the faults (eq. 3-4: F over those
// whose service resumed, R over those whose throughput recovered); nil
// when none did.
func failover(events []Event, w *Workload, rec metrics.Recovery) (f, r *float64) {
	var tf, ts, ts2, tr []float64
	for i := range events {
		ev := &events[i]
		if !ev.Fault || ev.ResumedS == nil {
			continue
		}
		fs := *ev.ResumedS - ev.AtS
		ev.FS = &fs
		tf, ts = append(tf, ev.AtS), append(ts, *ev.ResumedS)
		if w == nil {
			continue
		}
		r := ev.Recovery
		if r.Window == 0 {
			r = rec
		}
		if t, ok := metrics.RecoveredAt(perSecond(w.Series, ev.Tenants), ev.AtS, *ev.ResumedS, r); ok {
			rs := t - *ev.ResumedS
			ev.RecoveredS, ev.RS = &t, &rs
			ts2, tr = append(ts2, *ev.ResumedS), append(tr, t)
		}
	}
	if v := metrics.FScore(tf, ts); !math.IsNaN(v) {
		f = &v
	}
	if v := metrics.RScore(ts2, tr); !math.IsNaN(v) {
		r = &v
	}
	return f, r
}

// perSecond is the committed transactions of tenants in each second of
// the series (rows of txn "all").
func perSecond(series []SecondRow, tenants []string) []float64 {
	in := map[string]bool{}
	for _, t := range tenants {
		in[t] = true
	}
	var out []float64
	for _, row := range series {
		if row.Txn != "all" || !in[row.Tenant] || row.Second < 0 {
			continue
		}
		for int64(len(out)) <= row.Second {
			out = append(out, 0)
		}
		out[row.Second] += float64(row.Committed)
	}
	return out
}

// EventsHeader is the header of runs/<id>/events.csv.
var EventsHeader = []string{"at_s", "end_s", "kind", "target", "params", "tenants", "down_s", "ready_s",
	"resumed_s", "recovered_s", "f_s", "r_s", "requested", "achieved", "observed", "error", "promoted", "promotion_ms"}

// WriteEvents writes runs/<id>/events.csv.
func (d *Dir) WriteEvents(id string, events []Event) error {
	rows := make([][]string, 0, len(events))
	for _, e := range events {
		rows = append(rows, []string{ftoa(e.AtS), ftoa(e.EndS), e.Kind, e.Target, e.Params, strings.Join(e.Tenants, ";"),
			optional(e.DownS), optional(e.ReadyS), optional(e.ResumedS), optional(e.RecoveredS), optional(e.FS), optional(e.RS),
			optional(e.Requested), optional(e.Achieved), e.Observed, e.Error, e.Promoted, optional(e.PromotionMS)})
	}
	return d.writeCSV(filepath.Join("runs", id, "events.csv"), EventsHeader, rows)
}
