package sales

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
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

// mariaClient prepares the client's statements on mc.
func (w *Workload) mariaClient(ctx context.Context, mc *mariadb.Conn, ci workload.ClientInfo) (workload.Client, error) {
	c := w.newClient(ci.Seed)
	c.maria = mc.SQL()
	c.ctx = ctx
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
		if p.s.maria, err = c.maria.PrepareContext(ctx, text); err != nil {
			return nil, fmt.Errorf("sales: prepare %q: %w", text, err)
		}
	}
	return c, nil
}

// mariaRoundTrip runs s on the MariaDB connection; its row, if rows is
// not nil, is read in the PostgreSQL form's binary format.
func (c *Client) mariaRoundTrip(s *statement, rows workload.RowReader) error {
	if s.maria == nil { // BEGIN or COMMIT
		_, err := c.maria.ExecContext(c.ctx, s.name)
		return err
	}
	for i, p := range s.params {
		v, err := mariaArg(s.oids[i], p)
		if err != nil {
			return err
		}
		s.args[i] = v
	}
	if rows == nil {
		_, err := s.maria.ExecContext(c.ctx, s.args...)
		return err
	}
	rs, err := s.maria.QueryContext(c.ctx, s.args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	if s.kinds == nil {
		types, err := rs.ColumnTypes()
		if err != nil {
			return err
		}
		for _, t := range types {
			s.kinds = append(s.kinds, t.DatabaseTypeName())
		}
	}
	raw := make([]sql.RawBytes, len(s.kinds))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return err
		}
		vals := make([][]byte, len(raw))
		for i, v := range raw {
			if vals[i], err = pgBinary(s.kinds[i], v); err != nil {
				return err
			}
		}
		rows.ReadRow(vals)
	}
	return rs.Err()
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

// mariaTime is how MariaDB's datetime(6) comes as text.
const mariaTime = "2006-01-02 15:04:05.999999"

// pgBinary is a column's value v (text, of MariaDB type typ) in
// PostgreSQL's binary format, as the rows' ReadRow take it: INT as int4,
// DECIMAL as numeric, DATETIME as a timestamp, text as it is.
func pgBinary(typ string, v sql.RawBytes) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "INT":
		n, err := strconv.ParseInt(string(v), 10, 32)
		return binary.BigEndian.AppendUint32(nil, uint32(int32(n))), err
	case "BIGINT":
		n, err := strconv.ParseInt(string(v), 10, 64)
		return binary.BigEndian.AppendUint64(nil, uint64(n)), err
	case "DECIMAL":
		whole, frac, _ := strings.Cut(string(v), ".")
		n, err := strconv.ParseInt(whole+frac, 10, 64)
		return workload.AppendNumeric(nil, n, len(frac)), err
	case "DATETIME":
		t, err := time.ParseInLocation(mariaTime, string(v), time.UTC)
		return binary.BigEndian.AppendUint64(nil, uint64(workload.PGMicros(t))), err
	}
	return append([]byte(nil), v...), nil
}

// mariaFail rolls back a transaction a failed statement left open (T2's),
// when the connection still works, and returns the statement's error.
func (c *Client) mariaFail(ctx context.Context, err error) error {
	_, _ = c.maria.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}
