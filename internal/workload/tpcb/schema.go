package tpcb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// The tables, their columns and their keys follow pgbench's initCreateTables,
// initCreatePKeys and initCreateFKeys (PostgreSQL 15). The names are
// unqualified: the tenant's search_path places them in its schema.

// sqlDropTables is pgbench's initDropTables (init step "d").
const sqlDropTables = "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

// tableDDL is one entry of pgbench's DDLs table: the columns when account
// ids are int (smcols) and when they are bigint (bigcols), and whether the
// table takes the fillfactor.
type tableDDL struct {
	table, smcols, bigcols string
	fillfactor             bool
}

// tableDDLs are pgbench's tables in the order it creates them.
func tableDDLs() []tableDDL {
	return []tableDDL{
		{"pgbench_history",
			"tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
			"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)",
			false},
		{"pgbench_tellers",
			"tid int not null,bid int,tbalance int,filler char(84)",
			"tid int not null,bid int,tbalance int,filler char(84)",
			true},
		{"pgbench_accounts",
			"aid    int not null,bid int,abalance int,filler char(84)",
			"aid bigint not null,bid int,abalance int,filler char(84)",
			true},
		{"pgbench_branches",
			"bid int not null,bbalance int,filler char(88)",
			"bid int not null,bbalance int,filler char(88)",
			true},
	}
}

// createStatements are pgbench's "create table" statements (init step "t"):
// pgbench appends " with (fillfactor=N)" to every table that declares it,
// even at the default 100.
func (w *Workload) createStatements() []string {
	var stmts []string
	for _, d := range tableDDLs() {
		cols := d.smcols
		if w.bigAccounts() {
			cols = d.bigcols
		}
		s := fmt.Sprintf("create table %s(%s)", d.table, cols)
		if d.fillfactor {
			s += fmt.Sprintf(" with (fillfactor=%d)", w.opts.Fillfactor)
		}
		stmts = append(stmts, s)
	}
	return stmts
}

// primaryKeyStatements are pgbench's DDLINDEXes (init step "p").
func primaryKeyStatements() []string {
	return []string{
		"alter table pgbench_branches add primary key (bid)",
		"alter table pgbench_tellers add primary key (tid)",
		"alter table pgbench_accounts add primary key (aid)",
	}
}

// foreignKeyStatements are pgbench's DDLKEYs (init step "f").
func foreignKeyStatements() []string {
	return []string{
		"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
		"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
	}
}

// vacuumStatements are pgbench's initVacuum (init step "v"), one table at a
// time, outside any transaction block.
func vacuumStatements() []string {
	return []string{
		"vacuum analyze pgbench_branches",
		"vacuum analyze pgbench_tellers",
		"vacuum analyze pgbench_accounts",
		"vacuum analyze pgbench_history",
	}
}

// Setup drops the pgbench tables if they exist and creates them, as pgbench's
// init steps "d" and "t" do.
func (w *Workload) Setup(ctx context.Context, wc workload.Conn) error {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaSetup(ctx, mc)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return workload.NoForm(Name, wc)
	}
	return execAll(ctx, conn, append([]string{sqlDropTables}, w.createStatements()...))
}

// PostIngest adds the primary keys (pgbench init step "p"), the foreign keys
// when asked (step "f"), then runs VACUUM ANALYZE of the four tables (step
// "v"). pgbench's default order is "dtgvp", vacuum before keys; tenantbench
// builds the keys first so that the statistics and the visibility map are
// fresh when the workload starts, whatever the steps did.
func (w *Workload) PostIngest(ctx context.Context, wc workload.Conn) error {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaPostIngest(ctx, mc)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return workload.NoForm(Name, wc)
	}
	stmts := primaryKeyStatements()
	if w.opts.ForeignKeys {
		stmts = append(stmts, foreignKeyStatements()...)
	}
	return execAll(ctx, conn, append(stmts, vacuumStatements()...))
}

// execAll runs each statement alone with the simple query protocol, so that
// none is inside a transaction block (VACUUM refuses to be).
func execAll(ctx context.Context, conn *pgx.Conn, stmts []string) error {
	for _, s := range stmts {
		if err := conn.PgConn().Exec(ctx, s).Close(); err != nil {
			return fmt.Errorf("tpcb: %s: %w", s, err)
		}
	}
	return nil
}
