package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// The MariaDB form of a terminal: the same Client (its deck, its drawn
// input, its retries and counts), its statements sent over a
// database/sql connection as server-side prepared statements, each
// prepared the first time it is used. Interactions statements
// (mariadb_statements.go) and procedures (mariadb_procedures.go); batched
// is PostgreSQL's (arrays and CTEs) and refused at plan (CheckEngine).

// mariaConn is a terminal's MariaDB session.
type mariaConn struct {
	mc    *mariadb.Conn
	c     *sql.Conn
	ctx   context.Context // the context of the Run under way
	stmts map[string]*sql.Stmt
	// vals and ptrs receive a result row's columns (sql.RawBytes, valid
	// until the next row).
	vals []sql.RawBytes
	ptrs []any
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
	cl.maria = &mariaConn{mc: mc, c: mc.SQL(), stmts: map[string]*sql.Stmt{}}
	if _, err := cl.maria.c.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL "+isolationSQL(w.opts.Isolation)); err != nil {
		return nil, fmt.Errorf("tpcc: set the isolation level: %w", err)
	}
	w.clientsMu.Lock()
	w.clients = append(w.clients, cl)
	w.clientsMu.Unlock()
	return cl, nil
}

// stmt is the prepared statement of q, prepared on first use.
func (m *mariaConn) stmt(q string) (*sql.Stmt, error) {
	if s, ok := m.stmts[q]; ok {
		return s, nil
	}
	s, err := m.c.PrepareContext(m.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("tpcc: prepare %q: %w", firstLine(q), err)
	}
	m.stmts[q] = s
	return s, nil
}

// text sends q without parameters (BEGIN, COMMIT, ROLLBACK).
func (m *mariaConn) text(q string) error {
	_, err := m.c.ExecContext(m.ctx, q)
	return err
}

// exec runs q with args and returns the rows it changed.
func (m *mariaConn) exec(q string, args ...any) (int64, error) {
	s, err := m.stmt(q)
	if err != nil {
		return 0, err
	}
	r, err := s.ExecContext(m.ctx, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// each runs q with args and calls row with each result row's columns;
// it returns the number of rows.
func (m *mariaConn) each(q string, args []any, row func(v []sql.RawBytes)) (int, error) {
	s, err := m.stmt(q)
	if err != nil {
		return 0, err
	}
	rows, err := s.QueryContext(m.ctx, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	for len(m.vals) < len(cols) {
		m.vals = append(m.vals, nil)
		m.ptrs = append(m.ptrs, &m.vals[len(m.vals)-1])
	}
	// vals may have moved: point ptrs at the current array.
	for i := range m.ptrs {
		m.ptrs[i] = &m.vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(m.ptrs[:len(cols)]...); err != nil {
			return n, err
		}
		row(m.vals[:len(cols)])
		n++
	}
	return n, rows.Close()
}

// atoi reads an integer column (0 for NULL).
func atoi(b sql.RawBytes) int {
	n, _ := strconv.Atoi(string(b))
	return n
}

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
	_, _ = c.maria.c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
}
