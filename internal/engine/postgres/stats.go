package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// The monitor's statistics session (engine.Statistics): pg_stat_activity
// read through a prepared statement in binary, roles and databases named
// from a cache of their oids, and the cumulative statistics views read
// generically. Moved here from the monitor, so that the monitor imports no
// client library.

// statsTimeout bounds every query of the session, so that a server that
// hangs does not hang the monitor.
const statsTimeout = 5 * time.Second

// activityStmt names the prepared activity query.
const activityStmt = "tenantbench_monitor_activity"

// activityTypes are the types of the activity query's columns, received in
// binary: the integers as 4 big-endian bytes, the texts as their bytes.
var activityTypes = [...]uint32{pgtype.Int4OID, pgtype.TextOID, pgtype.OIDOID, pgtype.OIDOID, pgtype.TextOID, pgtype.TextOID, pgtype.TextOID}

// binaryResults asks for every result column in binary.
var binaryResults = []int16{pgtype.BinaryFormatCode}

// stats is a statistics session.
type stats struct {
	conn  *pgx.Conn
	act   *pgconn.StatementDescription
	names oidNames
	// pending are the rows of sessions whose role or database was not
	// in the cache while the result was read: named once it is.
	pending []pendingRow
	row     dbserver.Activity
	// dbBlocks and schemaBlocks are the block queries, prepared at their
	// first use (blocks.go).
	dbBlocks, schemaBlocks *pgconn.StatementDescription
}

// OpenStats connects as "tenantbench monitor" and prepares the activity
// query. Executing the statement by its description (pgconn's
// ExecStatement) spares the Describe a prepared statement's execution
// otherwise sends.
func (e Engine) OpenStats(ctx context.Context, dsn string) (dbserver.Stats, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("bad admin connection settings") // never echo the DSN: it holds the password
	}
	cfg.RuntimeParams["application_name"] = "tenantbench monitor"
	cfg.ConnectTimeout = statsTimeout
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("monitor connection: %w", err)
	}
	s := &stats{conn: conn}
	if err := s.prepare(ctx, e.ActivityQuery()); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return s, nil
}

func (s *stats) prepare(ctx context.Context, query string) error {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	sd, err := s.conn.PgConn().Prepare(ctx, activityStmt, query, nil)
	if err != nil {
		return fmt.Errorf("prepare the pg_stat_activity query: %w", err)
	}
	if len(sd.Fields) != len(activityTypes) {
		return fmt.Errorf("pg_stat_get_activity: %d columns, want %d", len(sd.Fields), len(activityTypes))
	}
	for i, f := range sd.Fields {
		if f.DataTypeOID != activityTypes[i] {
			return fmt.Errorf("pg_stat_get_activity: column %s has type oid %d, want %d", f.Name, f.DataTypeOID, activityTypes[i])
		}
	}
	s.act = sd
	return nil
}

func (s *stats) Pid() int { return int(s.conn.PgConn().PID()) }

func (s *stats) IsClosed() bool { return s.conn.IsClosed() }

func (s *stats) Close(ctx context.Context) error { return s.conn.Close(ctx) }

func (s *stats) Ping(ctx context.Context) error { return s.conn.Ping(ctx) }

// PresentViews asks the catalog which views exist.
func (s *stats) PresentViews(ctx context.Context, views []string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	rows, err := s.conn.Query(ctx,
		`SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, o) WHERE to_regclass('pg_catalog.' || v) IS NOT NULL ORDER BY o`,
		views)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ReadView reads every column generically (every number a value, every
// text a part of the row key), so that the columns each server version
// adds or drops need no code.
func (s *stats) ReadView(ctx context.Context, view string) (map[string]map[string]float64, map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	// view is one of the engine's StatisticsViews, never a user value.
	rows, err := s.conn.Query(ctx, "SELECT * FROM pg_catalog."+view)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	out, resets := map[string]map[string]float64{}, map[string]string{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, nil, err
		}
		var key []string
		cols := map[string]float64{}
		reset := ""
		for i, v := range vals {
			name := fields[i].Name
			switch x := v.(type) {
			case string:
				key = append(key, x)
			case nil:
				if fields[i].DataTypeOID == pgtype.TextOID || fields[i].DataTypeOID == pgtype.NameOID {
					key = append(key, "(null)")
				}
			case time.Time:
				if name == "stats_reset" {
					reset = x.String()
				}
			default:
				if f, ok := number(v); ok && name != "datid" {
					cols[name] = f
				}
			}
		}
		k := "all"
		if len(key) > 0 {
			k = strings.Join(key, "/")
		}
		out[k] = cols
		resets[k] = reset
	}
	return out, resets, rows.Err()
}

// number converts the numeric types statistics views use.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case pgtype.Numeric: // pg_stat_wal.wal_bytes
		f, err := x.Float64Value()
		return f.Float64, err == nil && f.Valid
	}
	return 0, false
}

// SharedMemory reads pg_shmem_allocations; a server before 13 has none
// (SQLSTATE 42P01), which is not an error.
func (s *stats) SharedMemory(ctx context.Context) (int64, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	var v int64
	err := s.conn.QueryRow(ctx, Engine{}.SharedMemoryQuery()).Scan(&v)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table: a server before 13
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("read pg_shmem_allocations: %w", err)
	}
	return v, true, nil
}

