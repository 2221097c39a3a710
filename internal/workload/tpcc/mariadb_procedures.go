package tpcc

import (
	"fmt"
	"strconv"

	"github.com/tenantbench/tenantbench/internal/engine/mariadb"
	"github.com/tenantbench/tenantbench/internal/workload"
)

// Interaction procedures on MariaDB: one stored procedure per
// transaction, created in Setup, one CALL per transaction in one round
// trip, as HammerDB runs TPROC-C on MariaDB (Matos and Pedreira 2025).
// Each procedure runs its profile statement by statement inside a
// transaction of its own (START TRANSACTION ... COMMIT: a CALL is no
// transaction in MariaDB) and ends with a SELECT of its result, the row
// the terminal reads. On any error it rolls back and raises the error
// again, so the terminal sees MariaDB's own (a deadlock, 1213, is
// retried). MariaDB's procedures take no arrays: New-Order's lines come
// as comma-separated lists, sorted by (supplying warehouse, item), the
// unused item last, so that stock rows are locked in one global order.
// New-Order's rollback on purpose (clause 2.4.2.3) happens inside the
// procedure, which says so in its result.

// mariaProcedures are the CREATE statements of the five procedures.
func mariaProcedures() []string {
	return []string{
		`create or replace procedure tpcc_new_order(p_w int, p_d int, p_c int, p_n int,
	p_nums varchar(64), p_ids varchar(128), p_sw varchar(128), p_qty varchar(64), p_all_local int)
body: begin
	declare v_o_id, v_i, v_num, v_id, v_sw, v_q, v_s_qty int;
	declare v_w_tax, v_d_tax, v_discount decimal(4,4);
	declare v_last varchar(16);
	declare v_credit char(2);
	declare v_price decimal(5,2);
	declare v_name varchar(24);
	declare v_data, v_s_data varchar(50);
	declare v_dist char(24);
	declare continue handler for not found begin end;
	declare exit handler for sqlexception begin rollback; resignal; end;
	start transaction;
	select w_tax into v_w_tax from warehouse where w_id = p_w;
	select d_next_o_id, d_tax into v_o_id, v_d_tax from district where d_w_id = p_w and d_id = p_d for update;
	update district set d_next_o_id = d_next_o_id + 1 where d_w_id = p_w and d_id = p_d;
	select c_discount, c_last, c_credit into v_discount, v_last, v_credit
		from customer where c_w_id = p_w and c_d_id = p_d and c_id = p_c;
	insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		values (v_o_id, p_d, p_w, p_c, now(6), null, p_n, p_all_local);
	insert into new_order (no_o_id, no_d_id, no_w_id) values (v_o_id, p_d, p_w);
	set v_i = 1;
	while v_i <= p_n do
		set v_num = cast(substring_index(substring_index(p_nums, ',', v_i), ',', -1) as signed);
		set v_id = cast(substring_index(substring_index(p_ids, ',', v_i), ',', -1) as signed);
		set v_sw = cast(substring_index(substring_index(p_sw, ',', v_i), ',', -1) as signed);
		set v_q = cast(substring_index(substring_index(p_qty, ',', v_i), ',', -1) as signed);
		set v_price = null;
		select i_price, i_name, i_data into v_price, v_name, v_data from item where i_id = v_id;
		if v_price is null then
			rollback;
			select v_o_id, 1;
			leave body;
		end if;
		set v_s_qty = null;
		select s_quantity, s_data,
			case p_d when 1 then s_dist_01 when 2 then s_dist_02 when 3 then s_dist_03 when 4 then s_dist_04
				when 5 then s_dist_05 when 6 then s_dist_06 when 7 then s_dist_07 when 8 then s_dist_08
				when 9 then s_dist_09 else s_dist_10 end
			into v_s_qty, v_s_data, v_dist
			from stock where s_w_id = v_sw and s_i_id = v_id for update;
		if v_s_qty is null then
			signal sqlstate '45000' set message_text = 'tpcc: new_order: a stock row not found';
		end if;
		update stock set
			s_quantity = if(v_s_qty >= v_q + 10, v_s_qty - v_q, v_s_qty - v_q + 91),
			s_ytd = s_ytd + v_q,
			s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + if(v_sw = p_w, 0, 1)
			where s_w_id = v_sw and s_i_id = v_id;
		insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
			values (v_o_id, p_d, p_w, v_num, v_id, v_sw, null, v_q, v_q * v_price, v_dist);
		set v_i = v_i + 1;
	end while;
	commit;
	select v_o_id, 0;
end`,

		// Payment (clause 2.5.2.2): by last name when p_c is 0. Its
		// result is the customer paid, 0 when there is none (only on
		// damaged data).
		`create or replace procedure tpcc_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_last varchar(16), p_amount int)
body: begin
	declare v_amount decimal(6,2) default p_amount / 100;
	declare v_w_name, v_d_name varchar(10);
	declare v_c int default p_c;
	declare v_n int;
	declare v_credit char(2);
	declare continue handler for not found begin end;
	declare exit handler for sqlexception begin rollback; resignal; end;
	start transaction;
	update warehouse set w_ytd = w_ytd + v_amount where w_id = p_w;
	select w_name into v_w_name from warehouse where w_id = p_w;
	update district set d_ytd = d_ytd + v_amount where d_w_id = p_w and d_id = p_d;
	select d_name into v_d_name from district where d_w_id = p_w and d_id = p_d;
	if v_c = 0 then
		select count(*) into v_n from customer where c_w_id = p_cw and c_d_id = p_cd and c_last = p_last;
		if v_n = 0 then
			commit;
			select 0;
			leave body;
		end if;
		set v_n = (v_n + 1) div 2 - 1;
		select c_id into v_c from customer where c_w_id = p_cw and c_d_id = p_cd and c_last = p_last
			order by c_first, c_id limit v_n, 1;
	end if;
	set v_credit = null;
	select c_credit into v_credit from customer where c_w_id = p_cw and c_d_id = p_cd and c_id = v_c for update;
	if v_credit is null then
		commit;
		select 0;
		leave body;
	end if;
	update customer set
		c_balance = c_balance - v_amount,
		c_ytd_payment = c_ytd_payment + v_amount,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = if(v_credit = 'BC',
			left(concat(c_id, ' ', c_d_id, ' ', c_w_id, ' ', p_d, ' ', p_w, ' ', v_amount, ' | ', c_data), 500),
			c_data)
		where c_w_id = p_cw and c_d_id = p_cd and c_id = v_c;
	insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		values (v_c, p_cd, p_cw, p_d, p_w, now(6), v_amount, concat(v_w_name, '    ', v_d_name));
	commit;
	select v_c;
end`,

		// Order-Status (clause 2.6.2.2): by last name when p_c is 0. Its
		// result is the customer (0 for none), their last order (0 for
		// none) and its number of lines, each line fetched.
		`create or replace procedure tpcc_order_status(p_w int, p_d int, p_c int, p_last varchar(16))
body: begin
	declare v_c int default p_c;
	declare v_n, v_o, v_lines, v_carrier, v_li, v_lsw, v_lq int default 0;
	declare v_done int default 0;
	declare v_balance decimal(12,2);
	declare v_lamount decimal(6,2);
	declare v_first, v_last varchar(16);
	declare v_middle char(2);
	declare v_entry, v_ldelivery datetime(6);
	declare c_lines cursor for select ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
		from order_line where ol_w_id = p_w and ol_d_id = p_d and ol_o_id = v_o;
	declare continue handler for not found set v_done = 1;
	declare exit handler for sqlexception begin rollback; resignal; end;
	start transaction;
	if v_c = 0 then
		select count(*) into v_n from customer where c_w_id = p_w and c_d_id = p_d and c_last = p_last;
		if v_n = 0 then
			commit;
			select 0, 0, 0;
			leave body;
		end if;
		set v_n = (v_n + 1) div 2 - 1;
		select c_id into v_c from customer where c_w_id = p_w and c_d_id = p_d and c_last = p_last
			order by c_first, c_id limit v_n, 1;
	end if;
	set v_balance = null;
	select c_balance, c_first, c_middle, c_last into v_balance, v_first, v_middle, v_last
		from customer where c_w_id = p_w and c_d_id = p_d and c_id = v_c;
	if v_balance is null then
		commit;
		select 0, 0, 0;
		leave body;
	end if;
	select o_id, o_entry_d, o_carrier_id into v_o, v_entry, v_carrier
		from orders where o_w_id = p_w and o_d_id = p_d and o_c_id = v_c order by o_id desc limit 1;
	if v_o <> 0 then
		set v_done = 0;
		open c_lines;
		fetch_lines: loop
			fetch c_lines into v_li, v_lsw, v_lq, v_lamount, v_ldelivery;
			if v_done then
				leave fetch_lines;
			end if;
			set v_lines = v_lines + 1;
		end loop;
		close c_lines;
	end if;
	commit;
	select v_c, v_o, v_lines;
end`,

		// Delivery (clause 2.7.4.2), the districts in order, in one
		// transaction; a new order another Delivery holds locked is passed
		// over (SKIP LOCKED), as in the other forms. Its result is the
		// orders delivered.
		`create or replace procedure tpcc_delivery(p_w int, p_carrier int)
begin
	declare v_d int default 1;
	declare v_o, v_c int;
	declare v_delivered int default 0;
	declare v_amount decimal(12,2);
	declare continue handler for not found begin end;
	declare exit handler for sqlexception begin rollback; resignal; end;
	start transaction;
	while v_d <= 10 do
		set v_o = null;
		select no_o_id into v_o from new_order where no_w_id = p_w and no_d_id = v_d
			order by no_o_id limit 1 for update skip locked;
		if v_o is not null then
			delete from new_order where no_w_id = p_w and no_d_id = v_d and no_o_id = v_o;
			select o_c_id into v_c from orders where o_w_id = p_w and o_d_id = v_d and o_id = v_o for update;
			update orders set o_carrier_id = p_carrier where o_w_id = p_w and o_d_id = v_d and o_id = v_o;
			update order_line set ol_delivery_d = now(6) where ol_w_id = p_w and ol_d_id = v_d and ol_o_id = v_o;
			select coalesce(sum(ol_amount), 0) into v_amount from order_line
				where ol_w_id = p_w and ol_d_id = v_d and ol_o_id = v_o;
			update customer set c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
				where c_w_id = p_w and c_d_id = v_d and c_id = v_c;
			set v_delivered = v_delivered + 1;
		end if;
		set v_d = v_d + 1;
	end while;
	commit;
	select v_delivered;
end`,

		// Stock-Level (clause 2.8.2.2). Its result is the count of low
		// stock.
		`create or replace procedure tpcc_stock_level(p_w int, p_d int, p_threshold int)
begin
	declare v_next int;
	declare v_low bigint;
	declare continue handler for not found begin end;
	declare exit handler for sqlexception begin rollback; resignal; end;
	start transaction;
	select d_next_o_id into v_next from district where d_w_id = p_w and d_id = p_d;
	select count(distinct s_i_id) into v_low from order_line, stock
		where ol_w_id = p_w and ol_d_id = p_d and ol_o_id < v_next and ol_o_id >= v_next - 20
			and s_w_id = p_w and s_i_id = ol_i_id and s_quantity < p_threshold;
	commit;
	select v_low;
end`,
	}
}

