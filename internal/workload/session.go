package workload

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/rawsock"
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

// OpenReplicated is Open with a connection to each of replicas too,
// given to the client in ClientInfo.Replicas: the session closes them
// with the client's own, and reports closed when any of them is (a
// replica gone is a lost connection, as the primary). A replica that
// cannot be reached (restarting: the fail-replica fault) is left out:
// the client reads from the others, or from its own connection when none
// answers, and the session says so (Missed), so that the driver opens it
// again a moment later. Without replicas it is Open.
func (c Connect) OpenReplicated(ctx context.Context, w Workload, replicas []Connect, info func() ClientInfo) (Client, Session, error) {
	if len(replicas) == 0 {
		return c.Open(ctx, w, info)
	}
	conn, err := c(ctx)
	if err != nil {
		return nil, nil, err
	}
	all := []Conn{conn}
	closeAll := func() {
		for _, x := range all {
			x.Close(context.Background())
		}
	}
	var missed error
	for _, rc := range replicas {
		r, err := rc(ctx)
		if err != nil {
			if ctx.Err() != nil {
				closeAll()
				return nil, nil, err
			}
			if missed == nil {
				missed = err
			}
			continue
		}
		all = append(all, r)
	}
	ci := info()
	ci.Replicas = all[1:]
	client, err := w.NewClient(ctx, conn, ci)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	ss := make(multiSession, len(all))
	for i, x := range all {
		ss[i] = session(x)
	}
	if missed != nil {
		return client, partialSession{ss, missed}, nil
	}
	return client, ss, nil
}

// partialSession is a client's connections without the replicas that
// could not be reached, and why the first could not.
type partialSession struct {
	multiSession
	missed error
}

// Missed is why a session lacks some of its client's replicas (one
// could not be reached when it opened), nil for a session with all.
func Missed(s Session) error {
	if p, ok := s.(partialSession); ok {
		return p.missed
	}
	return nil
}

// multiSession is a client's connections to the primary (first) and to
// the replicas as one Session.
type multiSession []Session

func (m multiSession) Close(ctx context.Context) error {
	var first error
	for _, s := range m {
		if err := s.Close(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (m multiSession) IsClosed() bool {
	for _, s := range m {
		if s.IsClosed() {
			return true
		}
	}
	return false
}

// Socket is the primary's socket, whose Close closes every socket: the
// watchdog's close then unblocks a client stuck on a replica too.
func (m multiSession) Socket() net.Conn {
	main := m[0].Socket()
	if main == nil {
		return nil
	}
	return multiSocket{Conn: main, all: m}
}

type multiSocket struct {
	net.Conn
	all multiSession
}

// Attach gives the waits of every socket, the replicas' too, to t
// (rawsock.Attach); false, and none, when one of them cannot.
func (s multiSocket) Attach(t *rawsock.Task) bool {
	for _, x := range s.all {
		if c := x.Socket(); c == nil || !rawsock.Attach(c, nil) {
			return false
		}
	}
	for _, x := range s.all {
		rawsock.Attach(x.Socket(), t)
	}
	return true
}

// Unpoll takes every socket, the replicas' too, out of Go's netpoller
// (rawsock.Unpoll); false when one of them cannot be.
func (s multiSocket) Unpoll() bool {
	for _, x := range s.all {
		if c := x.Socket(); c == nil || !rawsock.Unpoll(c) {
			return false
		}
	}
	return true
}

func (s multiSocket) Close() error {
	err := s.Conn.Close()
	for _, x := range s.all[1:] {
		if c := x.Socket(); c != nil {
			c.Close()
		}
	}
	return err
}
