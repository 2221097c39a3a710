package workload

import (
	"context"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Watcher interrupts a connection's I/O when the context given to Run ends.
//
// pgconn watches the context of every statement itself, at the cost of a
// context.AfterFunc and a channel per statement. The driver gives Run the
// same context transaction after transaction, so the Watcher registers once
// per context: when it ends, the connection's deadline is set in the past,
// which fails the statement in flight (pgconn then closes the connection, as
// its own deadline handler would). A client given a new context after the
// old one ended clears the deadline first.
type Watcher struct {
	done  <-chan struct{} // Done of the watched context; nil if none
	stop  func() bool
	fired chan struct{} // closed once the deadline is set
	conn  net.Conn
}

// Watch makes sure ctx is watched; it fails if ctx has already ended.
func (w *Watcher) Watch(ctx context.Context, pg *pgconn.PgConn) error {
	return w.WatchConn(ctx, pg.Conn())
}

// WatchConn is Watch for a connection whose socket is conn (another
// engine's client: a failed read or write is the end of its session too).
func (w *Watcher) WatchConn(ctx context.Context, conn net.Conn) error {
	done := ctx.Done()
	if done != w.done {
		w.reset()
		if done != nil {
			w.arm(ctx, conn)
		}
		w.done = done
	}
	return ctx.Err()
}

func (w *Watcher) arm(ctx context.Context, conn net.Conn) {
	fired := make(chan struct{})
	w.fired, w.conn = fired, conn
	w.stop = context.AfterFunc(ctx, func() {
		_ = conn.SetDeadline(time.Unix(1, 0))
		close(fired)
	})
}

// reset stops watching; if the watched context had ended, it waits for the
// deadline to be set and clears it.
func (w *Watcher) reset() {
	if w.stop == nil {
		return
	}
	if !w.stop() {
		<-w.fired
		_ = w.conn.SetDeadline(time.Time{})
	}
	w.stop, w.fired, w.conn, w.done = nil, nil, nil, nil
}
