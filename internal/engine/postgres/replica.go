package postgres

import (
	"fmt"
	"path/filepath"
	"strings"

	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// Streaming replication: a standby is a pg_basebackup of the running
// primary that keeps streaming its WAL through a physical replication
// slot, so that the primary keeps the WAL a slow standby still needs.

// BaseBackup is pg_basebackup over the primary's unix socket: -R writes
// primary_conninfo and primary_slot_name to the copy's
// postgresql.auto.conf and its standby.signal, -C -S creates the slot
// first (the WAL streamed meanwhile, -X stream, goes through it), and a
// fast checkpoint starts the copy at once rather than at the next
// scheduled checkpoint.
func (Engine) BaseBackup(p dbserver.Programs, s dbserver.Standby) (args, env []string) {
	return []string{filepath.Join(binariesOf(p).Dir, "pg_basebackup"),
			"-h", s.SocketDir, "-p", fmt.Sprint(s.Port), "-U", s.User, "-w",
			"-D", s.DataDir, "-X", "stream", "-R", "-C", "-S", s.Slot, "--checkpoint=fast"},
		[]string{"PGPASSWORD=" + s.Password}
}

// Synchronous sets synchronous_standby_names so that a commit waits for
// every standby named (FIRST n of n), or resets it. A walreceiver's
// application_name is its server's cluster_name, which tenantbench sets
// to the instance's name.
func (Engine) Synchronous(names []string) []string {
	if len(names) == 0 {
		return []string{"ALTER SYSTEM RESET synchronous_standby_names", "SELECT pg_reload_conf()"}
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	value := fmt.Sprintf("FIRST %d (%s)", len(names), strings.Join(quoted, ", "))
	return []string{"ALTER SYSTEM SET synchronous_standby_names = " + quoteLiteral(value), "SELECT pg_reload_conf()"}
}

func (Engine) DropSlot() string {
	return `SELECT pg_drop_replication_slot(slot_name)::text FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`
}

func (Engine) Streaming() string {
	return `SELECT count(*)::text FROM pg_stat_replication WHERE application_name = ANY($1) AND state = 'streaming'`
}

// quoteLiteral is s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Fail-over (engine.Promoter): the standby that received the most WAL is
// promoted, and the others, which received no more than it, follow its
// new timeline (recovery_target_timeline is 'latest' by default).

func (Engine) Received() string {
	return `SELECT coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0'),
		pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0'), 0)::text`
}

// Promote does not wait: pg_promote's own wait polls ten times a second,
// which would add up to 100 ms to the measured fail-over.
func (Engine) Promote() string  { return `SELECT pg_promote(false)::text` }
func (Engine) Promoted() string { return `SELECT (NOT pg_is_in_recovery())::text` }

func (Engine) CreateSlot() string {
	return `SELECT slot_name::text FROM pg_create_physical_replication_slot($1, true)`
}

// Follow rewrites primary_conninfo and primary_slot_name (as
// pg_basebackup -R wrote them) and reloads: since PostgreSQL 13 the
// walreceiver restarts with them.
func (Engine) Follow(s dbserver.Standby) []string {
	// No application_name: the walreceiver then gives the standby's
	// cluster_name, by which the primary's Streaming finds it.
	conninfo := fmt.Sprintf("host=%s port=%d user=%s password=%s",
		connValue(s.SocketDir), s.Port, connValue(s.User), connValue(s.Password))
	return []string{"ALTER SYSTEM SET primary_conninfo = " + quoteLiteral(conninfo),
		"ALTER SYSTEM SET primary_slot_name = " + quoteLiteral(s.Slot), "SELECT pg_reload_conf()"}
}

// connValue is v as a libpq connection-string value: quoted, with its
// quotes and backslashes escaped.
func connValue(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
