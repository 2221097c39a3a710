package driver

import (
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tenantbench/tenantbench/internal/results"
)

// slotter aggregates the clients' buckets per tenant and result slot
// (Zhang et al. (2025) report per minute slot). It belongs to the
// collector's goroutine. A slot's histograms live while it is open and
// go back to a spare list when it closes, lateWindow seconds after its
// end, so memory does not grow with the number of slots.
type slotter struct {
	starts [][]int64 // per tenant, the slots' first seconds
	end    int64     // the phase's end, in seconds (rounded up)
	open   map[slotKey]*slotAgg
	rows   []results.SlotRow
	rowAt  map[slotKey]int // closed slots: their row
	spare  []*slotAgg
	names  []string
}

type slotKey struct{ tenant, slot int }

type slotAgg struct {
	lat, svc           *hdrhistogram.Histogram // all types together
	sumUs, svcSumUs    int64
	failed, rolledBack int64
}

func newSlotter(names []string, windows [][]time.Duration, phase time.Duration) *slotter {
	s := &slotter{end: int64((phase + time.Second - 1) / time.Second), open: map[slotKey]*slotAgg{}, rowAt: map[slotKey]int{}, names: names}
	any := false
	for _, w := range windows {
		secs := make([]int64, len(w))
		for i, t := range w {
			secs[i] = int64(t / time.Second)
		}
		any = any || len(w) > 0
		s.starts = append(s.starts, secs)
	}
	if !any {
		return nil
	}
	return s
}

// slot is the slot of tenant t that second sec falls in, -1 for none.
func (s *slotter) slot(t int, sec int64) int {
	st := s.starts[t]
	i := sort.Search(len(st), func(i int) bool { return st[i] > sec }) - 1
	if i < 0 || sec >= s.end {
		return -1
	}
	return i
}

func (s *slotter) bounds(t, i int) (int64, int64) {
	st := s.starts[t]
	if i+1 < len(st) {
		return st[i], st[i+1]
	}
	return st[i], s.end
}

// add merges bucket b into its slot.
func (s *slotter) add(b *bucket) {
	i := s.slot(b.tenant, b.second)
	if i < 0 {
		return
	}
	k := slotKey{b.tenant, i}
	a := s.open[k]
	if a == nil {
		if row, done := s.rowAt[k]; done {
			s.late(&s.rows[row], b)
			return
		}
		a = s.take()
		s.open[k] = a
	}
	for typ, h := range b.hists {
		if b.count(typ) > 0 {
			a.lat.Merge(h)
			a.sumUs += b.sumUs[typ]
		}
	}
	if b.svc != nil && b.svc.TotalCount() > 0 {
		a.svc.Merge(b.svc)
		a.svcSumUs += b.svcSumUs
	}
	for _, f := range b.fails {
		a.failed += f.n
	}
	for _, n := range b.rolled {
		a.rolledBack += n
	}
}

// late adds counts that arrive after their slot closed: the counts and the
// mean, not the percentiles.
func (s *slotter) late(r *results.SlotRow, b *bucket) {
	var n, sum int64
	for typ := range b.hists {
		n += b.count(typ)
		sum += b.sumUs[typ]
	}
	old := float64(r.Committed) * r.MeanMs
	r.Committed += n
	if r.Committed > 0 {
		r.MeanMs = (old + float64(sum)/1000) / float64(r.Committed)
	}
	for _, f := range b.fails {
		r.Failed += f.n
	}
	for _, x := range b.rolled {
		r.Rollbacks += x
	}
}

func (s *slotter) take() *slotAgg {
	if n := len(s.spare); n > 0 {
		a := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return a
	}
	return &slotAgg{lat: NewHistogram(), svc: NewHistogram()}
}

// finalize closes every open slot that ended at or before second upTo.
func (s *slotter) finalize(upTo int64, warmup int64) {
	var keys []slotKey
	for k := range s.open {
		if _, hi := s.bounds(k.tenant, k.slot); hi <= upTo {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].tenant != keys[j].tenant {
			return keys[i].tenant < keys[j].tenant
		}
		return keys[i].slot < keys[j].slot
	})
	for _, k := range keys {
		a := s.open[k]
		lo, hi := s.bounds(k.tenant, k.slot)
		r := results.SlotRow{Tenant: s.names[k.tenant], Slot: k.slot, Start: time.Duration(lo) * time.Second,
			End: time.Duration(hi) * time.Second, Warmup: lo < warmup,
			Committed: a.lat.TotalCount(), Failed: a.failed, Rollbacks: a.rolledBack}
		if n := r.Committed; n > 0 {
			r.MeanMs = float64(a.sumUs) / float64(n) / 1000
			r.P50Ms = ms(a.lat, 50)
			r.P95Ms = ms(a.lat, 95)
			r.P99Ms = ms(a.lat, 99)
			r.MaxMs = ms(a.lat, 100)
		}
		if n := a.svc.TotalCount(); n > 0 {
			r.ServiceMeanMs = float64(a.svcSumUs) / float64(n) / 1000
			r.ServiceP99Ms = ms(a.svc, 99)
		}
		s.rowAt[k] = len(s.rows)
		s.rows = append(s.rows, r)
		a.lat.Reset()
		a.svc.Reset()
		*a = slotAgg{lat: a.lat, svc: a.svc}
		s.spare = append(s.spare, a)
		delete(s.open, k)
	}
}

func ms(h *hdrhistogram.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }

// result returns every slot's row, tenants in order, each tenant's slots
// in order, with empty rows for slots nothing was recorded in.
func (s *slotter) result(warmup int64) []results.SlotRow {
	for t, st := range s.starts {
		for i := range st {
			if _, done := s.rowAt[slotKey{t, i}]; !done {
				lo, hi := s.bounds(t, i)
				s.rows = append(s.rows, results.SlotRow{Tenant: s.names[t], Slot: i, Start: time.Duration(lo) * time.Second,
					End: time.Duration(hi) * time.Second, Warmup: lo < warmup})
			}
		}
	}
	index := map[string]int{}
	for i, n := range s.names {
		index[n] = i
	}
	sort.SliceStable(s.rows, func(i, j int) bool {
		a, b := s.rows[i], s.rows[j]
		if a.Tenant != b.Tenant {
			return index[a.Tenant] < index[b.Tenant]
		}
		return a.Slot < b.Slot
	})
	return s.rows
}
