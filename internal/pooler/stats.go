package pooler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// statsUser is the role the monitor reads a pooler's admin console as:
// pgbouncer's stats_users may run its SHOW commands and nothing else.
// Its password is drawn at each start and lives in the pooler's auth
// file (for its user only) and in this process's memory.
const statsUser = "tenantbench_stats"

// newStatsPassword draws the stats user's password.
func newStatsPassword() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// PoolStat is one pool of a pooler, a tenant's database and role pair,
// as its admin console shows it at one moment (pgbouncer's SHOW POOLS),
// with the cumulative figures of its database (SHOW STATS, which
// pgbouncer keeps per database only: shared by the tenants of one
// database in the schema and shared-table models).
type PoolStat struct {
	Database, User string
	// ClActive are the clients paired with a server connection (or idle
	// with none needed), ClWaiting those waiting for one; SvActive and
	// SvIdle the server connections in use and free.
	ClActive, ClWaiting, SvActive, SvIdle int64
	// MaxWait is how long the oldest waiting client has waited.
	MaxWait time.Duration
	// DBXacts and DBQueries are the transactions and queries pooled for
	// the database since the pooler started; DBWait the time its clients
	// spent waiting for a server connection, summed over them.
	DBXacts, DBQueries int64
	DBWait             time.Duration
}

// statsConn is the admin console session of a running pooler, opened at
// the first Stats and again after an error.
type statsConn struct {
	mu sync.Mutex
	// host and port are where the pooler listens: loopback, or the
	// address of the network namespace it runs in.
	host     string
	port     int
	password string
	conn     *pgx.Conn
}

// Stats reads the pooler's pools and its databases' totals (the stats
// user's own pool left out). Safe for concurrent use.
func (p *Process) Stats(ctx context.Context) ([]PoolStat, error) {
	s := p.stats
	if s == nil {
		return nil, errors.New("the pooler has no stats user")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d dbname=pgbouncer user=%s password=%s sslmode=disable connect_timeout=5",
			s.host, s.port, statsUser, s.password))
		if err != nil {
			return nil, err
		}
		// The admin console speaks only the simple query protocol.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		if s.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return nil, fmt.Errorf("pooler admin console: %w", err)
		}
	}
	pools, err := show(ctx, s.conn.PgConn(), "SHOW POOLS")
	if err == nil {
		var stats []map[string]string
		if stats, err = show(ctx, s.conn.PgConn(), "SHOW STATS"); err == nil {
			return poolStats(pools, stats), nil
		}
	}
	_ = s.conn.Close(context.WithoutCancel(ctx))
	s.conn = nil
	return nil, fmt.Errorf("pooler admin console: %w", err)
}

// closeStats closes the admin console session, if open.
func (p *Process) closeStats() {
	if s := p.stats; s != nil {
		s.mu.Lock()
		if s.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = s.conn.Close(ctx)
			cancel()
			s.conn = nil
		}
		s.mu.Unlock()
	}
}

// show runs an admin console command and returns its rows by column
// name: the columns differ between pgbouncer versions.
func show(ctx context.Context, pg *pgconn.PgConn, cmd string) ([]map[string]string, error) {
	rs, err := pg.Exec(ctx, cmd).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, r := range rs {
		for _, row := range r.Rows {
			m := make(map[string]string, len(row))
			for i, v := range row {
				m[r.FieldDescriptions[i].Name] = string(v)
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// poolStats joins SHOW POOLS' rows with their database's SHOW STATS row.
func poolStats(pools, stats []map[string]string) []PoolStat {
	byDB := map[string]map[string]string{}
	for _, s := range stats {
		byDB[s["database"]] = s
	}
	num := func(m map[string]string, k string) int64 {
		n, _ := strconv.ParseInt(m[k], 10, 64)
		return n
	}
	var out []PoolStat
	for _, p := range pools {
		if p["user"] == statsUser || p["database"] == "pgbouncer" {
			continue
		}
		ps := PoolStat{Database: p["database"], User: p["user"],
			ClActive: num(p, "cl_active"), ClWaiting: num(p, "cl_waiting"),
			SvActive: num(p, "sv_active"), SvIdle: num(p, "sv_idle"),
			MaxWait: time.Duration(num(p, "maxwait"))*time.Second + time.Duration(num(p, "maxwait_us"))*time.Microsecond}
		if s, ok := byDB[ps.Database]; ok {
			ps.DBXacts, ps.DBQueries = num(s, "total_xact_count"), num(s, "total_query_count")
			ps.DBWait = time.Duration(num(s, "total_wait_time")) * time.Microsecond
		}
		out = append(out, ps)
	}
	return out
}
