package tpcb

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// tpcb's MariaDB form: the same tables (InnoDB, primary keys declared at
// create: InnoDB clusters rows by their key, so loading sorted rows into
// keyed tables is cheaper than adding the key after), the same generated
// rows streamed with LOAD DATA LOCAL INFILE, and the same scripts, drawn
// by the same Client, sent as server-side prepared statements.

// mariaTable is pgbench's table in MariaDB's dialect: datetime for
// timestamp (MariaDB's timestamp is a 1970-2038 type with automatic
// updates), keys in the definition, no fillfactor.
func (w *Workload) mariaCreates() []string {
	aid := "int"
	if w.bigAccounts() {
		aid = "bigint"
	}
	return []string{
		"create table pgbench_history(tid int,bid int,aid " + aid + ",delta int,mtime datetime(6),filler char(22)) engine=InnoDB",
		"create table pgbench_tellers(tid int not null primary key,bid int,tbalance int,filler char(84)) engine=InnoDB",
		"create table pgbench_accounts(aid " + aid + " not null primary key,bid int,abalance int,filler char(84)) engine=InnoDB",
		"create table pgbench_branches(bid int not null primary key,bbalance int,filler char(88)) engine=InnoDB",
	}
}

// mariaExec runs the statements in order (mariadb.Conn.Script).
func mariaExec(ctx context.Context, mc *mariadb.Conn, stmts ...string) error {
	if err := mc.Script(ctx, stmts...); err != nil {
		return fmt.Errorf("tpcb: %w", err)
	}
	return nil
}

func (w *Workload) mariaSetup(ctx context.Context, c *mariadb.Conn) error {
	return mariaExec(ctx, c, append([]string{sqlDropTables}, w.mariaCreates()...)...)
}

// mariaPostIngest adds the foreign keys when asked and refreshes the
// statistics (ANALYZE TABLE, pgbench's VACUUM ANALYZE in MariaDB).
func (w *Workload) mariaPostIngest(ctx context.Context, c *mariadb.Conn) error {
	var stmts []string
	if w.opts.ForeignKeys {
		// MariaDB's REFERENCES names the referenced column.
		for _, s := range foreignKeyStatements() {
			for _, t := range []string{"branches", "tellers", "accounts"} {
				col := map[string]string{"branches": "bid", "tellers": "tid", "accounts": "aid"}[t]
				if strings.HasSuffix(s, "references pgbench_"+t) {
					s += " (" + col + ")"
				}
			}
			stmts = append(stmts, s)
		}
	}
	stmts = append(stmts, "analyze table pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history")
	return mariaExec(ctx, c, stmts...)
}

// mariaIngest truncates the tables and loads the generated rows of each
// table with one LOAD DATA LOCAL INFILE streamed from a reader, in one
// transaction per table with the unique and foreign key checks off, as
// MariaDB's own bulk load advice has it (the rows are generated unique).
func (w *Workload) mariaIngest(ctx context.Context, mc *mariadb.Conn, progress func(rows int64)) error {
	if err := mariaExec(ctx, mc,
		"truncate table pgbench_history", "truncate table pgbench_accounts",
		"truncate table pgbench_tellers", "truncate table pgbench_branches",
		"set unique_checks = 0", "set foreign_key_checks = 0",
	); err != nil {
		return err
	}
	var done int64
	for _, t := range w.tables() {
		err := mc.LoadData(ctx, t.Name, func(out io.Writer) error { return writeText(out, t, &done, progress) })
		if err != nil {
			return fmt.Errorf("tpcb: ingest %s: %w", t.Name, err)
		}
	}
	return mariaExec(ctx, mc, "set unique_checks = 1", "set foreign_key_checks = 1")
}

// writeText writes t's rows as LOAD DATA's tab-separated text: the same
// encoder as COPY's binary rows, read back field by field (int4, int8,
// NULL, text), so that both engines load the very same rows.
func writeText(w io.Writer, t workload.CopyTable, done *int64, progress func(int64)) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, t.MaxRow)
	line := make([]byte, 0, 128)
	for id := t.First; id <= t.Last; id++ {
		buf = t.Encode(buf[:0], id)
		var err error
		if line, err = textRow(line[:0], buf); err != nil {
			return fmt.Errorf("%s row %d: %w", t.Name, id, err)
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
		if n := atomic.AddInt64(done, 1); progress != nil && n%10000 == 0 {
			progress(n)
		}
	}
	if progress != nil {
		progress(atomic.LoadInt64(done))
	}
	return bw.Flush()
}

