//go:build unix

package sales

import (
	"context"
	"syscall"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// The benchmarks run one client against a server of their own at SF 0.1
// and report, besides ns/op (the transaction's latency) and allocs/op,
// cpu-ns/op: the CPU time of this process (user + system) per
// transaction, the driver's cost that competes with the server for the
// machine's cores.
//
//	go test -run '^$' -bench . -benchmem ./internal/workload/sales

func BenchmarkNewOrderline(b *testing.B)      { benchTxn(b, only(NewOrderline)) }
func BenchmarkOrderPayment(b *testing.B)      { benchTxn(b, only(OrderPayment)) }
func BenchmarkOrderStatus(b *testing.B)       { benchTxn(b, only(OrderStatus)) }
func BenchmarkOrderlineDeletion(b *testing.B) { benchTxn(b, only(OrderlineDeletion)) }
func BenchmarkReadWrite(b *testing.B)         { benchTxn(b, Options{Preset: ReadWrite}) }

// only is a mix of one transaction.
func only(name string) Options { return Options{Mix: map[string]float64{name: 1}} }

func benchTxn(b *testing.B, o Options) {
	inst := pgtest.Start(b)
	tn := wltest.Place(b, inst, tenancy.Database{}, "bench")[0]
	w := mustWorkload(b, 0.1, o)
	tn.Load(b, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := client(b, tn, w, 1)
	for range 1000 { // warm the server's caches and plans
		if err := c.Run(ctx, c.Pick()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	cpu := processCPU()
	b.ResetTimer()
	for b.Loop() {
		if err := c.Run(ctx, c.Pick()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// processCPU is this process's user and system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