// The calls, one per transaction.
const (
	mariaCallNewOrder    = `CALL tpcc_new_order(?, ?, ?, ?, ?, ?, ?, ?, ?)`
	mariaCallPayment     = `CALL tpcc_payment(?, ?, ?, ?, ?, ?, ?)`
	mariaCallOrderStatus = `CALL tpcc_order_status(?, ?, ?, ?)`
	mariaCallDelivery    = `CALL tpcc_delivery(?, ?)`
	mariaCallStockLevel  = `CALL tpcc_stock_level(?, ?, ?)`
)

// list is vs as a comma-separated list.
func list(buf []byte, vs []int32) string {
	buf = buf[:0]
	for i, v := range vs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(v), 10)
	}
	return string(buf)
}

func (t *newOrderTxn) mariaCall(c *Client) error {
	m := c.maria
	t.callLines()
	allLocal := 0
	if t.allLocal {
		allLocal = 1
	}
	var buf [8 * maxOrderLines]byte
	rolledBack := false
	rows, err := m.each(mariaCallNewOrder, []any{t.w, t.d, t.c, t.n,
		list(buf[:], t.nums[:t.n]), list(buf[:], t.ids[:t.n]), list(buf[:], t.supplies[:t.n]), list(buf[:], t.qtys[:t.n]), allLocal},
		func(v mariadb.Row) { t.oid, rolledBack = atoi(v, 0), atoi(v, 1) == 1 })
	if err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("tpcc: new_order: %d result rows", rows)
	}
	if rolledBack {
		if !t.rollback {
			return fmt.Errorf("tpcc: new_order: an item of order %d of district %d, warehouse %d, not found", t.oid, t.d, t.w)
		}
		return workload.ErrRollback
	}
	return nil
}

