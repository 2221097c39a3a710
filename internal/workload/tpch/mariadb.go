package tpch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// tpch's MariaDB form: the same eight tables (InnoDB, keyed by their
// primary keys at create: InnoDB clusters rows by the primary key, so
// adding it after the load would build every table again), the same
// generated rows streamed with LOAD DATA LOCAL INFILE over the same load
// units, the secondary indexes, foreign keys and statistics in
// post-ingest, the 22 queries rewritten from the PostgreSQL text
// (mariadb_queries.go), and the refresh functions (mariadb_client.go).

// mariaTableOptions end every table's definition: InnoDB, and text
// compared byte for byte, as PostgreSQL's C collation and DuckDB compare
// it (MariaDB's default collation ignores case in comparisons, LIKE and
// ORDER BY). dbgen's text is ASCII.
const mariaTableOptions = " engine=InnoDB default charset=ascii collate=ascii_bin"

// keyColumns is each table's primary key columns (primaryKeys'), by
// table: the keys at create, and the columns a foreign key references
// (MariaDB's REFERENCES names them).
var keyColumns = func() map[string]string {
	out := map[string]string{}
	for _, s := range primaryKeys {
		var table string
		if _, err := fmt.Sscanf(s, "alter table %s add primary key", &table); err != nil {
			panic("tpch: no MariaDB form of " + s)
		}
		out[table] = s[strings.Index(s, "("):]
	}
	return out
}()

// mariaCreates are createStatements with each table's primary key, in
// InnoDB.
func (w *Workload) mariaCreates() []string {
	creates := w.createStatements()
	out := make([]string, len(creates))
	for i, s := range creates {
		out[i] = strings.TrimSuffix(s, ")") + ",\n\tprimary key " + keyColumns[tableOf(s)] + ")" + mariaTableOptions
	}
	return out
}

// tableOf is the name of the table a create statement makes.
func tableOf(create string) string { return strings.Fields(create)[2] }

// mariaKinds are, per table, the kind of each column of createStatements,
// for LOAD DATA's text.
var mariaKinds = workload.LoadKinds((&Workload{}).createStatements())

// mariaForeignKeys are foreignKeys with the referenced table's key
// columns named.
func mariaForeignKeys() []string {
	out := make([]string, len(foreignKeys))
	for i, s := range foreignKeys {
		f := strings.Fields(s)
		out[i] = s + " " + keyColumns[f[len(f)-1]]
	}
	return out
}

// mariaExec runs the statements in order (mariadb.Conn.Script).
func mariaExec(ctx context.Context, mc *mariadb.Conn, stmts ...string) error {
	if err := mc.Script(ctx, stmts...); err != nil {
		return fmt.Errorf("tpch: %w", err)
	}
	return nil
}

// mariaSetup drops the tables (foreign key checks off: they may
// reference each other) and creates them.
func (w *Workload) mariaSetup(ctx context.Context, mc *mariadb.Conn) error {
	stmts := []string{"set foreign_key_checks = 0", sqlDropTables, "set foreign_key_checks = 1"}
	return mariaExec(ctx, mc, append(stmts, w.mariaCreates()...)...)
}

// mariaPostIngest adds the secondary indexes, then the foreign keys
// (which then use those indexes rather than make their own), then
// refreshes InnoDB's statistics of the eight tables (ANALYZE TABLE, as
// tpcb and tpcc on MariaDB do). Not PERSISTENT FOR ALL (the
// engine-independent statistics and histograms): with it, mariadbd
// 10.11.19 crashed twice in five end-to-end runs here (a segfault in
// Aria's drop_table), without it in none of six. InnoDB adds a foreign key in place only with
// foreign_key_checks off, without reading the rows (with them on it
// copies the whole table): the generated rows satisfy them (dbgen's), and
// every row inserted later, RF1's, is checked.
func (w *Workload) mariaPostIngest(ctx context.Context, mc *mariadb.Conn) error {
	stmts := append([]string{}, secondaryIndexes...)
	stmts = append(stmts, "set foreign_key_checks = 0")
	stmts = append(stmts, mariaForeignKeys()...)
	stmts = append(stmts, "set foreign_key_checks = 1",
		"analyze table "+strings.Join(tableNames, ", "))
	return mariaExec(ctx, mc, stmts...)
}

// mariaLoader prepares a load connection: unique and foreign key checks
// off, as MariaDB's bulk load advice has it (the rows are generated
// unique, and the keys come in post-ingest), which also lets InnoDB load
// an empty table without undo logging per row.
func (w *Workload) mariaLoader(ctx context.Context, mc *mariadb.Conn) (func(context.Context, loadUnit, func(int64)) error, error) {
	if err := mariaExec(ctx, mc, "set unique_checks = 0", "set foreign_key_checks = 0"); err != nil {
		return nil, err
	}
	return func(ctx context.Context, u loadUnit, report func(int64)) error {
		return w.mariaLoadUnit(ctx, mc, u, report)
	}, nil
}

// mariaLoadUnit truncates u's tables and streams each with one LOAD DATA.
func (w *Workload) mariaLoadUnit(ctx context.Context, mc *mariadb.Conn, u loadUnit, report func(int64)) error {
	for _, name := range u {
		if err := mariaExec(ctx, mc, "truncate table "+name); err != nil {
			return err
		}
		t, counter := w.copyTable(name, 1, 0)
		rep := report
		if counter != nil {
			rep = nil // the table counts its own rows
			counter.report = report
		}
		err := mc.LoadData(ctx, name, func(out io.Writer) error {
			return workload.WriteLoadText(out, t.Source(), t.MaxRow, mariaKinds[name], rep)
		})
		if err != nil {
			return err
		}
		if counter != nil {
			counter.flush()
		}
	}
	return nil
}
