package driver

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// bucket is one client's measurements of one second of the workload phase.
// A client owns its current bucket alone and hands it to the collector when
// the second changes, so recording takes no lock and, once buckets are
// recycled, allocates nothing.
type bucket struct {
	tenant int
	second int64
	// hists are per transaction type, latency in us; a type's is nil
	// until the bucket first records one of it (hist): a histogram is
	// 136 KiB, and a client that commits nothing (an idle tenant) or
	// runs few types then holds none or few.
	hists  []*hdrhistogram.Histogram
	sumUs  []int64   // exact sums, for the mean
	sqUs   []float64 // sums of squares, for the stddev
	rolled []int64   // expected rollbacks per type
	fails  []failCount
	// svc is the service time (actual start to end) of an open load's
	// transactions, every type together; hists then hold the latency from
	// the intended start. nil until the first open-loop transaction.
	svc      *hdrhistogram.Histogram
	svcSumUs int64
	// le counts each type's transactions by bucket of the live
	// metrics' bounds (Collector.le: types blocks of len(bounds)+1, the
	// last above them all); nil without live metrics.
	le []int64
}

// failCount counts one kind of failure within a bucket.
type failCount struct {
	typ   int
	class string        // SQLSTATE class ("40") or "connection"
	n     int64         //
	first time.Duration // since the workload started
	last  time.Duration
	msg   string // the first message seen, for the summary
	// lastErr is the last error seen: kept as it is (no message made per
	// failure) until the collector merges the bucket.
	lastErr error
}

func newBucket(tenant, types int) *bucket {
	return &bucket{tenant: tenant, hists: make([]*hdrhistogram.Histogram, types),
		sumUs: make([]int64, types), sqUs: make([]float64, types), rolled: make([]int64, types)}
}

// hist is the histogram of type typ, made on first use and kept when the
// bucket is recycled.
func (b *bucket) hist(typ int) *hdrhistogram.Histogram {
	h := b.hists[typ]
	if h == nil {
		h = NewHistogram()
		b.hists[typ] = h
	}
	return h
}

// count is how many transactions of type typ the bucket holds.
func (b *bucket) count(typ int) int64 {
	if h := b.hists[typ]; h != nil {
		return h.TotalCount()
	}
	return 0
}

func (b *bucket) reset() {
	for i, h := range b.hists {
		if h != nil && h.TotalCount() > 0 {
			h.Reset()
		}
		b.sumUs[i] = 0
		b.sqUs[i] = 0
		b.rolled[i] = 0
	}
	b.fails = b.fails[:0]
	if b.svc != nil && b.svc.TotalCount() > 0 {
		b.svc.Reset()
	}
	b.svcSumUs = 0
	clear(b.le)
}

// Recorder is one client's handle on the collector. Use it from one
// goroutine only.
type Recorder struct {
	c      *Collector
	tenant int
	types  int
	cur    *bucket
	// remap is the run's type of each of the client's own transaction
	// types, where tenants run workloads of different types (txnUnion);
	// nil when they are the same.
	remap []int
}

// global is the run's type of the client's type typ (connectTxn stays).
func (r *Recorder) global(typ int) int {
	if r.remap == nil || typ < 0 {
		return typ
	}
	return r.remap[typ]
}

// Record counts one committed transaction of type typ that ended at end
// after lat.
func (r *Recorder) Record(typ int, end time.Time, lat time.Duration) {
	typ = r.global(typ)
	b := r.at(end)
	us := clampUs(lat.Microseconds())
	_ = b.hist(typ).RecordValue(us) // cannot fail: us is clamped to the range
	b.sumUs[typ] += us
	b.sqUs[typ] += float64(us) * float64(us)
	if b.le != nil {
		b.le[typ*(len(r.c.le)+1)+leIndex(r.c.le, us)]++
	}
	if w := r.c.watch; w != nil {
		w.commit(r.tenant, end)
	}
}

// RecordOpen counts one committed transaction of an open load: lat is
// timed from its intended start (coordinated omission corrected), svc from
// its actual start.
func (r *Recorder) RecordOpen(typ int, end time.Time, lat, svc time.Duration) {
	r.Record(typ, end, lat) // remaps typ itself
	b := r.cur
	if b.svc == nil {
		b.svc = NewHistogram() // once per bucket: buckets are recycled
	}
	us := clampUs(svc.Microseconds())
	_ = b.svc.RecordValue(us)
	b.svcSumUs += us
}

// Rollback counts one transaction of type typ that the workload rolled
// back on purpose (workload.ErrRollback): neither committed nor failed.
func (r *Recorder) Rollback(typ int, end time.Time) {
	r.at(end).rolled[r.global(typ)]++
}

// Fail counts one failed transaction of type typ, class being its SQLSTATE
// class or "connection".
func (r *Recorder) Fail(typ int, end time.Time, class string, err error) {
	typ = r.global(typ)
	b := r.at(end)
	since := end.Sub(r.c.start)
	r.c.firstFail.note(r.c.tenants[r.tenant].name, class, since, err)
	for i := range b.fails {
		f := &b.fails[i]
		if f.typ == typ && f.class == class {
			f.n++
			f.last, f.lastErr = since, err
			return
		}
	}
	b.fails = append(b.fails, failCount{typ: typ, class: class, n: 1, first: since, last: since, msg: err.Error(), lastErr: err})
}

// at returns the bucket of the second that contains t, handing the previous
// one to the collector.
func (r *Recorder) at(t time.Time) *bucket {
	sec := int64(t.Sub(r.c.start) / time.Second)
	if r.cur != nil && r.cur.second == sec {
		return r.cur
	}
	r.Flush()
	r.cur = r.c.take(r.tenant, r.types)
	r.cur.second = sec
	return r.cur
}

// Flush hands the current bucket to the collector. Call it when the client
// stops.
func (r *Recorder) Flush() {
	if r.cur != nil {
		r.c.full <- r.cur
		r.cur = nil
	}
}

// leIndex is the bucket of bounds (ascending, microseconds) that holds us:
// the first bound not below it, len(bounds) above them all. A binary
// search: four comparisons for the live metrics' thirteen bounds.
func leIndex(bounds []int64, us int64) int {
	lo, hi := 0, len(bounds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if us <= bounds[m] {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