func (t *paymentTxn) mariaCall(c *Client) error {
	m := c.maria
	cust, last := callCustomer(t.byLast, t.c, t.last)
	t.cid = 0
	if _, err := m.each(mariaCallPayment, []any{t.w, t.d, t.cw, t.cd, cust, last, t.amount},
		func(v mariadb.Row) { t.cid = atoi(v, 0) }); err != nil {
		return err
	}
	if t.cid == 0 {
		return fmt.Errorf("tpcc: payment: no customer %s in district %d of warehouse %d", t.who(), t.cd, t.cw)
	}
	return nil
}

func (t *orderStatusTxn) mariaCall(c *Client) error {
	m := c.maria
	cust, last := callCustomer(t.byLast, t.c, t.last)
	t.cid, t.oid, t.lines = 0, 0, 0
	if _, err := m.each(mariaCallOrderStatus, []any{t.w, t.d, cust, last}, func(v mariadb.Row) {
		t.cid, t.oid, t.lines = atoi(v, 0), atoi(v, 1), atoi(v, 2)
	}); err != nil {
		return err
	}
	if t.cid == 0 {
		return fmt.Errorf("tpcc: order_status: no customer in district %d of warehouse %d", t.d, t.w)
	}
	return nil
}

func (t *deliveryTxn) mariaCall(c *Client) error {
	m := c.maria
	t.delivered = 0
	if _, err := m.each(mariaCallDelivery, []any{t.w, t.carrier}, func(v mariadb.Row) { t.delivered = atoi(v, 0) }); err != nil {
		return err
	}
	t.skipped = districtsPerW - t.delivered
	return nil
}

func (t *stockLevelTxn) mariaCall(c *Client) error {
	m := c.maria
	rows, err := m.each(mariaCallStockLevel, []any{t.w, t.d, t.threshold}, func(v mariadb.Row) { t.low = int64(atoi(v, 0)) })
	if err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("tpcc: stock_level: %d result rows", rows)
	}
	return nil
}
