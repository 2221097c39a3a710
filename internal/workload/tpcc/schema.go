package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"

	"github.com/tenantbench/tenantbench/internal/workload"
)

// The tables of clause 1.3 with their columns in the specification's
// order. Names are unqualified: the tenant's search_path places them in
// its schema. ORDER is a reserved word in SQL, so that table is "orders".
//
// Types: identifiers are int (the specification's "unique IDs" fit);
// signed numeric(p,s) columns are numeric(p,s); numeric(n) counters are
// int; variable and fixed text are varchar(n) and char(n); "date and time"
// is timestamp. Every column is NOT NULL except O_CARRIER_ID and
// OL_DELIVERY_D, which the population leaves null (clause 4.3.3.1).
var createTables = []string{
	`create table warehouse (
	w_id int not null,
	w_name varchar(10) not null,
	w_street_1 varchar(20) not null,
	w_street_2 varchar(20) not null,
	w_city varchar(20) not null,
	w_state char(2) not null,
	w_zip char(9) not null,
	w_tax numeric(4,4) not null,
	w_ytd numeric(12,2) not null)`,
	`create table district (
	d_id int not null,
	d_w_id int not null,
	d_name varchar(10) not null,
	d_street_1 varchar(20) not null,
	d_street_2 varchar(20) not null,
	d_city varchar(20) not null,
	d_state char(2) not null,
	d_zip char(9) not null,
	d_tax numeric(4,4) not null,
	d_ytd numeric(12,2) not null,
	d_next_o_id int not null)`,
	`create table customer (
	c_id int not null,
	c_d_id int not null,
	c_w_id int not null,
	c_first varchar(16) not null,
	c_middle char(2) not null,
	c_last varchar(16) not null,
	c_street_1 varchar(20) not null,
	c_street_2 varchar(20) not null,
	c_city varchar(20) not null,
	c_state char(2) not null,
	c_zip char(9) not null,
	c_phone char(16) not null,
	c_since timestamp not null,
	c_credit char(2) not null,
	c_credit_lim numeric(12,2) not null,
	c_discount numeric(4,4) not null,
	c_balance numeric(12,2) not null,
	c_ytd_payment numeric(12,2) not null,
	c_payment_cnt int not null,
	c_delivery_cnt int not null,
	c_data varchar(500) not null)`,
	`create table history (
	h_c_id int not null,
	h_c_d_id int not null,
	h_c_w_id int not null,
	h_d_id int not null,
	h_w_id int not null,
	h_date timestamp not null,
	h_amount numeric(6,2) not null,
	h_data varchar(24) not null)`,
	`create table new_order (
	no_o_id int not null,
	no_d_id int not null,
	no_w_id int not null)`,
	`create table orders (
	o_id int not null,
	o_d_id int not null,
	o_w_id int not null,
	o_c_id int not null,
	o_entry_d timestamp not null,
	o_carrier_id int,
	o_ol_cnt int not null,
	o_all_local int not null)`,
	`create table order_line (
	ol_o_id int not null,
	ol_d_id int not null,
	ol_w_id int not null,
	ol_number int not null,
	ol_i_id int not null,
	ol_supply_w_id int not null,
	ol_delivery_d timestamp,
	ol_quantity int not null,
	ol_amount numeric(6,2) not null,
	ol_dist_info char(24) not null)`,
	`create table item (
	i_id int not null,
	i_im_id int not null,
	i_name varchar(24) not null,
	i_price numeric(5,2) not null,
	i_data varchar(50) not null)`,
	`create table stock (
	s_i_id int not null,
	s_w_id int not null,
	s_quantity int not null,
	s_dist_01 char(24) not null,
	s_dist_02 char(24) not null,
	s_dist_03 char(24) not null,
	s_dist_04 char(24) not null,
	s_dist_05 char(24) not null,
	s_dist_06 char(24) not null,
	s_dist_07 char(24) not null,
	s_dist_08 char(24) not null,
	s_dist_09 char(24) not null,
	s_dist_10 char(24) not null,
	s_ytd int not null,
	s_order_cnt int not null,
	s_remote_cnt int not null,
	s_data varchar(50) not null)`,
}

// tableNames are the nine tables.
var tableNames = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// createIndexes are the primary keys of clause 1.3 (HISTORY has none) and
// the two secondary indexes the transactions need: customers by last name
// (Payment and Order-Status, clauses 2.5.2.2 and 2.6.2.2) and a customer's
// orders (Order-Status's most recent order).
var createIndexes = []string{
	"alter table warehouse add primary key (w_id)",
	"alter table district add primary key (d_w_id, d_id)",
	"alter table customer add primary key (c_w_id, c_d_id, c_id)",
	"alter table new_order add primary key (no_w_id, no_d_id, no_o_id)",
	"alter table orders add primary key (o_w_id, o_d_id, o_id)",
	"alter table order_line add primary key (ol_w_id, ol_d_id, ol_o_id, ol_number)",
	"alter table item add primary key (i_id)",
	"alter table stock add primary key (s_w_id, s_i_id)",
	"create index customer_name on customer (c_w_id, c_d_id, c_last, c_first)",
	"create index orders_customer on orders (o_w_id, o_d_id, o_c_id, o_id)",
}

// Setup drops the nine tables if they exist and creates them without keys
// or indexes (PostIngest adds them, which is faster than loading into
// indexed tables); with interaction procedures, it creates (or replaces)
// the five functions too. A tenant of shared tables (ForTenant) has nothing to
// set up: their owner created them.
func (w *Workload) Setup(ctx context.Context, wc workload.Conn) error {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaSetup(ctx, mc)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return workload.NoForm(Name, wc)
	}
	if w.keyed {
		return nil
	}
	stmts := []string{"drop table if exists warehouse, district, customer, history, new_order, orders, order_line, item, stock"}
	stmts = append(stmts, createTables...)
	if w.opts.Interaction == InteractionProcedures {
		// The functions belong to the tables' owner, in the same schema
		// (the tenant's, or the shared tables' for every tenant).
		stmts = append(stmts, createFunctions...)
	}
	return execAll(ctx, conn, stmts)
}

// PostIngest adds the keys and indexes, then runs VACUUM ANALYZE on every
// table, so the workload starts with fresh statistics and visibility maps.
// A tenant of shared tables (ForTenant) has nothing to do: their owner does
// it once for all.
func (w *Workload) PostIngest(ctx context.Context, wc workload.Conn) error {
	if mc, ok := mariadb.Of(wc); ok {
		return w.mariaPostIngest(ctx, mc)
	}
	conn, ok := workload.PG(wc)
	if !ok {
		return workload.NoForm(Name, wc)
	}
	if w.keyed {
		return nil
	}
	if err := execAll(ctx, conn, createIndexes); err != nil {
		return err
	}
	for _, t := range tableNames {
		if err := execAll(ctx, conn, []string{"vacuum analyze " + t}); err != nil {
			return err
		}
	}
	return nil
}

// execAll runs each statement alone with the simple query protocol, so
// that none is inside a transaction block (VACUUM refuses to be).
func execAll(ctx context.Context, conn *pgx.Conn, stmts []string) error {
	for _, s := range stmts {
		if err := conn.PgConn().Exec(ctx, s).Close(); err != nil {
			return fmt.Errorf("tpcc: %s: %w", firstLine(s), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
