package mariadb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// A workload's hot path on the driver's connection itself: statements
// prepared on the server (the binary protocol) and run with the driver's
// own Stmt, plain statements (BEGIN, COMMIT) sent as text. It skips what
// database/sql adds per call (its locks, its argument conversion by
// reflection, a driver.Result and Rows of its own) and the driver's
// context watch (a goroutine woken twice per statement for a context
// that can end): a workload watches its context once per context, by a
// deadline on the socket (workload.Watcher). Calls on a Conn and its
// Stmts are not safe for concurrent use, as the connection is not.

// Stmt is a statement prepared on a Conn.
type Stmt struct {
	c     *Conn
	st    driver.Stmt
	cols  int // of its result, -1 until the first query
	types []string
	args  []driver.Value
	row   []driver.Value
	query string
}

// Prepare prepares query on the server.
func (c *Conn) Prepare(ctx context.Context, query string) (*Stmt, error) {
	pc, ok := c.dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("mariadb: the driver cannot prepare with a context")
	}
	st, err := pc.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.note(err)
	}
	return &Stmt{c: c, st: st, cols: -1, args: make([]driver.Value, 0, st.NumInput()), query: query}, nil
}

// Close deallocates the statement on the server.
func (s *Stmt) Close() error { return s.st.Close() }

// Text runs query, without parameters, as text; its rows, if any, are
// read and dropped.
func (c *Conn) Text(query string) error {
	ex, ok := c.dc.(driver.Execer) //nolint:staticcheck // the context-free call watches no context
	if !ok {
		return errors.New("mariadb: the driver cannot execute text")
	}
	_, err := ex.Exec(query, nil)
	return c.note(err)
}

// bind converts args to the driver's values: Go's integers to int64,
// strings, byte slices and times as they are, nil as NULL.
func (s *Stmt) bind(args []any) error {
	s.args = s.args[:0]
	for i, a := range args {
		switch v := a.(type) {
		case int:
			s.args = append(s.args, int64(v))
		case int64:
			s.args = append(s.args, v)
		case int32:
			s.args = append(s.args, int64(v))
		case string, []byte, nil, float64, bool, time.Time:
			s.args = append(s.args, v)
		default:
			return fmt.Errorf("mariadb: argument %d of %q: a %T, want an integer, a string, bytes or a time", i+1, firstLine(s.query), a)
		}
	}
	return nil
}

// Exec runs the statement with args (ints, strings, byte slices, times, nil)
// and returns the rows it changed.
func (s *Stmt) Exec(args ...any) (int64, error) {
	if err := s.bind(args); err != nil {
		return 0, err
	}
	r, err := s.st.Exec(s.args) //nolint:staticcheck // the context-free call watches no context
	if err != nil {
		return 0, s.c.note(err)
	}
	return r.RowsAffected()
}

// Row is a result row's columns as the binary protocol gives them: an
// integer column an int64, a string or decimal one bytes that point into
// the connection's buffer, NULL nil. Valid only during the call it is
// given to.
type Row []driver.Value

// Int is column i as an integer: an integer column's value, a decimal's
// or string's digits read (up to a point or the end), 0 for NULL.
func (r Row) Int(i int) int64 {
	switch v := r[i].(type) {
	case int64:
		return v
	case uint64:
		return int64(v)
	case []byte:
		n := len(v)
		for k, b := range v {
			if b == '.' {
				n = k
				break
			}
		}
		x, _ := strconv.ParseInt(string(v[:n]), 10, 64)
		return x
	}
	return 0
}

// Bytes is column i as text: a string or decimal column's bytes, nil for
// an integer column or NULL.
func (r Row) Bytes(i int) []byte {
	b, _ := r[i].([]byte)
	return b
}

// Query runs the statement with args and calls row with each result
// row; it returns the number of rows.
func (s *Stmt) Query(row func(Row), args ...any) (int, error) {
	if err := s.bind(args); err != nil {
		return 0, err
	}
	rows, err := s.st.Query(s.args) //nolint:staticcheck // the context-free call watches no context
	if err != nil {
		return 0, s.c.note(err)
	}
	if s.cols < 0 {
		// A prepared statement's columns are fixed; Columns allocates
		// their names, so once.
		s.cols = len(rows.Columns())
		s.row = make([]driver.Value, s.cols)
		if ct, ok := rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
			s.types = make([]string, s.cols)
			for i := range s.types {
				s.types[i] = ct.ColumnTypeDatabaseTypeName(i)
			}
		}
	}
	n := 0
	for {
		err := rows.Next(s.row)
		if err == io.EOF {
			break
		}
		if err != nil {
			rows.Close()
			return n, s.c.note(err)
		}
		row(s.row)
		n++
	}
	return n, s.c.note(rows.Close())
}

// Types are the database types of the result's columns (INT, BIGINT,
// DECIMAL, DATETIME, VARCHAR...), which tell a Row's text values apart;
// known from the first Query on, nil before.
func (s *Stmt) Types() []string { return s.types }

// firstLine is q's first line, which names a statement in an error.
func firstLine(q string) string {
	for i := range len(q) {
		if q[i] == '\n' {
			return q[:i]
		}
	}
	return q
}
