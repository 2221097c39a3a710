package tpcc

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// tpcc's MariaDB form: the same nine tables (InnoDB, with their primary
// keys of createIndexes declared at create: InnoDB clusters rows by their
// primary key, and the generator writes each table in key order, so each
// row goes to the end of its tree; the secondary indexes are added by
// mariaPostIngest, sorted once, rather than kept row by row), the same
// generated rows streamed with LOAD DATA LOCAL INFILE, ANALYZE TABLE after
// the load, and the same terminals (mariadb_client.go) and consistency
// conditions (mariadb_check.go).

// mariaKeys are createIndexes in MariaDB's form, by table: the primary
// key's clause of create table, and each secondary index's clause of
// alter table.
type mariaKeys struct {
	primary   map[string]string
	secondary map[string][]string
}

func mariaIndexes() mariaKeys {
	k := mariaKeys{primary: map[string]string{}, secondary: map[string][]string{}}
	for _, s := range createIndexes {
		var table, name, cols string
		if _, err := fmt.Sscanf(s, "alter table %s add primary key %s", &table, &cols); err == nil {
			k.primary[table] = "primary key " + s[strings.Index(s, "("):]
			continue
		}
		if _, err := fmt.Sscanf(s, "create index %s on %s", &name, &table); err == nil {
			k.secondary[table] = append(k.secondary[table], "add index "+name+" "+s[strings.Index(s, "("):])
			continue
		}
		panic("tpcc: no MariaDB form of " + s)
	}
	return k
}

// mariaCreates are createTables in MariaDB's dialect: datetime(6) for
// timestamp (MariaDB's timestamp is a 1970-2038 type with automatic
// updates), each table's primary key in its definition, InnoDB.
func mariaCreates() []string {
	keys := mariaIndexes()
	out := make([]string, len(createTables))
	for i, s := range createTables {
		name := tableOf(s)
		s = strings.ReplaceAll(s, " timestamp", " datetime(6)")
		s = strings.TrimSuffix(s, ")")
		if k, ok := keys.primary[name]; ok {
			s += ",\n\t" + k
		}
		out[i] = s + ") engine=InnoDB"
	}
	return out
}

// mariaAddIndexes are the alter table statements that add the secondary
// indexes, one per table: InnoDB builds each index of a loaded table by
// sorting its entries once. With the indexes declared at create, each
// loaded row went into them one by one, in their order scattered (a
// customer's last name, an order's customer): 10 warehouses loaded with
// about 1 server CPU-second more (of 21) than loading without them and
// adding them after (0.65 s).
func mariaAddIndexes() []string {
	keys := mariaIndexes()
	var out []string
	for _, t := range tableNames {
		if idx := keys.secondary[t]; len(idx) > 0 {
			out = append(out, "alter table "+t+" "+strings.Join(idx, ", "))
		}
	}
	return out
}

// tableOf is the name of the table a create statement makes.
func tableOf(create string) string {
	f := strings.Fields(create)
	return f[2]
}

// fieldKinds are, per table, the kind of each column of createTables,
// for LOAD DATA's text.
var fieldKinds = workload.LoadKinds(createTables)

// mariaExec runs the statements in order (mariadb.Conn.Script).
func mariaExec(ctx context.Context, mc *mariadb.Conn, stmts ...string) error {
	if err := mc.Script(ctx, stmts...); err != nil {
		return fmt.Errorf("tpcc: %w", err)
	}
	return nil
}

// mariaSetup drops and creates the tables (and, with interaction
// procedures, the procedures).
func (w *Workload) mariaSetup(ctx context.Context, mc *mariadb.Conn) error {
	if w.keyed {
		return fmt.Errorf("tpcc: shared tables have no MariaDB form")
	}
	stmts := []string{"drop table if exists " + strings.Join(tableNames, ", ")}
	stmts = append(stmts, mariaCreates()...)
	if w.opts.Interaction == InteractionProcedures {
		stmts = append(stmts, mariaProcedures()...)
	}
	return mariaExec(ctx, mc, stmts...)
}

