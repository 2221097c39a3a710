package driver

import (
	"math"
	"time"

	"github.com/tenantbench/tenantbench/internal/results"
)

// addLoad puts what the load asked for and what arrived beside what was
// measured: an open load's arrival counts per tenant (after warmup), per
// second (rows of txn "all") and per slot, and every slot's target. ran
// is how long the phase ran (its length unless it was cut): arrivals due
// after it were never owed, so they count as neither arrived nor dropped.
func addLoad(res *Result, tenants []Tenant, queues []*arrivals, warmup, ran time.Duration) {
	warm := int64(math.Ceil(warmup.Seconds())) // the collector's warmup cut
	end := min(ran, res.Warmup+res.Duration)
	index := map[string]int{}
	for i, t := range tenants {
		index[t.Name] = i
	}
	for ti, q := range queues {
		if q == nil {
			continue
		}
		q.finish(ran)
		o := &OpenResult{TargetRate: tenants[ti].Load.Profile.Mean(res.Warmup, end)}
		for sec := warm; sec < int64(len(q.arrived)); sec++ {
			o.Arrivals += q.arrived[sec]
			o.Queued += q.queued[sec]
			o.Dropped += q.dropped[sec]
		}
		if s := res.Duration.Seconds(); s > 0 {
			o.AchievedRate = float64(o.Arrivals-o.Dropped) / s
		}
		res.Tenants[ti].Open = o
	}
	for i := range res.Series {
		r := &res.Series[i]
		if q := queueOf(queues, index, r.Tenant); q != nil && r.Txn == "all" && r.Second < int64(len(q.arrived)) {
			r.Arrivals, r.Dropped = q.arrived[r.Second], q.dropped[r.Second]
		}
	}
	for i := range res.Slots {
		r := &res.Slots[i]
		ti := index[r.Tenant]
		if l := tenants[ti].Load; l != nil {
			r.Target = l.Profile.Mean(r.Start, min(r.End, end))
		}
		if q := queues[ti]; q != nil {
			hi := int64((r.End + time.Second - 1) / time.Second) // a slot cut short ends within a second
			for sec := int64(r.Start / time.Second); sec < hi && sec < int64(len(q.arrived)); sec++ {
				r.Arrivals += q.arrived[sec]
				r.Queued += q.queued[sec]
				r.Dropped += q.dropped[sec]
			}
		}
	}
}

func queueOf(queues []*arrivals, index map[string]int, tenant string) *arrivals {
	if i, ok := index[tenant]; ok {
		return queues[i]
	}
	return nil
}

// cutSlots drops the slots of a phase cut short at end that start at or
// after it and ends the one it cut at end: their rates then divide by the
// time they ran, as the run's do.
func cutSlots(slots []results.SlotRow, end time.Duration) []results.SlotRow {
	out := slots[:0]
	for _, r := range slots {
		if r.Start >= end {
			continue
		}
		r.End = min(r.End, end)
		out = append(out, r)
	}
	return out
}
