package workload

import (
	"context"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// stallingConn holds one write back after sending it, as a descheduled
// client does under a loaded machine: pgconn then starts its background
// reader (after 15 ms), which reads the whole reply and waits in a second
// read of the socket when pgconn stops it.
type stallingConn struct {
	net.Conn
	stall *atomic.Bool
}

func (c stallingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if c.stall.CompareAndSwap(true, false) {
		time.Sleep(200 * time.Millisecond)
	}
	return n, err
}

func (c stallingConn) SyscallConn() (syscall.RawConn, error) {
	return c.Conn.(syscall.Conn).SyscallConn()
}

// TestWireAfterBackgroundRead: a Wire made on a connection whose pgconn
// background reader is still waiting in a read of the socket runs its
// statement. Without NewWire's sync with pgconn the raw read waited for
// the background reader's read, which waited for a reply to a request
// never sent: a client, and the rawsock.Loop it ran on, hung for good.
func TestWireAfterBackgroundRead(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	inst := pgtest.Start(t)
	cfg, err := pgx.ParseConfig(inst.AdminDSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var stall atomic.Bool
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return stallingConn{c, &stall}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() {
		// Closing the socket ends a hung read, so that the test fails
		// rather than hangs.
		conn.PgConn().Conn().Close()
		<-done
	}()
	sd, err := conn.Prepare(ctx, "one", "SELECT $1::int8 + 1")
	if err != nil {
		t.Fatal(err)
	}
	stall.Store(true)
	if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if stall.Load() {
		t.Fatal("the write was not held back")
	}
	var got rowsSeen
	var rerr error
	go func() {
		defer close(done)
		var w Wire
		if w, rerr = NewWire(ctx, conn.PgConn()); rerr != nil {
			return
		}
		rerr = w.RoundTrip(sd.Name, [][]byte{{0, 0, 0, 0, 0, 0, 0, 41}}, &got)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the statement on the Wire did not return in 10 s")
	}
	if rerr != nil || len(got) != 1 || len(got[0]) != 1 || got[0][0] != "\x00\x00\x00\x00\x00\x00\x00\x2a" {
		t.Fatalf("rows %q, error %v", got, rerr)
	}
}
