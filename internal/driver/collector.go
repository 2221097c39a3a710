package driver

import (
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tenantbench/tenantbench/internal/results"
)

// lateWindow is how long a second stays open for buckets that arrive late
// (a client blocked in a long transaction hands in its bucket only when the
// transaction ends). A bucket later than this still counts in the totals
// and in the second's counts, but not in that second's percentiles.
const lateWindow = 5

// Collector merges the clients' buckets per tenant: totals after warmup, a
// per-second series, and progress lines. One goroutine owns all its state;
// clients reach it only through channels.
type Collector struct {
	start    time.Time
	warmup   int64 // whole seconds excluded from the totals
	txnNames []string
	full     chan *bucket
	free     chan *bucket
	done     chan struct{}

	tenants   []*tenantAgg
	open      map[int64][]*secondAgg // second -> per tenant
	finalized int64                  // seconds below this are closed
	spare     []*secondAgg
	series    []results.SecondRow

	out   io.Writer // progress lines; nil for none
	every time.Duration
	label string

	slots *slotter // nil without a schedule
	// watch notes each tenant's first commit after a fault; nil when
	// nobody watches.
	watch *Watch
	// last is the end of the phase in whole seconds (rounded up; cut
	// short by cutAt): every second below it gets its rows, zeros when
	// nothing completed in it (a stalled server). 0 (NewCollector without
	// a phase) writes rows only for seconds that saw something.
	last atomic.Int64
	// firstFail is told of every failed attempt when the phase stops at
	// the first (Options.StopAtFail); nil otherwise.
	firstFail *firstFail
	// live is told of each bucket as it is merged (Options.Live), le its
	// latency bounds in microseconds; nil without live metrics.
	live Live
	le   []int64
}

// firstFail closes at when the first failed attempt is noted, err naming
// it. Clients note failures from their own goroutines.
type firstFail struct {
	once sync.Once
	at   chan struct{}
	err  error
}

func (f *firstFail) note(tenant, class string, since time.Duration, err error) {
	if f == nil {
		return
	}
	f.once.Do(func() {
		f.err = fmt.Errorf("stopped at the first failed attempt (--fail-fast): tenant %s at %.2f s, %s: %w",
			tenant, since.Seconds(), class, err)
		close(f.at)
	})
}

type tenantAgg struct {
	name   string
	total  []*hdrhistogram.Histogram // per type, after warmup
	sumUs  []int64
	rolled []int64
	fails  map[failKey]*Failure
	// service times of an open load, after warmup; nil when closed
	svc      *hdrhistogram.Histogram
	svcSumUs int64
	// progress since the last line
	pCount, pFailed int64
	pSum, pSq       float64
}

type failKey struct {
	typ   int
	class string
}

type secondAgg struct {
	hists  []*hdrhistogram.Histogram // per type, then all types
	sumUs  []int64
	failed []int64
}

// NewCollector starts a collector for tenants running a workload with the
// given transaction names. Progress lines go to out every `every` (none when
// out is nil), prefixed by label.
func NewCollector(start time.Time, warmup time.Duration, tenants []string, txnNames []string,
	clients int, out io.Writer, every time.Duration, label string) *Collector {
	return newCollector(start, warmup, tenants, txnNames, clients, out, every, label, nil, 0, nil)
}

// newCollector is NewCollector that also aggregates per result slot:
// slots[i] are tenant i's slot starts (nil for none), phase the length of
// the workload phase.
func newCollector(start time.Time, warmup time.Duration, tenants []string, txnNames []string,
	clients int, out io.Writer, every time.Duration, label string, slots [][]time.Duration, phase time.Duration, live Live) *Collector {
	c := &Collector{
		start: start, warmup: int64(math.Ceil(warmup.Seconds())), txnNames: txnNames,
		// Room for every client's bucket twice over, so a client never
		// waits on the collector in the common case.
		full: make(chan *bucket, 2*clients+16), free: make(chan *bucket, 2*clients+16),
		done: make(chan struct{}), open: map[int64][]*secondAgg{},
		out: out, every: every, label: label, live: live,
	}
	if live != nil {
		for _, b := range live.LatencyBounds() {
			c.le = append(c.le, b.Microseconds())
		}
	}
	for _, n := range tenants {
		// total's histograms are made as the tenant's first transactions
		// of each type arrive (lazy): an idle tenant holds none.
		t := &tenantAgg{name: n, total: make([]*hdrhistogram.Histogram, len(txnNames)),
			sumUs: make([]int64, len(txnNames)), rolled: make([]int64, len(txnNames)), fails: map[failKey]*Failure{}}
		c.tenants = append(c.tenants, t)
	}
	if slots != nil {
		c.slots = newSlotter(tenants, slots, phase)
	}
	c.last.Store(int64((phase + time.Second - 1) / time.Second))
	go c.loop()
	return c
}

