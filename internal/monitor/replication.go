package monitor

import (
	"context"
	"strconv"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// Replication (sut.replicas): each round, a primary with standbys is
// asked how far each lags (the engine's server.Replication: PostgreSQL's
// pg_stat_replication), an independent view beside the lag workload's own
// measurement; replication.csv.

// ReplicationSample is one standby in one round, as its primary sees it:
// the time its last WAL took to be written, flushed and replayed there
// (seconds, -1 unknown) and the WAL bytes not yet replayed.
type ReplicationSample struct {
	T                       time.Duration
	Standby, State          string
	WriteS, FlushS, ReplayS float64
	BehindBytes             int64
}

// sampleReplication reads the standbys' lags when the instance has any.
// Called with s.mu held.
func (s *sampler) sampleReplication(ctx context.Context, t time.Duration) {
	if s.conn == nil || len(provider.ReplicasOf(s.inst)) == 0 {
		return
	}
	r, ok := s.conn.(server.Replication)
	if !ok {
		return
	}
	lags, err := r.Replication(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.errs.add(t, "%v", err)
		}
		return
	}
	for _, l := range lags {
		s.repl = append(s.repl, ReplicationSample{T: t, Standby: l.Name, State: l.State,
			WriteS: l.WriteS, FlushS: l.FlushS, ReplayS: l.ReplayS, BehindBytes: l.ReplayBehindBytes})
	}
}

// replicationCSV is replication.csv: one row per standby and round.
func (s *Samples) replicationCSV() ([]byte, error) {
	header := []string{"instance", "standby", "t_s", "state", "write_lag_ms", "flush_lag_ms", "replay_lag_ms", "replay_behind_bytes"}
	ms := func(v float64) string {
		if v < 0 {
			return ""
		}
		return strconv.FormatFloat(v*1000, 'f', 3, 64)
	}
	var rows [][]string
	for _, is := range s.Instances {
		for _, x := range is.Replication {
			rows = append(rows, []string{is.Name, x.Standby, secs(x.T.Seconds()), x.State,
				ms(x.WriteS), ms(x.FlushS), ms(x.ReplayS), count(x.BehindBytes)})
		}
	}
	return toCSV(header, rows)
}

// Add starts sampling instances made while the monitor runs (a run's
// replicas, made after post-ingest): each from its first round on, its
// wait histogram and statistics from the last mark's label on. An
// instance whose statistics session cannot be opened is still sampled
// from its processes; the error is in the samples' errors.
func (m *Monitor) Add(ctx context.Context, insts []*provider.Instance) {
	if m == nil || len(insts) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != stateRunning {
		return
	}
	label := "start"
	if n := len(m.marks); n > 0 {
		label = m.marks[n-1].Label
	}
	for _, inst := range insts {
		s := newSampler(inst, m.cfg.Origin, max(m.cfg.PSSInterval, 0))
		s.pssCost = &m.pss
		s.r.files = m.files
		s.blocks.scope = tenancy.BlocksOf(m.cfg.Model)
		s.setPlacements(m.cfg.Placements)
		now := time.Now()
		t := now.Sub(m.cfg.Origin)
		if err := s.connect(ctx); err != nil {
			s.errs.add(t, "%v", err)
		}
		s.sample(ctx, now)
		s.mu.Lock()
		m.waitMarks = append(m.waitMarks, []waitMark{s.waits.mark(label)})
		if s.conn != nil {
			if err := s.stats.take(ctx, s.conn, label, t); err != nil {
				s.errs.add(t, "%v", err)
			}
		}
		s.mu.Unlock()
		m.samplers = append(m.samplers, s)
		m.wg.Add(1)
		go m.runInstance(ctx, s)
	}
}
