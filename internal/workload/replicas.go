package workload

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Reads on replicas (sut.replicas, workload.reads: replicas). A client is
// given a connection to each replica of its tenant's server
// (ClientInfo.Replicas) when its reads go there or when its workload
// reads from the replicas by design (ReplicaUser); it sends its
// read-only transactions to them round-robin, from the replica its
// index names, and everything else to its own connection, the primary.

// ReadOnly is implemented by workloads some of whose transactions only
// read: with workload.reads: replicas the plan accepts them, and their
// clients send those transactions to the replicas.
type ReadOnly interface {
	// ReadOnly says whether the transaction type named txn (one of
	// TxnNames) only reads.
	ReadOnly(txn string) bool
}

// ReplicaUser is implemented by workloads whose clients read from the
// replicas whatever workload.reads says (lag: it reads its own writes
// back there): the plan refuses a run of one without replicas.
type ReplicaUser interface {
	UsesReplicas() bool
}

// ReadOnlyTxns are the names of w's read-only transactions, none for a
// workload that is not ReadOnly.
func ReadOnlyTxns(w Workload) []string {
	ro, ok := w.(ReadOnly)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range w.TxnNames() {
		if ro.ReadOnly(n) {
			out = append(out, n)
		}
	}
	return out
}

// UsesReplicas says whether w's clients need the replicas whatever
// workload.reads says.
func UsesReplicas(w Workload) bool {
	u, ok := w.(ReplicaUser)
	return ok && u.UsesReplicas()
}

// Replica is a client's connection to one replica: its wire, its context
// watch, and S, what the workload prepared there.
type Replica[S any] struct {
	PG    *pgconn.PgConn
	Wire  Wire
	Watch Watcher
	Stmt  S
}

// Replicas are a client's replicas, taken in turn.
type Replicas[S any] struct {
	list []Replica[S]
	next int
}

// OpenReplicas readies each of conns (a client's ClientInfo.Replicas) with
// prepare, which prepares there what the workload runs on a replica; the
// rotation starts at the client's index, so that a tenant's clients
// spread over the replicas. name is the workload's, for a connection it
// has no form for.
func OpenReplicas[S any](ctx context.Context, name string, conns []Conn, index int,
	prepare func(context.Context, *pgx.Conn) (S, error)) (Replicas[S], error) {
	var out Replicas[S]
	for _, rc := range conns {
		conn, ok := PG(rc)
		if !ok {
			return out, NoForm(name, rc)
		}
		st, err := prepare(ctx, conn)
		if err != nil {
			return out, err
		}
		w, err := NewWire(ctx, conn.PgConn())
		if err != nil {
			return out, err
		}
		out.list = append(out.list, Replica[S]{PG: conn.PgConn(), Wire: w, Stmt: st})
	}
	if len(out.list) > 0 {
		out.next = index % len(out.list)
	}
	return out, nil
}

// Len is how many replicas there are: 0 sends everything to the primary.
func (r *Replicas[S]) Len() int { return len(r.list) }

// Next is the replica whose turn it is, watching ctx.
func (r *Replicas[S]) Next(ctx context.Context) (*Replica[S], error) {
	p := &r.list[r.next]
	r.next = (r.next + 1) % len(r.list)
	return p, p.Watch.Watch(ctx, p.PG)
}