// Activity reads pg_stat_activity once. The row values reference the
// connection's read buffer: nothing is allocated per row but for the rows
// of sessions whose role or database the name cache lacks (a role or
// database made since: a tenant's, so at most a few times a run), kept and
// named once the result is read.
func (s *stats) Activity(ctx context.Context, fn func(a *dbserver.Activity)) error {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	self := s.conn.PgConn().PID()
	rr := s.conn.PgConn().ExecStatement(ctx, s.act, nil, nil, binaryResults)
	a := &s.row
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != len(activityTypes) || len(v[0]) != 4 {
			continue
		}
		pid := binary.BigEndian.Uint32(v[0])
		if pid == self {
			continue
		}
		role, db := oidOf(v[2]), oidOf(v[3])
		user, dbName, ok := s.names.lookup(role, db)
		if !ok {
			s.pending = append(s.pending, pendingRow{pid: int(int32(pid)), typ: clone(v[1]), role: role, db: db,
				state: clone(v[4]), wtype: clone(v[5]), wname: clone(v[6])})
			continue
		}
		*a = dbserver.Activity{Pid: int(int32(pid)), Type: v[1], HasRole: role != 0, Named: true, User: user, Database: dbName,
			State: v[4], WaitType: v[5], WaitName: v[6]}
		fn(a)
	}
	_, err := rr.Close()
	if len(s.pending) > 0 {
		err = errors.Join(err, s.namePending(ctx, err == nil, fn))
	}
	return err
}

// ForgetNames empties the name cache: the next Activity reads the names
// again (server.NameCache).
func (s *stats) ForgetNames() { s.names = oidNames{} }

var _ dbserver.NameCache = (*stats)(nil)

// pendingRow is a session whose role or database oid was not in the cache
// when its row was read.
type pendingRow struct {
	pid                      int
	role, db                 uint32
	typ, state, wtype, wname []byte
}

// namePending reads the roles' and databases' names again (when the
// connection still works) and hands on the pending sessions: named, or
// unnamed when the names could not be read (named at a later read).
func (s *stats) namePending(ctx context.Context, connOK bool, fn func(a *dbserver.Activity)) error {
	var err error
	if connOK {
		if err = s.names.refresh(ctx, s.conn, Engine{}.NamesQuery()); err != nil {
			err = fmt.Errorf("read role and database names: %w", err)
		}
	}
	named := connOK && err == nil
	for i, r := range s.pending {
		a := dbserver.Activity{Pid: r.pid, Type: r.typ, HasRole: r.role != 0, Named: named,
			State: r.state, WaitType: r.wtype, WaitName: r.wname}
		if named {
			a.User, a.Database, _ = s.names.lookup(r.role, r.db) // not found: dropped, as a NULL usename or datname
		}
		fn(&a)
		s.pending[i] = pendingRow{}
	}
	s.pending = s.pending[:0]
	return err
}

// oidNames names roles and databases by oid for the sessions'
// attribution.
type oidNames struct {
	roles, dbs map[uint32][]byte
}

// lookup names a role and a database; oid 0 has no name. ok is false when
// an oid is not in the cache.
func (n *oidNames) lookup(role, db uint32) (user, dbName []byte, ok bool) {
	if role != 0 {
		if user, ok = n.roles[role]; !ok {
			return nil, nil, false
		}
	}
	if db != 0 {
		if dbName, ok = n.dbs[db]; !ok {
			return nil, nil, false
		}
	}
	return user, dbName, true
}

func (n *oidNames) refresh(ctx context.Context, conn *pgx.Conn, query string) error {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return err
	}
	roles, dbs := map[uint32][]byte{}, map[uint32][]byte{}
	var (
		isRole bool
		oid    uint32
		name   string
	)
	_, err = pgx.ForEachRow(rows, []any{&isRole, &oid, &name}, func() error {
		if isRole {
			roles[oid] = []byte(name)
		} else {
			dbs[oid] = []byte(name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	n.roles, n.dbs = roles, dbs
	return nil
}

// oidOf decodes a binary oid; NULL is 0 (no role, no database).
func oidOf(b []byte) uint32 {
	if len(b) != 4 {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

var _ dbserver.BlockStats = (*stats)(nil)

// replicationQuery reads pg_stat_replication: the lags are intervals,
// NULL when the primary has had nothing to send for a while.
const replicationQuery = `SELECT application_name::text, state::text,
 coalesce(extract(epoch FROM write_lag)::float8, -1), coalesce(extract(epoch FROM flush_lag)::float8, -1),
 coalesce(extract(epoch FROM replay_lag)::float8, -1),
 coalesce(pg_wal_lsn_diff(sent_lsn, replay_lsn)::int8, -1)
 FROM pg_stat_replication ORDER BY application_name`

// Replication reads how far each standby lags (dbserver.Replication).
func (s *stats) Replication(ctx context.Context) ([]dbserver.StandbyLag, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	rows, err := s.conn.Query(ctx, replicationQuery)
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_replication: %w", err)
	}
	defer rows.Close()
	var out []dbserver.StandbyLag
	for rows.Next() {
		var l dbserver.StandbyLag
		if err := rows.Scan(&l.Name, &l.State, &l.WriteS, &l.FlushS, &l.ReplayS, &l.ReplayBehindBytes); err != nil {
			return nil, fmt.Errorf("read pg_stat_replication: %w", err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pg_stat_replication: %w", err)
	}
	return out, nil
}

var _ dbserver.Replication = (*stats)(nil)
