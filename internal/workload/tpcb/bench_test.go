//go:build unix

package tpcb

import (
	"context"
	"github.com/tenantbench/tenantbench/internal/workload"
	"syscall"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// The benchmarks run one client against a server of their own and report,
// besides ns/op (the transaction's latency), cpu-ns/op: the CPU time of
// this process (user + system) per transaction, the driver's cost that
// competes with the server for the machine's cores.
//
//	go test -run '^$' -bench . -benchmem ./internal/workload/tpcb

func BenchmarkSelectOnly(b *testing.B) { benchScript(b, SelectOnly) }
func BenchmarkTPCBLike(b *testing.B)   { benchScript(b, TPCBLike) }

func benchScript(b *testing.B, script string) {
	inst := pgtest.Start(b)
	tn := newTenant(b, inst, "bench")
	w := newWorkload(b, 1, withScripts(map[string]int{script: 1}))
	tn.Load(b, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := w.NewClient(ctx, tn.Conn(b), workload.ClientInfo{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
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
