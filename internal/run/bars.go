package run

import (
	"fmt"
	"io"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// bars shows a progress bar per tenant while ingesting on a terminal, and
// a line per finished tenant elsewhere (logs, CI). Beyond barTenants
// tenants it counts them instead, a line every tenth of them: a thousand
// bars fit no terminal.
type bars struct {
	out  io.Writer
	p    *mpb.Progress
	mu   sync.Mutex
	bars map[string]*mpb.Bar
	// many counts tenants instead of drawing them: of tenants (the run's),
	// added ingest, done ended, failed of them with an error.
	many                         bool
	tenants, added, done, failed int
}

// barTenants is the most tenants that get a bar or a line each.
const barTenants = 10

func newBars(out io.Writer, terminal bool, tenants int) *bars {
	b := &bars{out: out, bars: map[string]*mpb.Bar{}, many: tenants > barTenants, tenants: tenants}
	if terminal && !b.many {
		b.p = mpb.New(mpb.WithOutput(out), mpb.WithWidth(40))
	}
	return b
}

// Add makes tenant's bar and returns the callback that moves it.
func (b *bars) Add(tenant string, total int64) func(int64) {
	if b.many {
		b.mu.Lock()
		b.added++
		b.mu.Unlock()
	}
	if b.p == nil {
		return func(int64) {}
	}
	bar := b.p.AddBar(total,
		mpb.PrependDecorators(decor.Name("  "+tenant+" ingest "), decor.Percentage()),
		mpb.AppendDecorators(decor.CountersNoUnit("%d / %d rows")))
	b.mu.Lock()
	b.bars[tenant] = bar
	b.mu.Unlock()
	return func(rows int64) { bar.SetCurrent(rows) }
}

func (b *bars) Done(tenant string, err error) {
	if b.many {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.done++
		if err != nil {
			b.failed++
		}
		if b.done%max(1, b.tenants/10) == 0 {
			b.count(b.tenants)
		}
		return
	}
	if b.p == nil {
		if err == nil {
			fmt.Fprintf(b.out, "  %s ingest done\n", tenant)
		}
		return
	}
	b.mu.Lock()
	bar := b.bars[tenant]
	b.mu.Unlock()
	if err != nil {
		bar.Abort(false)
	} else {
		bar.SetTotal(-1, true)
	}
}

func (b *bars) Wait() {
	if b.p != nil {
		b.p.Wait()
	}
	if b.many {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.done%max(1, b.tenants/10) != 0 {
			b.count(b.added) // the last, or the templates of a cloned run
		}
	}
}

// count says how many tenants of of ended their ingest; b.mu is held.
func (b *bars) count(of int) {
	failed := ""
	if b.failed > 0 {
		failed = fmt.Sprintf(", %d failed", b.failed)
	}
	fmt.Fprintf(b.out, "  %d of %d tenants ingested%s\n", b.done, of, failed)
}
