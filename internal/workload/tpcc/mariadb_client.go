package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// The MariaDB form of a terminal: the same Client (its deck, its drawn
// input, its retries and counts), its statements sent as server-side
// prepared statements, each prepared the first time it is used. Interactions statements
// (mariadb_statements.go) and procedures (mariadb_procedures.go); batched
// is PostgreSQL's (arrays and CTEs) and refused at plan (CheckEngine).

// mariaConn is a terminal's MariaDB session: its statements run on the
// driver's connection itself (mariadb.Stmt), its context watched once per
// context by a deadline on the socket.
type mariaConn struct {
	mc    *mariadb.Conn
	watch workload.Watcher
	stmts map[string]*mariadb.Stmt
}

func (w *Workload) mariaClient(ctx context.Context, mc *mariadb.Conn, ci workload.ClientInfo) (workload.Client, error) {
	if w.keyed {
		return nil, fmt.Errorf("tpcc: shared tables have no MariaDB form")
	}
	form, ok := mariaForms[w.opts.Interaction]
	if !ok {
		return nil, fmt.Errorf("tpcc: interaction %s has no MariaDB form (it sends arrays and CTEs); use %s or %s",
			w.opts.Interaction, InteractionStatements, InteractionProcedures)
	}
	cl := w.newClient(ci)
	cl.form = form
	cl.maria = &mariaConn{mc: mc, stmts: map[string]*mariadb.Stmt{}}
	if err := mc.Exec(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL "+isolationSQL(w.opts.Isolation)); err != nil {
		return nil, fmt.Errorf("tpcc: set the isolation level: %w", err)
	}
	w.clientsMu.Lock()
	w.clients = append(w.clients, cl)
	w.clientsMu.Unlock()
	return cl, nil
}

// stmt is the prepared statement of q, prepared on first use.
func (m *mariaConn) stmt(q string) (*mariadb.Stmt, error) {
	if s, ok := m.stmts[q]; ok {
		return s, nil
	}
	s, err := m.mc.Prepare(context.Background(), q)
	if err != nil {
		return nil, fmt.Errorf("tpcc: prepare %q: %w", firstLine(q), err)
	}
	m.stmts[q] = s
	return s, nil
}

// text sends q without parameters (BEGIN, COMMIT, ROLLBACK).
func (m *mariaConn) text(q string) error {
	return m.mc.Text(q)
}

// exec runs q with args and returns the rows it changed.
func (m *mariaConn) exec(q string, args ...any) (int64, error) {
	s, err := m.stmt(q)
	if err != nil {
		return 0, err
	}
	return s.Exec(args...)
}

// each runs q with args and calls row with each result row's columns;
// it returns the number of rows.
func (m *mariaConn) each(q string, args []any, row func(v mariadb.Row)) (int, error) {
	s, err := m.stmt(q)
	if err != nil {
		return 0, err
	}
	return s.Query(row, args...)
}

// atoi reads an integer column (0 for NULL).
func atoi(v mariadb.Row, i int) int { return int(v.Int(i)) }

// mariaRetryable says whether err is a deadlock (1213, SQLSTATE 40001)
// or a lock wait timeout (1205): InnoDB's counterparts of PostgreSQL's
// serialization failures and deadlocks, worth running again.
func mariaRetryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// mariaAbort rolls back a transaction a failure left open (after a
// deadlock InnoDB has rolled it back already; after a lock wait timeout
// only the statement).
func (c *Client) mariaAbort(ctx context.Context) {
	if c.maria.mc.IsClosed() {
		return
	}
	_ = c.maria.text("ROLLBACK")
}
