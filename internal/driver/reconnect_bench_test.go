package driver

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// BenchmarkReconnect: how long a client takes to connect again (dial,
// startup, authentication) after its session was ended, while seven more
// clients read on: on one Loop (GOMAXPROCS 1, tenantbench run's default on
// 2 cores), on goroutines of their own (Options.Loops -1), and each at
// GOMAXPROCS 2 (two Loops, pinned). Each iteration ends one client's
// session; ms/connect is the median connection's time.
//
//	go test -run XXX -bench Reconnect -benchtime 20x -count 3 ./internal/driver
func BenchmarkReconnect(b *testing.B) {
	inst := pgtest.Start(b)
	tn := loadTpcb(b, inst)
	admin := pgtest.Connect(b, inst, "postgres")
	defer admin.Close(context.Background())
	for _, c := range []struct {
		name         string
		procs, loops int
	}{{"loop", 1, 0}, {"goroutines", 1, -1}, {"2loops", 2, 0}, {"2goroutines", 2, -1}} {
		b.Run(c.name, func(b *testing.B) {
			// The framework sets GOMAXPROCS for each run of a benchmark.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			tn := tn
			tn.Clients = 8
			var mu sync.Mutex
			var took []time.Duration
			armed := false
			connect := tn.Connect
			tn.Connect = func(ctx context.Context) (workload.Conn, error) {
				t0 := time.Now()
				conn, err := connect(ctx)
				mu.Lock()
				if armed {
					took = append(took, time.Since(t0))
				}
				mu.Unlock()
				return conn, err
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ended := make(chan error, 1)
			started := func(time.Time, *Watch) {
				go func() {
					defer cancel()
					time.Sleep(500 * time.Millisecond) // every client connected and reading
					mu.Lock()
					armed = true
					mu.Unlock()
					b.ResetTimer()
					for range b.N {
						if _, err := admin.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname <> 'postgres' LIMIT 1`); err != nil {
							ended <- err
							return
						}
						time.Sleep(200 * time.Millisecond) // reconnected, and reading again
					}
					b.StopTimer()
					ended <- nil
				}()
			}
			if _, err := Run(ctx, []Tenant{tn}, Options{Duration: time.Hour, Started: started, Loops: c.loops, Procs: c.procs}); err != nil && !errors.Is(err, context.Canceled) {
				b.Fatal(err)
			}
			if err := <-ended; err != nil {
				b.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(took) == 0 {
				b.Fatal("no client connected again")
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/connect")
			b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms/connect")
			b.ReportMetric(0, "ns/op")
		})
	}
}