// textRow turns one binary COPY row (field count, then each field's
// length and bytes; -1 is NULL) into a tab-separated line. tpcb's fields
// are int4, int8 (by the table's columns) and the empty filler.
func textRow(out, row []byte) ([]byte, error) {
	if len(row) < 2 {
		return out, fmt.Errorf("short row")
	}
	n := int(binary.BigEndian.Uint16(row))
	row = row[2:]
	for i := 0; i < n; i++ {
		if i > 0 {
			out = append(out, '\t')
		}
		if len(row) < 4 {
			return out, fmt.Errorf("short field")
		}
		l := int32(binary.BigEndian.Uint32(row))
		row = row[4:]
		switch {
		case l < 0:
			out = append(out, `\N`...)
		case l == 0:
		case l == 4:
			out = strconv.AppendInt(out, int64(int32(binary.BigEndian.Uint32(row))), 10)
		case l == 8:
			out = strconv.AppendInt(out, int64(binary.BigEndian.Uint64(row)), 10)
		default:
			return out, fmt.Errorf("field of %d bytes", l)
		}
		if l > 0 {
			row = row[l:]
		}
	}
	return append(out, '\n'), nil
}

// mariaSQL are the scripts' statements with ? placeholders.
var mariaSQL = map[string]string{
	sqlUpdateAccount: "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?",
	sqlSelectAccount: "SELECT abalance FROM pgbench_accounts WHERE aid = ?",
	sqlUpdateTeller:  "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?",
	sqlUpdateBranch:  "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?",
	sqlInsertHistory: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP(6))",
}

// mariaClient prepares the scripts' statements on c: the same Client, its
// statements bound to MariaDB's prepared statements instead of the wire,
// run on the driver's connection itself (mariadb.Stmt).
func (w *Workload) mariaClient(ctx context.Context, mc *mariadb.Conn, ci workload.ClientInfo) (workload.Client, error) {
	c := w.newClient(ci.Seed)
	c.maria = mc
	c.readBalance = func(r mariadb.Row) { c.balance = int32(r.Int(0)) }
	big := w.bigAccounts()
	for _, p := range []struct {
		s     *statement
		sq    string
		sizes []int
	}{
		{&c.begin, sqlBegin, nil},
		{&c.end, sqlEnd, nil},
		{&c.updateAccount, sqlUpdateAccount, []int{4, aidSize(big)}},
		{&c.selectAccount, sqlSelectAccount, []int{aidSize(big)}},
		{&c.updateTeller, sqlUpdateTeller, []int{4, 4}},
		{&c.updateBranch, sqlUpdateBranch, []int{4, 4}},
		{&c.insertHistory, sqlInsertHistory, []int{4, 4, aidSize(big), 4}},
	} {
		text, ok := mariaSQL[p.sq]
		if !ok { // BEGIN and END: not prepared, sent as text
			p.s.text = map[string]string{sqlBegin: "BEGIN", sqlEnd: "COMMIT"}[p.sq]
			continue
		}
		st, err := mc.Prepare(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("tpcb: prepare %q: %w", text, err)
		}
		p.s.stmt = st
		p.s.params = make([][]byte, len(p.sizes))
		p.s.args = make([]any, len(p.sizes))
		for i, n := range p.sizes {
			p.s.params[i] = make([]byte, n)
		}
	}
	return c, nil
}

func aidSize(big bool) int {
	if big {
		return 8
	}
	return 4
}

// mariaRun runs s on the MariaDB connection: its parameters read back
// from their binary buffers, a SELECT's balance kept.
func (c *Client) mariaRun(s *statement, query bool) error {
	if s.stmt == nil {
		return c.maria.Text(s.text)
	}
	for i, p := range s.params {
		if len(p) == 8 {
			s.args[i] = int64(binary.BigEndian.Uint64(p))
		} else {
			s.args[i] = int64(int32(binary.BigEndian.Uint32(p)))
		}
	}
	if query {
		n, err := s.stmt.Query(c.readBalance, s.args...)
		if err == nil && n != 1 {
			err = fmt.Errorf("tpcb: %d rows of one account", n)
		}
		return err
	}
	_, err := s.stmt.Exec(s.args...)
	return err
}

// mariaFail rolls back a transaction a failed statement left open, when
// the connection still works, and returns the statement's error, joined
// with the context's when the context ended the transaction.
func (c *Client) mariaFail(ctx context.Context, err error) error {
	if !c.maria.IsClosed() {
		_ = c.maria.Text("ROLLBACK")
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return errors.Join(ctxErr, err)
	}
	return err
}

// mariaCheck reads Check's figures.
func mariaCheck(ctx context.Context, mc *mariadb.Conn, dest ...any) error {
	return mc.SQL().QueryRowContext(ctx, checkQuery).Scan(dest...)
}
