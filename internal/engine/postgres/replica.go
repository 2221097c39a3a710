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