// mariaPostIngest adds the secondary indexes (mariaAddIndexes; the
// primary keys came with the tables) and refreshes the statistics of
// every table (ANALYZE TABLE, the VACUUM ANALYZE of the PostgreSQL form).
func (w *Workload) mariaPostIngest(ctx context.Context, mc *mariadb.Conn) error {
	return mariaExec(ctx, mc, append(mariaAddIndexes(), "analyze table "+strings.Join(tableNames, ", "))...)
}

// mariaLoaders truncates the tables on first and opens the loaders of
// the load (loadUnits), the first on first (which it closes when the
// units run out), the others on connections of their own: each unit is
// one LOAD DATA LOCAL INFILE streamed from the generator, in a
// transaction of its own.
//
// The loaders keep unique and foreign key checks on, against MariaDB's
// bulk load advice: with both off, InnoDB (10.6 and later) takes a
// statement into an empty table as a bulk insert (its counter
// Innodb_bulk_operations), buffering and sorting every row before
// building the table's trees. The generator writes each table in
// primary key order already, and the sorting cost the server twice the
// CPU of inserting the rows in place (10 warehouses, one connection:
// 40 CPU-seconds against 21; STOCK 13 against 6.2, ORDER_LINE 17 against
// 8.5). There are no foreign keys and no unique secondary indexes, so the
// checks cost nothing else.
func (w *Workload) mariaLoaders(ctx context.Context, first *mariadb.Conn, connect workload.Connect) (openLoader, error) {
	if w.keyed {
		return nil, fmt.Errorf("tpcc: shared tables have no MariaDB form")
	}
	var truncate []string
	for _, t := range tableNames {
		truncate = append(truncate, "truncate table "+t)
	}
	if err := mariaExec(ctx, first, truncate...); err != nil {
		return nil, err
	}
	return func(ctx context.Context, i int) (loader, error) {
		l := mariaLoader{w: w, mc: first}
		if i > 0 {
			wc, err := connect(ctx)
			if err != nil {
				return nil, fmt.Errorf("tpcc: ingest: connect: %w", err)
			}
			var ok bool
			if l.mc, ok = mariadb.Of(wc); !ok {
				wc.Close(context.WithoutCancel(ctx))
				return nil, workload.NoForm(Name, wc)
			}
		}
		if err := mariaExec(ctx, l.mc, "set unique_checks = 1", "set foreign_key_checks = 1"); err != nil {
			l.close(context.WithoutCancel(ctx))
			return nil, err
		}
		return l, nil
	}, nil
}

// mariaLoader loads units with LOAD DATA on mc, a connection it closes
// when done (the first loader's is the one Ingest opened).
type mariaLoader struct {
	w  *Workload
	mc *mariadb.Conn
}

// close closes the loader's connection, which gives the tenant's
// connection slot to a loader still waiting for one.
func (l mariaLoader) close(ctx context.Context) {
	l.mc.Close(ctx)
}

func (l mariaLoader) load(ctx context.Context, gen *generator, u unit, report func(int64)) error {
	first, last := u.span(l.w.warehouses)
	return l.mc.LoadData(ctx, u.t.String(), func(out io.Writer) error {
		var err error
		for wid := first; wid <= last && err == nil; wid++ {
			err = writeText(out, u.t, gen.source(u.t, wid), report)
		}
		return err
	})
}

// writeText writes the rows of src, of table t, as LOAD DATA's
// tab-separated text: the very rows the PostgreSQL form copies, read back
// field by field.
func writeText(w io.Writer, t table, src workload.RowSource, report func(int64)) error {
	kinds := fieldKinds[t.String()]
	buf := make([]byte, 0, maxRow)
	out := make([]byte, 0, 64<<10)
	var n int64
	for {
		var ok bool
		if buf, ok = src.AppendRow(buf[:0]); !ok {
			break
		}
		var err error
		if out, err = textRow(out, buf, kinds); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		n++
		if len(out) > 60<<10 {
			if _, err := w.Write(out); err != nil {
				return err
			}
			out = out[:0]
			report(n)
			n = 0
		}
	}
	if _, err := w.Write(out); err != nil {
		return err
	}
	report(n)
	return nil
}
