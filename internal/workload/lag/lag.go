// Package lag is the replication lag workload of Zhang et al. 2025
// (CloudyBench), section II-B: clients insert, update and delete rows on
// the primary in a configurable ratio and, after each commit, read a
// replica until the change shows there; the time from the commit's return
// to the read that sees it is the change's lag, recorded per operation
// type and replica (workload.Lagger) for the C-Score (eq. 6). It needs
// replicas (sut.replicas of at least 1): the plan refuses it without.
package lag

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Name is the workload's name in a spec (workload.name).
const Name = "lag"

// The operation types, the transaction names in results.
const (
	Insert = "insert"
	Update = "update"
	Delete = "delete"
)

// rowsPerScale rows are loaded per unit of scale, for the updates and
// deletes to change; owners is how many owners they are dealt to.
const (
	rowsPerScale = 10000
	owners       = 1024
)

// Factory registers lag in a workload.Registry.
func Factory() workload.Factory {
	return workload.Factory{Name: Name, Parse: Parse, New: New}
}

// Workload is one tenant's lag workload.
type Workload struct {
	rows  int64
	opts  Options
	kinds []string // the operations of share > 0
	share []int

	mu       sync.Mutex
	from, to time.Time
	hists    map[[2]int]*hdrhistogram.Histogram // by kind index and replica
}

var (
	_ workload.Workload    = (*Workload)(nil)
	_ workload.Lagger      = (*Workload)(nil)
	_ workload.ReplicaUser = (*Workload)(nil)
)

// New makes the workload at scale (rows: scale x 10000, at least one).
func New(scale float64, opts any) (workload.Workload, error) {
	o, err := workload.OptionsAs(Name, opts, DefaultOptions())
	if err != nil {
		return nil, err
	}
	if o.Insert+o.Update+o.Delete != 100 {
		return nil, fmt.Errorf("lag: shares %d/%d/%d do not add up to 100", o.Insert, o.Update, o.Delete)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultOptions().Timeout
	}
	w := &Workload{rows: max(1, int64(scale*rowsPerScale)), opts: o, hists: map[[2]int]*hdrhistogram.Histogram{}}
	for i, s := range []int{o.Insert, o.Update, o.Delete} {
		if s > 0 {
			w.kinds = append(w.kinds, []string{Insert, Update, Delete}[i])
			w.share = append(w.share, s)
		}
	}
	return w, nil
}

// RunsOn: PostgreSQL only, the engine with replicas.
func (w *Workload) RunsOn(e engine.Engine) bool {
	_, ok := e.(postgres.Engine)
	return ok
}

// UsesReplicas: every client reads its changes back from the replicas.
func (w *Workload) UsesReplicas() bool { return true }

// ReadOnly: no operation only reads.
func (w *Workload) ReadOnly(string) bool { return false }

// TxnNames are the operations of share above 0.
func (w *Workload) TxnNames() []string { return append([]string(nil), w.kinds...) }

// Rows is how many rows Ingest loads.
func (w *Workload) Rows() int64 { return w.rows }

// Measure sets the measured part of the phase: changes committed in it
// are counted.
func (w *Workload) Measure(from, to time.Time) {
	w.mu.Lock()
	w.from, w.to = from, to
	w.mu.Unlock()
}

// record adds one change's lag on replica r.
func (w *Workload) record(kind, r int, committed time.Time, lag time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.from.IsZero() || committed.Before(w.from) || !committed.Before(w.to) {
		return
	}
	k := [2]int{kind, r}
	h := w.hists[k]
	if h == nil {
		h = workload.NewLagHistogram()
		w.hists[k] = h
	}
	us := max(1, min(lag.Microseconds(), h.HighestTrackableValue()))
	_ = h.RecordValue(us)
}

// Lags are the histograms of the measured part, by operation and replica.
func (w *Workload) Lags() []workload.LagHistogram {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []workload.LagHistogram
	for k, h := range w.hists {
		out = append(out, workload.LagHistogram{Op: w.kinds[k[0]], Replica: k[1], Hist: hdrhistogram.Import(h.Export())})
	}
	return out
}

// The table: a row's owner is the client that changes it (a client's
// index modulo owners), so that no two clients of a tenant change one
// row (up to 1024 clients); v counts the row's updates.
const (
	sqlCreate = `CREATE TABLE lag_rows (id bigserial PRIMARY KEY, owner int NOT NULL, v bigint NOT NULL DEFAULT 0, pad text)`
	sqlLoad   = `INSERT INTO lag_rows (owner, pad) SELECT g % 1024, repeat('x', 80) FROM generate_series(1, $1::bigint) g`
	sqlIndex  = `CREATE INDEX lag_rows_owner ON lag_rows (owner, id)`
)

func (w *Workload) Setup(ctx context.Context, conn workload.Conn) error {
	pg, ok := workload.PG(conn)
	if !ok {
		return workload.NoForm(Name, conn)
	}
	_, err := pg.Exec(ctx, sqlCreate)
	return err
}

// Ingest loads the rows in one statement: the server makes them.
func (w *Workload) Ingest(ctx context.Context, connect workload.Connect, progress func(rows int64)) error {
	pg, err := workload.ConnectPG(ctx, Name, connect)
	if err != nil {
		return err
	}
	defer pg.Close(context.Background())
	if _, err := pg.Exec(ctx, sqlLoad, w.rows); err != nil {
		return fmt.Errorf("lag: load: %w", err)
	}
	progress(w.rows)
	return nil
}

func (w *Workload) PostIngest(ctx context.Context, conn workload.Conn) error {
	pg, ok := workload.PG(conn)
	if !ok {
		return workload.NoForm(Name, conn)
	}
	if _, err := pg.Exec(ctx, sqlIndex); err != nil {
		return err
	}
	_, err := pg.Exec(ctx, "ANALYZE lag_rows")
	return err
}
