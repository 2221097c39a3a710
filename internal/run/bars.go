package run

import (
	"fmt"
	"io"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// bars shows a progress bar per tenant while ingesting on a terminal, and
// a line per finished tenant elsewhere (logs, CI).
type bars struct {
	out  io.Writer
	p    *mpb.Progress
	mu   sync.Mutex
	bars map[string]*mpb.Bar
}

func newBars(out io.Writer, terminal bool) *bars {
	b := &bars{out: out, bars: map[string]*mpb.Bar{}}
	if terminal {
		b.p = mpb.New(mpb.WithOutput(out), mpb.WithWidth(40))
	}
	return b
}

// Add makes tenant's bar and returns the callback that moves it.
func (b *bars) Add(tenant string, total int64) func(int64) {
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
}
