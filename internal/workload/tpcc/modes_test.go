package tpcc

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// TestInteractions runs every interaction against one loaded database:
// the same read-only input gives the same answers in each; the round trips
// and statements each sends are counted at the protocol level; a mixed run
// leaves the database consistent, and the New-Orders it counted committed
// are exactly those the districts handed out.
func TestInteractions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and loads 2 warehouses")
	}
	o := DefaultOptions()
	o.Interaction = InteractionProcedures // Setup creates the functions
	te := loadTenant(t, 2, o)
	ctx := context.Background()

	t.Run("same answers", func(t *testing.T) {
		type status struct{ cid, oid, lines int }
		type answers struct {
			status []status
			low    []int64
		}
		got := map[string]answers{}
		for _, mode := range Interactions {
			te.w.opts.Interaction = mode
			c := te.client(t, 0, 1, 7)
			var a answers
			for range 30 {
				c.orderStatus.draw(c, 1)
				if err := c.execute(ctx, OrderStatus); err != nil {
					t.Fatalf("%s: order_status: %v", mode, err)
				}
				a.status = append(a.status, status{c.orderStatus.cid, c.orderStatus.oid, c.orderStatus.lines})
				c.stockLevel.draw(c, 1)
				if err := c.execute(ctx, StockLevel); err != nil {
					t.Fatalf("%s: stock_level: %v", mode, err)
				}
				a.low = append(a.low, c.stockLevel.low)
			}
			got[mode] = a
		}
		want := got[InteractionBatched]
		for _, mode := range Interactions {
			g := got[mode]
			for i := range want.status {
				if g.status[i] != want.status[i] || g.low[i] != want.low[i] {
					t.Errorf("%s: answer %d: order status %+v, low stock %d; batched gave %+v, %d",
						mode, i, g.status[i], g.low[i], want.status[i], want.low[i])
				}
			}
		}
	})

	t.Run("rollback", func(t *testing.T) {
		for _, mode := range Interactions {
			te.w.opts.Interaction = mode
			c := te.client(t, 0, 1, 9)
			next := te.int(t, "select sum(d_next_o_id) from district")
			lines := te.int(t, "select count(*) from order_line")
			c.newOrder.draw(c, 1)
			c.newOrder.rollback = true
			c.newOrder.line[c.newOrder.n-1].item = unusedItem
			if err := c.runDrawn(ctx, NewOrder); !errors.Is(err, workload.ErrRollback) {
				t.Fatalf("%s: run = %v, want ErrRollback", mode, err)
			}
			if c.p.txStatus() != 'I' {
				t.Fatalf("%s: transaction status %c after the rollback", mode, c.p.txStatus())
			}
			if te.int(t, "select sum(d_next_o_id) from district") != next || te.int(t, "select count(*) from order_line") != lines {
				t.Fatalf("%s: the rolled back New-Order left changes", mode)
			}
			if c.Counts().Rollbacks != 1 || c.Counts().Txns[NewOrder] != 1 {
				t.Errorf("%s: counts %+v, want one New-Order rolled back", mode, c.Counts())
			}
		}
	})

	// Unnamed statements (a connection in pgx's cache_describe mode, as
	// behind a pooler that cannot keep named ones) take the same round
	// trips: one Parse rides with each Execute; named ones send none.
	t.Run("round trips", func(t *testing.T) {
		for _, unnamed := range []bool{false, true} {
			for _, mode := range Interactions {
				te.w.opts.Interaction = mode
				wire := &wireCount{}
				conn := te.openCounted(t, wire, unnamed)
				cl, err := te.w.NewClient(ctx, conn, clientInfo(0, 1, 11))
				if err != nil {
					t.Fatal(err)
				}
				c := cl.(*Client)
				for typ := range numTxns {
					for range 20 {
						if typ == NewOrder {
							drawCommitting(c, 1)
						}
						before := wire.get()
						var err error
						if typ == NewOrder {
							err = c.runDrawn(ctx, NewOrder)
						} else {
							err = c.Run(ctx, typ)
						}
						if err != nil {
							t.Fatalf("%s: %s: %v", mode, txnNames[typ], err)
						}
						d := wire.get().minus(before)
						want := claimedTrips(c, mode, typ)
						if d.syncs != want {
							t.Fatalf("%s: %s: %d round trips, want %d", mode, txnNames[typ], d.syncs, want)
						}
						if mode != InteractionBatched && d.executes != d.syncs {
							t.Fatalf("%s: %s: %d statements in %d round trips, want one each", mode, txnNames[typ], d.executes, d.syncs)
						}
						if wantParses := map[bool]int{false: 0, true: d.executes}[unnamed]; d.parses != wantParses {
							t.Fatalf("%s unnamed %v: %s: %d statements parsed of %d, want %d", mode, unnamed, txnNames[typ], d.parses, d.executes, wantParses)
						}
					}
				}
			}
		}
	})

	t.Run("allocations", func(t *testing.T) {
		// The hot path allocates nothing per transaction in any mode. (A
		// procedure's rollback is an error from the server, which pgconn
		// allocates: the New-Orders here commit.)
		for _, mode := range Interactions {
			te.w.opts.Interaction = mode
			c := te.client(t, 0, 1, 13)
			for typ := range numTxns {
				run := func() {
					var err error
					if typ == NewOrder {
						drawCommitting(c, 1)
						err = c.runDrawn(ctx, typ)
					} else {
						err = c.Run(ctx, typ)
					}
					if err != nil {
						t.Fatalf("%s: %s: %v", mode, txnNames[typ], err)
					}
				}
				run() // the first may grow buffers
				if n := testing.AllocsPerRun(20, run); n > 0 {
					t.Errorf("%s: %s: %.1f allocations per transaction, want 0", mode, txnNames[typ], n)
				}
			}
		}
	})

	for _, mode := range Interactions {
		t.Run("retries "+mode, func(t *testing.T) {
			// Under repeatable read, 8 terminals on 2 warehouses conflict:
			// serialization failures are retried with the same input in
			// every mode, and the database stays consistent.
			te.w.opts.Interaction, te.w.opts.Isolation, te.w.opts.Retries = mode, IsolationRepeatableRead, 50
			defer func() { te.w.opts.Isolation, te.w.opts.Retries = IsolationReadCommitted, 3 }()
			_, retries := runMixed(t, te, 8, 3*time.Second)
			var sum int64
			for _, n := range retries {
				sum += n
			}
			if sum == 0 {
				t.Errorf("no retry under repeatable read with 8 terminals on 2 warehouses")
			}
			te.mustCheck(t, true)
		})
	}

	for _, mode := range Interactions {
		t.Run("mixed "+mode, func(t *testing.T) {
			te.w.opts.Interaction = mode
			next := te.int(t, "select sum(d_next_o_id) from district")
			counts, _ := runMixed(t, te, 4, 3*time.Second)
			te.mustCheck(t, true)
			if got, want := te.int(t, "select sum(d_next_o_id) from district")-next, counts.Txns[NewOrder]-counts.Rollbacks; got != want {
				t.Errorf("%d orders numbered, %d New-Orders counted committed", got, want)
			}
			if counts.Rollbacks == 0 && counts.Txns[NewOrder] > 1000 {
				t.Errorf("no rollback among %d New-Orders", counts.Txns[NewOrder])
			}
		})
	}
}

