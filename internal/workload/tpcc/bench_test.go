package tpcc

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// BenchmarkTxn runs each transaction type on one terminal of a loaded
// warehouse, to measure the driver's allocations and CPU time per
// transaction (the hot path; the server is another process) and the
// latency on this machine:
//
//	go test -run XXX -bench Txn -benchmem ./internal/workload/tpcc/
//
// in each interaction mode.
func BenchmarkTxn(b *testing.B) {
	o := DefaultOptions()
	o.Interaction = InteractionProcedures // Setup creates the functions
	te := loadTenant(b, 1, o)
	ctx := context.Background()
	for _, mode := range Interactions {
		te.w.opts.Interaction = mode
		c := te.client(b, 0, 10, 42)
		for typ, name := range txnNames {
			benchTxn(b, mode+"/"+name, c, typ, ctx)
		}
	}
}

// benchTxn runs transactions of type typ on c.
func benchTxn(b *testing.B, name string, c *Client, typ int, ctx context.Context) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		before := cpuTime(b)
		for b.Loop() {
			if err := c.Run(ctx, typ); err != nil && !errors.Is(err, workload.ErrRollback) {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime(b)-before).Microseconds())/float64(b.N), "driver-cpu-us/op")
	})
}

// BenchmarkIngest loads 2 and 4 warehouses over 1 to 4 connections and
// reports the load speed (Ingest only; Setup and PostIngest apart):
//
//	go test -run XXX -bench Ingest -benchtime 2x ./internal/workload/tpcc/
func BenchmarkIngest(b *testing.B) {
	te := loadTenant(b, 1, DefaultOptions())
	ctx := context.Background()
	for _, warehouses := range []int{2, 4} {
		for _, conns := range []int{1, 2, 3, 4} {
			for _, frozen := range []bool{false, true} {
				b.Run(fmt.Sprintf("warehouses=%d/connections=%d/frozen=%v", warehouses, conns, frozen), func(b *testing.B) {
					o := DefaultOptions()
					o.LoadConnections = conns
					w := mustWorkload(b, warehouses, o)
					w.opts.Freeze = frozen
					var ingest, post time.Duration
					for b.Loop() {
						b.StopTimer()
						if err := w.Setup(ctx, te.conn); err != nil {
							b.Fatal(err)
						}
						if _, err := te.conn.Exec(ctx, "checkpoint"); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						start := time.Now()
						if err := w.Ingest(ctx, te.connect, nil); err != nil {
							b.Fatal(err)
						}
						ingest += time.Since(start)
						b.StopTimer()
						start = time.Now()
						if err := w.PostIngest(ctx, te.conn); err != nil {
							b.Fatal(err)
						}
						post += time.Since(start)
						b.StartTimer()
					}
					n := float64(b.N)
					b.ReportMetric(float64(w.Rows())*n/ingest.Seconds(), "rows/s")
					b.ReportMetric(float64(warehouses)*n/ingest.Seconds(), "warehouses/s")
					b.ReportMetric(post.Seconds()/n, "post-ingest-s")
				})
			}
		}
	}
}

// cpuTime is the user and system CPU time of this process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
