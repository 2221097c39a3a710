package tpch

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// The tables of clause 1.4.1 in PostgreSQL types: identifiers integer
// (o_orderkey and l_orderkey bigint when the scale's keys need it),
// decimal numeric(15,2), fixed text char(n), variable text varchar(n),
// date date. Every column is NOT NULL (clause 1.4.2.1 requires none to
// hold nulls). The names are unqualified: the tenant's search_path or
// database places them, in every tenancy model.

// tableNames are the eight tables, referenced ones first.
var tableNames = []string{"region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

const sqlDropTables = "drop table if exists lineitem, orders, customer, partsupp, supplier, part, nation, region cascade"

// createStatements create the tables (clause 1.4.1).
func (w *Workload) createStatements() []string {
	okey := "integer"
	if w.z.orderKeyIsBig() {
		okey = "bigint"
	}
	return []string{
		`create table region (
	r_regionkey integer not null,
	r_name char(25) not null,
	r_comment varchar(152) not null)`,
		`create table nation (
	n_nationkey integer not null,
	n_name char(25) not null,
	n_regionkey integer not null,
	n_comment varchar(152) not null)`,
		`create table part (
	p_partkey integer not null,
	p_name varchar(55) not null,
	p_mfgr char(25) not null,
	p_brand char(10) not null,
	p_type varchar(25) not null,
	p_size integer not null,
	p_container char(10) not null,
	p_retailprice numeric(15,2) not null,
	p_comment varchar(23) not null)`,
		`create table supplier (
	s_suppkey integer not null,
	s_name char(25) not null,
	s_address varchar(40) not null,
	s_nationkey integer not null,
	s_phone char(15) not null,
	s_acctbal numeric(15,2) not null,
	s_comment varchar(101) not null)`,
		`create table partsupp (
	ps_partkey integer not null,
	ps_suppkey integer not null,
	ps_availqty integer not null,
	ps_supplycost numeric(15,2) not null,
	ps_comment varchar(199) not null)`,
		`create table customer (
	c_custkey integer not null,
	c_name varchar(25) not null,
	c_address varchar(40) not null,
	c_nationkey integer not null,
	c_phone char(15) not null,
	c_acctbal numeric(15,2) not null,
	c_mktsegment char(10) not null,
	c_comment varchar(117) not null)`,
		`create table orders (
	o_orderkey ` + okey + ` not null,
	o_custkey integer not null,
	o_orderstatus char(1) not null,
	o_totalprice numeric(15,2) not null,
	o_orderdate date not null,
	o_orderpriority char(15) not null,
	o_clerk char(15) not null,
	o_shippriority integer not null,
	o_comment varchar(79) not null)`,
		`create table lineitem (
	l_orderkey ` + okey + ` not null,
	l_partkey integer not null,
	l_suppkey integer not null,
	l_linenumber integer not null,
	l_quantity numeric(15,2) not null,
	l_extendedprice numeric(15,2) not null,
	l_discount numeric(15,2) not null,
	l_tax numeric(15,2) not null,
	l_returnflag char(1) not null,
	l_linestatus char(1) not null,
	l_shipdate date not null,
	l_commitdate date not null,
	l_receiptdate date not null,
	l_shipinstruct char(25) not null,
	l_shipmode char(10) not null,
	l_comment varchar(44) not null)`,
	}
}

// primaryKeys are clause 1.4.2.2's primary keys (dbgen's dss.ri).
var primaryKeys = []string{
	"alter table region add primary key (r_regionkey)",
	"alter table nation add primary key (n_nationkey)",
	"alter table part add primary key (p_partkey)",
	"alter table supplier add primary key (s_suppkey)",
	"alter table partsupp add primary key (ps_partkey, ps_suppkey)",
	"alter table customer add primary key (c_custkey)",
	"alter table orders add primary key (o_orderkey)",
	"alter table lineitem add primary key (l_orderkey, l_linenumber)",
}

// foreignKeys are clause 1.4.2.3's foreign keys (dss.ri), with its
// constraint names.
var foreignKeys = []string{
	"alter table nation add constraint nation_fk1 foreign key (n_regionkey) references region",
	"alter table supplier add constraint supplier_fk1 foreign key (s_nationkey) references nation",
	"alter table customer add constraint customer_fk1 foreign key (c_nationkey) references nation",
	"alter table partsupp add constraint partsupp_fk1 foreign key (ps_suppkey) references supplier",
	"alter table partsupp add constraint partsupp_fk2 foreign key (ps_partkey) references part",
	"alter table orders add constraint orders_fk1 foreign key (o_custkey) references customer",
	"alter table lineitem add constraint lineitem_fk1 foreign key (l_orderkey) references orders",
	"alter table lineitem add constraint lineitem_fk2 foreign key (l_partkey, l_suppkey) references partsupp",
}

// secondaryIndexes are the usual ones, on the columns clause 1.5.7 allows
// (foreign keys and single date columns): every foreign key not led by a
// primary key, and the order and ship dates the queries restrict.
var secondaryIndexes = []string{
	"create index nation_regionkey on nation (n_regionkey)",
	"create index supplier_nationkey on supplier (s_nationkey)",
	"create index customer_nationkey on customer (c_nationkey)",
	"create index partsupp_suppkey on partsupp (ps_suppkey)",
	"create index orders_custkey on orders (o_custkey)",
	"create index orders_orderdate on orders (o_orderdate)",
	"create index lineitem_part_supp on lineitem (l_partkey, l_suppkey)",
	"create index lineitem_shipdate on lineitem (l_shipdate)",
}

// postIngestStatements are PostIngest's statements, in order.
func postIngestStatements() []string {
	stmts := append([]string{}, primaryKeys...)
	stmts = append(stmts, foreignKeys...)
	stmts = append(stmts, secondaryIndexes...)
	return append(stmts, "analyze "+strings.Join(tableNames, ", "))
}

// Setup drops the eight tables if they exist and creates them.
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

// PostIngest is Erdelt and Rabl's (2026) post-ingestion phase for TPC-H
// (section 5.2: "runs CREATE INDEX. The latter also creates constraints and
// performs ANALYZE"): the primary keys, the foreign keys, the secondary
// indexes, then ANALYZE of the eight tables.
func (w *Workload) PostIngest(ctx context.Context, wc workload.Conn) error {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaPostIngest(ctx, mc)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return workload.NoForm(Name, wc)
	}
	return execAll(ctx, conn, postIngestStatements())
}

// execAll runs each statement alone with the simple query protocol.
func execAll(ctx context.Context, conn *pgx.Conn, stmts []string) error {
	for _, s := range stmts {
		if err := conn.PgConn().Exec(ctx, s).Close(); err != nil {
			return fmt.Errorf("tpch: %s: %w", firstLine(s), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
