package workload_test

import (
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// int8Row keeps the one int8 column of the last row.
type int8Row struct {
	v    int64
	rows int
}

func (r *int8Row) ReadRow(values [][]byte) {
	r.rows++
	r.v = int64(binary.BigEndian.Uint64(values[0]))
}

func int8Param(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// wireConn connects to inst and prepares the statement "s" as sql.
func wireConn(t *testing.T, ctx context.Context, dsn, sql string) (*pgconn.PgConn, workload.Wire) {
	t.Helper()
	pg, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(context.Background()) })
	if _, err := pg.Prepare(ctx, "s", sql, nil); err != nil {
		t.Fatal(err)
	}
	return pg, workload.NewWire(pg)
}

// With more Ps than clients each client waits for its replies in a
// blocking poll(2) of its own (rawsock.AwaitReadable): replies, a
// statement's error, a deadline set from another goroutine (how a run's
// end or a cancelled context reaches a client: workload.Watcher) and a
// backend killed mid-statement must come through as on Go's poller.
func TestWireBlockingWait(t *testing.T) {
	old := runtime.GOMAXPROCS(6)
	defer runtime.GOMAXPROCS(old)
	inst := pgtest.Start(t)
	dsn := inst.AdminDSN("postgres")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("replies", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for c := range 4 {
			_, w := wireConn(t, ctx, dsn, "select $1::int8 * 2")
			wg.Add(1)
			go func() {
				defer wg.Done()
				var r int8Row
				for i := range int64(500) {
					v := int64(c)*1000 + i
					if err := w.RoundTrip("s", [][]byte{int8Param(v)}, &r); err != nil {
						errs <- err
						return
					}
					if r.v != 2*v || r.rows != int(i+1) {
						errs <- errors.New("wrong reply")
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("statement error", func(t *testing.T) {
		_, w := wireConn(t, ctx, dsn, "select 10 / $1::int8")
		var r int8Row
		err := w.RoundTrip("s", [][]byte{int8Param(0)}, &r)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
			t.Fatalf("division by zero gave %v, want SQLSTATE 22012", err)
		}
		if err := w.RoundTrip("s", [][]byte{int8Param(5)}, &r); err != nil || r.v != 2 {
			t.Fatalf("after the error: %d, %v; want 2", r.v, err)
		}
	})

	// A statement that would run 30 s ends soon after its deadline is set.
	slow := func(t *testing.T, interrupt func(pg *pgconn.PgConn)) {
		pg, w := wireConn(t, ctx, dsn, "select pg_sleep($1::int8)::text::int8")
		go func() {
			time.Sleep(200 * time.Millisecond)
			interrupt(pg)
		}()
		start := time.Now()
		err := w.RoundTrip("s", [][]byte{int8Param(30)}, nil)
		if err == nil {
			t.Fatal("the interrupted statement succeeded")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the statement ended %v after it began, want soon after 200 ms", d)
		}
		if !pg.IsClosed() {
			t.Error("the connection is still open after an I/O error")
		}
	}
	t.Run("deadline", func(t *testing.T) {
		slow(t, func(pg *pgconn.PgConn) { pg.Conn().SetDeadline(time.Unix(1, 0)) })
	})
	t.Run("killed backend", func(t *testing.T) {
		slow(t, func(pg *pgconn.PgConn) {
			admin := pgtest.Connect(t, inst, "postgres")
			if _, err := admin.Exec(ctx, "select pg_terminate_backend($1)", pg.PID()); err != nil {
				t.Error(err)
			}
		})
	})
}
