package workload

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5"
)

// Session is a client's connection as the driver holds it, whatever the
// engine: the driver closes it, asks whether the server closed it, and its
// watchdog closes the socket under a stuck client from another goroutine.
type Session interface {
	Close(ctx context.Context) error
	IsClosed() bool
	// Socket is the connection's network socket.
	Socket() net.Conn
}

// Open opens a connection as the tenant and prepares one terminal of w on
// it: what the driver needs of a tenant to run a client, with no knowledge
// of the engine's connection type. info is asked once connected, so that a
// failed attempt draws no seed. The connection is closed when the client
// cannot be made.
func (c Connect) Open(ctx context.Context, w Workload, info func() ClientInfo) (Client, Session, error) {
	conn, err := c(ctx)
	if err != nil {
		return nil, nil, err
	}
	client, err := w.NewClient(ctx, conn, info())
	if err != nil {
		conn.Close(context.Background())
		return nil, nil, err
	}
	return client, session(conn), nil
}

// session is conn as the driver holds it: a *pgx.Conn's socket is its
// PgConn's; another engine's connection gives its own (server.Socket).
func session(conn Conn) Session {
	if pg, ok := PG(conn); ok {
		return pgxSession{pg}
	}
	if s, ok := conn.(Session); ok {
		return s
	}
	return noSocket{conn}
}

// noSocket is a connection that cannot give its socket: the watchdog
// closes it instead.
type noSocket struct{ Conn }

func (noSocket) Socket() net.Conn { return nil }

// pgxSession is a PostgreSQL connection as a Session.
type pgxSession struct{ *pgx.Conn }

func (s pgxSession) Socket() net.Conn { return s.PgConn().Conn() }
