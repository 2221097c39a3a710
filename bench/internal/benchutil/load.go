package benchutil

import (
	"context"
	"time"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// Load is a run's setup (tables, on conn), ingest (on connections of
// connect) and post-ingest (on conn) of w, and how long each took.
func Load(ctx context.Context, w workload.Workload, conn workload.Conn, connect workload.Connect) (setup, ingest, post time.Duration, err error) {
	t0 := time.Now()
	if err = w.Setup(ctx, conn); err != nil {
		return
	}
	t1 := time.Now()
	if err = w.Ingest(ctx, connect, func(int64) {}); err != nil {
		return
	}
	t2 := time.Now()
	if err = w.PostIngest(ctx, conn); err != nil {
		return
	}
	return t1.Sub(t0), t2.Sub(t1), time.Since(t2), nil
}
