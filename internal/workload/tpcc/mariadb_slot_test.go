package tpcc

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestMariaDBIngestOneSlot: a tenant allowed one connection at a time
// (a run's LoadConnect with one client) still loads, its loaders taking
// the slot in turn. The first loader used to keep Ingest's connection
// until every loader had returned, while the others waited for the slot
// for ever.
func TestMariaDBIngestOneSlot(t *testing.T) {
	if _, err := (mariadb.Engine{}).FindPrograms(context.Background(), "", dbserver.Find{}); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inst := pgtest.Start(t, pgtest.Engine(mariadb.Engine{}))
	ps, err := tenancy.Database{}.Place(ctx, []*provider.Instance{inst}, []string{"t01"})
	if err != nil {
		t.Fatal(err)
	}
	slot := make(chan struct{}, 1)
	opened := 0
	connect := func(ctx context.Context) (workload.Conn, error) {
		select {
		case slot <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		opened++ // one at a time: the slot orders them
		var once sync.Once
		release := func() { once.Do(func() { <-slot }) }
		c, err := inst.Engine.ClientConn(ctx, ps[0].DSN("tcp"), func(c net.Conn) net.Conn { return &slotConn{Conn: c, release: release} })
		if err != nil {
			release()
		}
		return c, err
	}
	w := mustWorkload(t, 1, DefaultOptions())
	conn, err := inst.Engine.ClientConn(ctx, ps[0].DSN("tcp"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := w.Setup(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := w.Ingest(ctx, connect, nil); err != nil {
		t.Fatalf("ingest with one connection slot: %v", err)
	}
	if v, err := w.Check(ctx, conn); err != nil || len(v) > 0 {
		t.Fatalf("after the load: %v %v", v, err)
	}
	if n := w.loadConnections(len(w.units())); opened != n || n < 2 {
		t.Errorf("%d connections opened, want the %d loaders' (at least 2, or the test shows nothing)", opened, n)
	}
	if len(slot) != 0 {
		t.Error("a loader's connection is still open")
	}
}

type slotConn struct {
	net.Conn
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
