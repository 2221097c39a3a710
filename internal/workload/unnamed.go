package workload

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// A pooler in transaction mode (pgbouncer before 1.21) moves a client
// between server connections from one transaction to the next: a
// statement it prepared under a name on one is unknown on the next, and
// another client's statement of the same name may be there already. The
// run then asks pgx for unnamed statements (the connection's
// DefaultQueryExecMode is not the cache of named ones:
// engine.Pooled.Unnamed), and the workloads that prepare their own
// statements follow it with Prepare and Wire.Unnamed: each statement is
// described once, then sent unnamed with every execution (Parse, Bind,
// Execute, Sync in one write: still one round trip).

// UnnamedRunner is implemented by workloads whose clients follow a
// connection that asks for unnamed statements: they prepare their own
// with Prepare and Wire.Unnamed, or leave them to pgx. The plan refuses
// a pooler that cannot keep named statements for a workload without it.
type UnnamedRunner interface {
	RunsUnnamed() bool
}

// RunsUnnamed says whether w's clients run behind a pooler that cannot
// keep named statements.
func RunsUnnamed(w Workload) bool {
	r, ok := w.(UnnamedRunner)
	return ok && r.RunsUnnamed()
}

// Unnamed says conn's statements must not be named.
func Unnamed(conn *pgx.Conn) bool {
	return conn.Config().DefaultQueryExecMode != pgx.QueryExecModeCacheStatement
}

// Prepare prepares sql on conn under name; on a connection whose
// statements must go unnamed it describes sql as the unnamed statement
// instead, and the description it returns still carries name, for
// Wire.RoundTrip.
func Prepare(ctx context.Context, conn *pgx.Conn, name, sql string) (*pgconn.StatementDescription, error) {
	if !Unnamed(conn) {
		return conn.Prepare(ctx, name, sql)
	}
	sd, err := conn.PgConn().Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, err
	}
	sd.Name = name
	return sd, nil
}

// Unnamed makes w send each of sds as the unnamed statement with every
// execution of its name: for a connection whose statements must not be
// named (Unnamed), with the descriptions Prepare returned.
func (w *Wire) Unnamed(sds ...*pgconn.StatementDescription) {
	if w.unnamed == nil {
		w.unnamed = map[string]*pgproto3.Parse{}
	}
	for _, sd := range sds {
		w.unnamed[sd.Name] = &pgproto3.Parse{Query: sd.SQL, ParameterOIDs: sd.ParamOIDs}
	}
}

// SessionBound is implemented by workloads some of whose options keep
// state in the server's session (a SET that later transactions rely
// on). A pooler that hands a client's transactions to whichever server
// connection is free (pgbouncer's transaction mode) keeps no session for
// the client, so the plan refuses such an option behind it.
type SessionBound interface {
	// SessionState names the option (its key in workload.options) and
	// value that needs the session, and why; "" when none does.
	SessionState() (option, value, why string)
}

// NamedReplicaReads is implemented by workloads whose reads on replicas
// need named statements on the primary: their clients move a read-only
// transaction to a replica's session by the names its statements were
// prepared under, which an unnamed statement (described on one
// connection, sent with its text) cannot follow. Behind a pooler that
// cannot keep named statements the plan refuses such reads on replicas.
type NamedReplicaReads interface {
	// ReplicaReadsNamed says why the reads on replicas need named
	// statements; "" when they do not.
	ReplicaReadsNamed() (why string)
}

// ReplicaReadsNamed is why w's reads on replicas need named statements
// on the primary, "" when they do not.
func ReplicaReadsNamed(w Workload) string {
	if n, ok := w.(NamedReplicaReads); ok {
		return n.ReplicaReadsNamed()
	}
	return ""
}
