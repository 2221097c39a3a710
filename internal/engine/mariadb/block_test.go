package mariadb_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// With more Ps than clients each client waits for its replies in a
// blocking poll(2) of its own (rawsock.AwaitReadable, from the socket
// sendOnRead): replies, a statement's error, a deadline set from another
// goroutine (how a run's end reaches a client: workload.Watcher) and a
// session killed mid-statement must come through as on Go's poller.
func TestBlockingWait(t *testing.T) {
	installed(t)
	old := runtime.GOMAXPROCS(6)
	defer runtime.GOMAXPROCS(old)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inst := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}), pgtest.Settings(map[string]string{"innodb_buffer_pool_size": "64M"}))
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(t *testing.T) *mariadb.Conn {
		t.Helper()
		c, err := mariadb.Engine{}.ClientConn(ctx, ps[0].DSN("tcp"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c.(*mariadb.Conn)
	}
	prepare := func(t *testing.T, c *mariadb.Conn, q string) *mariadb.Stmt {
		t.Helper()
		st, err := c.Prepare(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	t.Run("replies", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for k := range 4 {
			st := prepare(t, dial(t), "select ? * 2")
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range int64(300) {
					v, got := int64(k)*1000+i, int64(-1)
					n, err := st.Query(func(r mariadb.Row) { got = r.Int(0) }, v)
					if err != nil || n != 1 || got != 2*v {
						errs <- fmt.Errorf("select %d * 2: %d rows, %d, %v", v, n, got, err)
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
		c := dial(t)
		if err := c.Exec(ctx, "create table k (id int primary key)"); err != nil {
			t.Fatal(err)
		}
		ins := prepare(t, c, "insert into k values (?)")
		if _, err := ins.Exec(1); err != nil {
			t.Fatal(err)
		}
		if _, err := ins.Exec(1); err == nil {
			t.Fatal("a duplicate key was inserted")
		}
		if n, err := ins.Exec(2); err != nil || n != 1 {
			t.Fatalf("after the error: %d rows, %v", n, err)
		}
	})

	// A statement that would run 30 s ends soon after interrupt.
	slow := func(t *testing.T, interrupt func(c *mariadb.Conn, id string)) {
		c := dial(t)
		ids, err := c.QueryStrings(ctx, "select connection_id()")
		if err != nil {
			t.Fatal(err)
		}
		st := prepare(t, c, "select sleep(?)")
		go func() {
			time.Sleep(200 * time.Millisecond)
			interrupt(c, ids[0])
		}()
		start := time.Now()
		_, err = st.Query(func(mariadb.Row) {}, 30)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the statement ended %v after it began (%v), want soon after 200 ms", d, err)
		}
		if err == nil && !c.IsClosed() {
			t.Error("the interrupted statement succeeded and the session is open")
		}
	}
	t.Run("deadline", func(t *testing.T) {
		slow(t, func(c *mariadb.Conn, _ string) { c.Socket().SetDeadline(time.Unix(1, 0)) })
	})
	t.Run("killed session", func(t *testing.T) {
		admin := dial(t)
		slow(t, func(_ *mariadb.Conn, id string) {
			if err := admin.Exec(ctx, "kill connection "+id); err != nil && !errors.Is(err, context.Canceled) {
				t.Error(err)
			}
		})
	})
}
