package sales

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// The client's MariaDB form: the same Client, drawing the same
// transactions and values, its statements (Table II's, ? placeholders)
// prepared on the server. Parameters are kept as the PostgreSQL form
// keeps them, in binary, and turned into the driver's values at each
// statement; a row read comes back in PostgreSQL's binary format too, so
// that the transactions' code and rows are the same on both engines.

// placeholder is a PostgreSQL parameter, $n.
var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// mariaSQL is a statement's text with ? placeholders; its $n must come
// in order, as ? are positional.
func mariaSQL(s string) (string, error) {
	n := 0
	var bad error
	out := placeholder.ReplaceAllStringFunc(s, func(ref string) string {
		n++
		if ref != "$"+strconv.Itoa(n) {
			bad = fmt.Errorf("sales: %q: %s out of order", s, ref)
		}
		return "?"
	})
	return out, bad
}

// mariaClient prepares the client's statements on mc; they run on the
// driver's connection itself (mariadb.Stmt), as tpcb's and tpcc's do.
func (w *Workload) mariaClient(ctx context.Context, mc *mariadb.Conn, ci workload.ClientInfo) (workload.Client, error) {
	c := w.newClient(ci.Seed)
	c.maria = mc
	c.readMaria = c.mariaRow
	for _, p := range c.statements() {
		p.s.args = make([]any, len(p.params))
		if p.params == nil { // BEGIN and COMMIT: sent as text, their name
			p.s.alloc(p.sql, nil)
			continue
		}
		p.s.alloc(p.name, p.params)
		text, err := mariaSQL(p.sql)
		if err != nil {
			return nil, err
		}
		if p.s.maria, err = mc.Prepare(ctx, text); err != nil {
			return nil, fmt.Errorf("sales: prepare %q: %w", text, err)
		}
	}
	return c, nil
}

// mariaRoundTrip runs s on the MariaDB connection; its row, if rows is
// not nil, is read in the PostgreSQL form's binary format.
func (c *Client) mariaRoundTrip(s *statement, rows workload.RowReader) error {
	if s.maria == nil { // BEGIN or COMMIT
		return c.maria.Text(s.name)
	}
	for i, p := range s.params {
		v, err := mariaArg(s.oids[i], p)
		if err != nil {
			return err
		}
		s.args[i] = v
	}
	if rows == nil {
		_, err := s.maria.Exec(s.args...)
		return err
	}
	c.mariaStmt, c.mariaRows, c.mariaErr = s, rows, nil
	_, err := s.maria.Query(c.readMaria, s.args...)
	c.mariaStmt, c.mariaRows = nil, nil
	if err == nil {
		err = c.mariaErr
	}
	return err
}

// mariaRow gives a row of the statement under way to its RowReader, each
// column turned into PostgreSQL's binary format in a buffer of the
// statement's own (mariaStmt.cols), kept from row to row.
func (c *Client) mariaRow(r mariadb.Row) {
	s, types := c.mariaStmt, c.mariaStmt.maria.Types()
	if len(types) != len(r) {
		c.mariaErr = fmt.Errorf("sales: %d columns of %d types", len(r), len(types))
		return
	}
	if len(s.vals) != len(r) {
		s.vals, s.cols = make([][]byte, len(r)), make([][]byte, len(r))
	}
	for i := range r {
		if r[i] == nil {
			s.vals[i] = nil
			continue
		}
		var err error
		if s.cols[i], err = appendPG(s.cols[i][:0], types[i], r, i); err != nil {
			c.mariaErr = err
			return
		}
		s.vals[i] = s.cols[i]
	}
	c.mariaRows.ReadRow(s.vals)
}

// mariaArg is a parameter in the form of its binary buffer (by its type)
// as the driver takes it.
func mariaArg(oid uint32, p []byte) (any, error) {
	switch oid {
	case int4OID:
		return int64(int32(binary.BigEndian.Uint32(p))), nil
	case int8OID:
		return int64(binary.BigEndian.Uint64(p)), nil
	case timestamptzOID:
		return workload.PGTime(int64(binary.BigEndian.Uint64(p))), nil
	case numericOID:
		text, err := workload.AppendNumericText(nil, p)
		return string(text), err
	}
	return nil, fmt.Errorf("sales: no MariaDB form of a parameter of type oid %d", oid)
}

// appendPG appends column i of r (not NULL), of MariaDB type typ, in
// PostgreSQL's binary format, as the rows' ReadRow take it: INT as int4,
// BIGINT as int8, DECIMAL as numeric, DATETIME as a timestamp, text as it
// is. The binary protocol gives integers as integers, the rest as text.
func appendPG(dst []byte, typ string, r mariadb.Row, i int) ([]byte, error) {
	switch typ {
	case "INT", "MEDIUMINT", "SMALLINT", "TINYINT":
		return binary.BigEndian.AppendUint32(dst, uint32(int32(r.Int(i)))), nil
	case "BIGINT":
		return binary.BigEndian.AppendUint64(dst, uint64(r.Int(i))), nil
	case "DECIMAL":
		n, scale, ok := decimalText(r.Bytes(i))
		if !ok {
			return dst, fmt.Errorf("sales: decimal %q", r.Bytes(i))
		}
		return workload.AppendNumeric(dst, n, scale), nil
	case "DATETIME":
		t, ok := datetimeText(r.Bytes(i))
		if !ok {
			return dst, fmt.Errorf("sales: datetime %q", r.Bytes(i))
		}
		return binary.BigEndian.AppendUint64(dst, uint64(workload.PGMicros(t))), nil
	}
	return append(dst, r.Bytes(i)...), nil
}

// decimalText reads a DECIMAL's text ("-12.50") as its digits and scale.
func decimalText(b []byte) (n int64, scale int, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	point := false
	for _, ch := range b {
		switch {
		case ch == '.' && !point:
			point = true
		case ch >= '0' && ch <= '9':
			n = n*10 + int64(ch-'0')
			if point {
				scale++
			}
		default:
			return 0, 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, scale, len(b) > 0
}

// datetimeText reads a DATETIME's text, "2006-01-02 15:04:05" with up to
// six digits of fraction after a point, in UTC (the workload writes UTC).
func datetimeText(b []byte) (time.Time, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, ch := range b {
			if ch < '0' || ch > '9' {
				return 0, false
			}
			n = n*10 + int(ch-'0')
		}
		return n, true
	}
	var f [6]int
	for k, at := range [][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
		v, ok := num(b[at[0]:at[1]])
		if !ok {
			return time.Time{}, false
		}
		f[k] = v
	}
	us := 0
	if frac := b[19:]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) > 7 {
			return time.Time{}, false
		}
		v, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 7 - len(frac) {
			v *= 10
		}
		us = v
	}
	return time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], us*1000, time.UTC), true
}

// mariaFail rolls back a transaction a failed statement left open (T2's),
// when the connection still works, and returns the statement's error,
// joined with the context's when the context ended the transaction.
func (c *Client) mariaFail(ctx context.Context, err error) error {
	if !c.maria.IsClosed() {
		_ = c.maria.Text("ROLLBACK")
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return errors.Join(ctxErr, err)
	}
	return err
}