// lazy is the histogram *h, made if nil.
func lazy(h **hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if *h == nil {
		*h = NewHistogram()
	}
	return *h
}

// Recorder makes a recorder for one client of tenant (its index).
func (c *Collector) Recorder(tenant int) *Recorder {
	return &Recorder{c: c, tenant: tenant, types: len(c.txnNames)}
}

// take returns a recycled bucket, or a new one.
func (c *Collector) take(tenant, types int) *bucket {
	select {
	case b := <-c.free:
		b.tenant = tenant
		return b
	default:
		b := newBucket(tenant, types)
		if c.live != nil {
			b.le = make([]int64, types*(len(c.le)+1))
		}
		return b
	}
}

func (c *Collector) loop() {
	defer close(c.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var progress <-chan time.Time
	if c.out != nil && c.every > 0 {
		pt := time.NewTicker(c.every)
		defer pt.Stop()
		progress = pt.C
	}
	for {
		select {
		case b, ok := <-c.full:
			if !ok {
				c.finalize(math.MaxInt64)
				if c.slots != nil {
					c.slots.finalize(math.MaxInt64, c.warmup)
				}
				return
			}
			c.merge(b)
		case now := <-tick.C:
			upTo := int64(now.Sub(c.start)/time.Second) - lateWindow
			c.finalize(upTo)
			if c.slots != nil {
				c.slots.finalize(upTo, c.warmup)
			}
		case now := <-progress:
			c.printProgress(now)
		}
	}
}

func (c *Collector) merge(b *bucket) {
	t := c.tenants[b.tenant]
	sec := c.second(b.second)
	if b.second >= c.warmup {
		for typ, n := range b.rolled {
			t.rolled[typ] += n
		}
	}
	for typ, h := range b.hists {
		n := b.count(typ)
		if n == 0 {
			continue
		}
		if b.second >= c.warmup {
			lazy(&t.total[typ]).Merge(h)
			t.sumUs[typ] += b.sumUs[typ]
		}
		if c.live != nil && b.le != nil {
			k := len(c.le) + 1
			c.live.Committed(b.tenant, typ, b.le[typ*k:(typ+1)*k], b.sumUs[typ])
		}
		t.pCount += n
		t.pSum += float64(b.sumUs[typ])
		t.pSq += b.sqUs[typ]
		if sec != nil {
			sa := sec[b.tenant]
			lazy(&sa.hists[typ]).Merge(h)
			lazy(&sa.hists[len(b.hists)]).Merge(h)
			sa.sumUs[typ] += b.sumUs[typ]
			sa.sumUs[len(b.hists)] += b.sumUs[typ]
		} else {
			c.addLate(b.tenant, b.second, typ, n, b.sumUs[typ], 0)
		}
	}
	if b.svc != nil && b.svc.TotalCount() > 0 && b.second >= c.warmup {
		if t.svc == nil {
			t.svc = NewHistogram()
		}
		t.svc.Merge(b.svc)
		t.svcSumUs += b.svcSumUs
	}
	if c.slots != nil {
		c.slots.add(b)
	}
	for _, f := range b.fails {
		if c.live != nil {
			c.live.Failed(b.tenant, f.typ, f.class, f.n)
		}
		t.pFailed += f.n
		k := failKey{f.typ, f.class}
		agg := t.fails[k]
		if agg == nil {
			agg = &Failure{Txn: c.txnName(f.typ), Class: f.class, First: f.first, Message: f.msg}
			t.fails[k] = agg
		}
		agg.Count += f.n
		if b.second >= c.warmup {
			agg.AfterWarmup += f.n
		}
		agg.First = min(agg.First, f.first)
		if f.last >= agg.Last {
			agg.Last, agg.LastMessage = f.last, f.lastErr.Error()
		}
		if sec != nil {
			sa := sec[b.tenant]
			if f.typ >= 0 {
				sa.failed[f.typ] += f.n
			}
			sa.failed[len(b.hists)] += f.n
		} else {
			c.addLate(b.tenant, b.second, f.typ, 0, 0, f.n)
		}
	}
	b.reset()
	select {
	case c.free <- b:
	default:
	}
}

// second returns the open aggregates of second s, nil if s is closed.
func (c *Collector) second(s int64) []*secondAgg {
	if s < c.finalized {
		return nil
	}
	if sec, ok := c.open[s]; ok {
		return sec
	}
	sec := make([]*secondAgg, len(c.tenants))
	for i := range sec {
		if n := len(c.spare); n > 0 {
			sec[i], c.spare = c.spare[n-1], c.spare[:n-1]
		} else {
			// Its histograms are made as transactions arrive (lazy): a
			// second of 1,000 idle tenants holds none.
			k := len(c.txnNames) + 1
			sec[i] = &secondAgg{hists: make([]*hdrhistogram.Histogram, k), sumUs: make([]int64, k), failed: make([]int64, k)}
		}
	}
	c.open[s] = sec
	return sec
}

// cutAt ends the phase's seconds at t (the phase was cut short there): no
// rows of zeros after it.
func (c *Collector) cutAt(t time.Time) {
	s := int64((t.Sub(c.start) + time.Second - 1) / time.Second)
	if s < c.last.Load() {
		c.last.Store(s)
	}
}

// finalize closes every open second below upTo into the series. A second
// of the phase in which no client handed in anything is a row of zeros
// per tenant and type, so that a stall shows as seconds of nothing rather
// than as missing seconds.
func (c *Collector) finalize(upTo int64) {
	for s := max(c.finalized, 0); s < min(upTo, c.last.Load()); s++ {
		c.second(s)
	}
	var secs []int64
	for s := range c.open {
		if s < upTo {
			secs = append(secs, s)
		}
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	for _, s := range secs {
		for ti, sa := range c.open[s] {
			for j, h := range sa.hists {
				txn := "all"
				if j < len(c.txnNames) {
					txn = c.txnNames[j]
				}
				var n int64
				if h != nil {
					n = h.TotalCount()
				}
				row := results.SecondRow{Second: s, Tenant: c.tenants[ti].name, Txn: txn,
					Committed: n, Failed: sa.failed[j], Warmup: s < c.warmup}
				if n > 0 {
					row.MeanMs = float64(sa.sumUs[j]) / float64(n) / 1000
					row.P99Ms = float64(h.ValueAtQuantile(99)) / 1000
					h.Reset() // an empty one is left as it is: Reset writes every page of it
				}
				c.series = append(c.series, row)
				sa.sumUs[j], sa.failed[j] = 0, 0
			}
			c.spare = append(c.spare, sa)
		}
		delete(c.open, s)
	}
	if upTo > c.finalized && upTo != math.MaxInt64 {
		c.finalized = upTo
	}
}

// addLate adds counts that arrive after their second was closed.
func (c *Collector) addLate(tenant int, s int64, typ int, n, sumUs, failed int64) {
	name := c.tenants[tenant].name
	for i := len(c.series) - 1; i >= 0; i-- {
		r := &c.series[i]
		if r.Second < s {
			break
		}
		if r.Second == s && r.Tenant == name && (r.Txn == c.txnName(typ) || r.Txn == "all") {
			old := float64(r.Committed) * r.MeanMs
			r.Committed += n
			r.Failed += failed
			if r.Committed > 0 {
				r.MeanMs = (old + float64(sumUs)/1000) / float64(r.Committed)
			}
		}
	}
}

// txnName names a transaction type; failures to connect belong to none.
func (c *Collector) txnName(typ int) string {
	if typ < 0 {
		return "(connect)"
	}
	return c.txnNames[typ]
}

// progressLines is the most tenants that get a progress line each;
// beyond, one line sums them up: 1,000 lines every 5 s would bury the
// log.
const progressLines = 10

func (c *Collector) printProgress(now time.Time) {
	el := now.Sub(c.start).Seconds()
	secs := c.every.Seconds()
	phase := ""
	if int64(el) <= c.warmup {
		phase = " (warmup)"
	}
	if len(c.tenants) > progressLines {
		c.printSummary(el, secs, phase)
		return
	}
	for _, t := range c.tenants {
		mean, sd := 0.0, 0.0
		if t.pCount > 0 {
			mean = t.pSum / float64(t.pCount)
			sd = math.Sqrt(math.Max(0, t.pSq/float64(t.pCount)-mean*mean))
		}
		fmt.Fprintf(c.out, "%s %s progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %d failed%s\n",
			c.label, t.name, el, float64(t.pCount)/secs, mean/1000, sd/1000, t.pFailed, phase)
		t.pCount, t.pFailed, t.pSum, t.pSq = 0, 0, 0, 0
	}
}

// printSummary is the progress line of many tenants: their throughput
// together and its spread over the tenants (least, median, most), the
// mean latency of every transaction and the failures.
func (c *Collector) printSummary(el, secs float64, phase string) {
	tps := make([]float64, len(c.tenants))
	var n, failed int64
	var sum float64
	for i, t := range c.tenants {
		tps[i] = float64(t.pCount) / secs
		n, failed, sum = n+t.pCount, failed+t.pFailed, sum+t.pSum
		t.pCount, t.pFailed, t.pSum, t.pSq = 0, 0, 0, 0
	}
	sort.Float64s(tps)
	mean := 0.0
	if n > 0 {
		mean = sum / float64(n) / 1000
	}
	fmt.Fprintf(c.out, "%s %d tenants progress: %.1f s, %.1f tps (per tenant least %.1f, median %.1f, most %.1f), lat %.3f ms, %d failed%s\n",
		c.label, len(c.tenants), el, float64(n)/secs, tps[0], tps[len(tps)/2], tps[len(tps)-1], mean, failed, phase)
}

// Close waits for every recorder to have flushed (the caller guarantees
// that), closes the series and returns the result.
func (c *Collector) Close() *Result {
	close(c.full)
	<-c.done
	res := &Result{Start: c.start, Series: c.series}
	for _, t := range c.tenants {
		tr := TenantResult{Name: t.name, All: TxnResult{Txn: "all", Hist: NewHistogram()}}
		for typ, name := range c.txnNames {
			h := t.total[typ]
			if h == nil {
				h = NewHistogram()
			}
			tx := TxnResult{Txn: name, Committed: h.TotalCount(), SumUs: t.sumUs[typ], Hist: h, Failed: map[string]int64{},
				Rollbacks: t.rolled[typ]}
			tr.All.Hist.Merge(h)
			tr.All.Committed += tx.Committed
			tr.All.Rollbacks += tx.Rollbacks
			tr.All.SumUs += tx.SumUs
			tr.Txns = append(tr.Txns, tx)
		}
		tr.All.Failed = map[string]int64{}
		for k, f := range t.fails {
			if k.typ >= 0 {
				tr.Txns[k.typ].Failed[k.class] += f.AfterWarmup
			}
			tr.All.Failed[k.class] += f.AfterWarmup
			tr.Failures = append(tr.Failures, *f)
		}
		sort.Slice(tr.Failures, func(i, j int) bool { return tr.Failures[i].First < tr.Failures[j].First })
		tr.All.Service, tr.All.ServiceSumUs = t.svc, t.svcSumUs
		res.Tenants = append(res.Tenants, tr)
	}
	if c.slots != nil {
		res.Slots = c.slots.result(c.warmup)
	}
	return res
}
