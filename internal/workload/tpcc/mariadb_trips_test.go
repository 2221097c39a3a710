package tpcc

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// testMariaTrips counts, at the protocol level, the commands a MariaDB
// terminal sends per transaction: each command is one round trip (the
// server answers every one these send), in `statements` one statement
// each, as many as claimedMariaTrips says; in `procedures` one CALL.
func testMariaTrips(t *testing.T, w *Workload, connect workload.Connect, admin *mariadb.Conn) {
	ctx := context.Background()
	for _, mode := range []string{InteractionStatements, InteractionProcedures} {
		w.opts.Interaction = mode
		count := &mariaCount{}
		cc, err := connect(context.WithValue(ctx, mariaWrapKey{}, count))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close(ctx)
		wc, err := w.NewClient(ctx, cc, clientInfo(0, 1, 31))
		if err != nil {
			t.Fatal(err)
		}
		c := wc.(*Client)
		count.start()
		for typ := range numTxns {
			for range 20 {
				if typ == NewOrder {
					drawCommitting(c, 1)
				}
				before := count.get()
				if typ == NewOrder {
					err = c.runDrawn(ctx, NewOrder)
				} else {
					err = c.Run(ctx, typ)
				}
				if err != nil {
					t.Fatalf("%s: %s: %v", mode, txnNames[typ], err)
				}
				d := count.get().minus(before)
				want := 1
				if mode == InteractionStatements {
					want = claimedMariaTrips(t, c, typ, admin)
				}
				if d.commands != want || d.several != 0 {
					t.Fatalf("%s: %s: %d round trips (%d of several statements), want %d of one statement each",
						mode, txnNames[typ], d.commands, d.several, want)
				}
			}
		}
		// A statement is prepared once per connection.
		seen := map[string]bool{}
		for _, q := range count.prepared {
			if seen[q] {
				t.Errorf("%s: %q prepared again", mode, q)
			}
			seen[q] = true
		}
		// What procedures executes is what it prepared: CALLs only.
		if mode == InteractionProcedures {
			for _, q := range count.prepared {
				if !strings.HasPrefix(q, "CALL ") {
					t.Errorf("procedures prepared %q, not a CALL", q)
				}
			}
			if len(count.prepared) != numTxns {
				t.Errorf("procedures prepared %d statements, want a CALL per transaction type (%d)", len(count.prepared), numTxns)
			}
		}
	}
}

// claimedMariaTrips is what docs/workloads-tpcc.md says transaction typ,
// as c last ran it, takes in `statements` on MariaDB: PostgreSQL's, but
// for Payment's reads of the warehouse and district it updated (no UPDATE
// ... RETURNING) and of a bad-credit customer's C_DATA, and Delivery's
// reads of each order's customer and amount.
func claimedMariaTrips(t *testing.T, c *Client, typ int, admin *mariadb.Conn) int {
	switch typ {
	case Payment:
		n := 9
		if c.payment.byLast {
			n++
		}
		got, err := admin.QueryStrings(context.Background(), "select c_credit from customer where c_w_id = ? and c_d_id = ? and c_id = ?",
			c.payment.cw, c.payment.cd, c.payment.cid)
		if err != nil || len(got) != 1 {
			t.Fatalf("the paid customer's credit: %v %v", got, err)
		}
		if got[0] == "BC" {
			n++
		}
		return n
	case Delivery:
		return 2 + districtsPerW + 6*c.delivery.delivered
	}
	return claimedTrips(c, InteractionStatements, typ)
}

// mariaWrapKey carries, in a connect's context, the count that wraps the
// new connection's socket (the test's connect reads it).
type mariaWrapKey struct{}

// mariaCount counts the commands the client writes: a packet whose
// sequence number is 0 begins one (the MariaDB client/server protocol,
// "Command Phase"); those that the server does not answer (COM_QUIT,
// COM_STMT_CLOSE) are no round trip, and a statement's preparation, once
// per connection on its first use, is kept apart.
type mariaCount struct {
	mu       sync.Mutex
	on       bool
	n        mariaCounts
	prepared []string // every statement's text prepared, counting or not
}

type mariaCounts struct{ commands, several int }

func (a mariaCounts) minus(b mariaCounts) mariaCounts {
	return mariaCounts{a.commands - b.commands, a.several - b.several}
}

func (m *mariaCount) start() { m.mu.Lock(); m.on = true; m.mu.Unlock() }

func (m *mariaCount) get() mariaCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

// Command bytes (MariaDB protocol).
const (
	comQuit        = 0x01
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtClose   = 0x19
)

// sent reads one packet as go-sql-driver writes it: a 3-byte length, the
// sequence number, the payload, in one Write.
func (m *mariaCount) sent(b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(b) < 5 || b[3] != 0 {
		return
	}
	cmd, body := b[4], b[5:]
	if cmd == comStmtPrepare {
		m.prepared = append(m.prepared, string(body))
	}
	if !m.on {
		return
	}
	switch cmd {
	case comQuit, comStmtClose:
	case comStmtPrepare:
		// Once per statement text and connection (checked apart), on
		// its first use: the round trips of a transaction are counted
		// without them.
	case comQuery:
		m.n.commands++
		if bytes.ContainsRune(bytes.TrimRight(body, "; \n"), ';') {
			m.n.several++
		}
	default:
		m.n.commands++
	}
}

type mariaCounting struct {
	net.Conn
	m *mariaCount
}

func (c mariaCounting) Write(b []byte) (int, error) {
	c.m.sent(b)
	return c.Conn.Write(b)
}