// claimedTrips is the round trips the documentation says transaction typ,
// as c last drew it, takes in mode.
func claimedTrips(c *Client, mode string, typ int) int {
	switch mode {
	case InteractionProcedures:
		return 1
	case InteractionBatched:
		if typ == NewOrder {
			return 2
		}
		return 1
	}
	switch typ {
	case NewOrder:
		return 10 + c.newOrder.n
	case Payment:
		if c.payment.byLast {
			return 10
		}
		return 9
	case OrderStatus:
		n := 5
		if c.orderStatus.byLast {
			n++
		}
		if c.orderStatus.oid == 0 {
			n--
		}
		return n
	case Delivery:
		return 2 + districtsPerW + 5*c.delivery.delivered
	}
	return 4
}

// wireCount counts the messages a connection sends: Sync ends a round trip
// of the extended protocol, Query is one of the simple protocol, Execute
// runs a statement.
type wireCount struct {
	mu   sync.Mutex
	on   bool // counting: the connection is open
	n    wireCounts
	tail []byte // a message not yet whole
}

type wireCounts struct{ syncs, executes, parses int }

func (a wireCounts) minus(b wireCounts) wireCounts {
	return wireCounts{a.syncs - b.syncs, a.executes - b.executes, a.parses - b.parses}
}

func (w *wireCount) get() wireCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// sent parses the frontend messages in b, each a type byte and a length.
func (w *wireCount) sent(b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.on {
		return
	}
	w.tail = append(w.tail, b...)
	for len(w.tail) >= 5 {
		n := int(binary.BigEndian.Uint32(w.tail[1:5])) + 1
		if len(w.tail) < n {
			return
		}
		switch w.tail[0] {
		case 'S':
			w.n.syncs++
		case 'Q':
			w.n.syncs++
			w.n.executes++
		case 'E':
			w.n.executes++
		case 'P':
			w.n.parses++
		}
		w.tail = w.tail[n:]
	}
}

type countingConn struct {
	net.Conn
	w *wireCount
}

func (c countingConn) Write(b []byte) (int, error) {
	c.w.sent(b)
	return c.Conn.Write(b)
}

// openCounted opens a connection of the tenant whose messages w counts
// once it is open (the startup and authentication are not counted);
// unnamed asks for unnamed statements, as a pooler's DSN does.
func (te *tenant) openCounted(t *testing.T, w *wireCount, unnamed bool) *pgx.Conn {
	t.Helper()
	wc, err := te.connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	probe, ok := workload.PG(wc)
	if !ok {
		t.Fatal("not a PostgreSQL connection")
	}
	cfg := probe.Config().Copy()
	probe.Close(context.Background())
	if unnamed {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, w}, nil
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	w.mu.Lock()
	w.on = true
	w.mu.Unlock()
	return conn
}
