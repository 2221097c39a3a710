package tpcc

// The server-side functions of interaction procedures: one PL/pgSQL
// function per transaction, as HammerDB creates on PostgreSQL (Matos and
// Pedreira 2025 ran HammerDB's TPROC-C). Each runs its transaction's
// profile statement by statement, in the order of its clause, inside the
// implicit transaction of its call. The names of tables are unqualified:
// they are the caller's (its search_path), like every statement of the
// other interactions. SQLSTATE TPCRB is New-Order's rollback on purpose
// (clause 2.4.2.3): raising it undoes the whole call.

// sqlstateRollback is the SQLSTATE tpcc_new_order raises for an unused
// item.
const sqlstateRollback = "TPCRB"

var createFunctions = []string{
	// New-Order (clause 2.4.2.2). The lines come sorted by (supplying
	// warehouse, item), an unused item last, so that stock rows are locked
	// in one global order. Returns O_ID.
	`create or replace function tpcc_new_order(p_w int, p_d int, p_c int, p_nums int[], p_ids int[], p_sw int[], p_qty int[], p_all_local int)
returns int language plpgsql as $$
declare
	v_w_tax numeric; v_d_tax numeric; v_o_id int; v_discount numeric; v_last varchar; v_credit char(2);
	v_price numeric; v_name varchar; v_data varchar; v_s_qty int; v_s_data varchar; v_dist char(24);
	v_n int := cardinality(p_ids);
begin
	select w_tax into v_w_tax from warehouse where w_id = p_w;
	update district set d_next_o_id = d_next_o_id + 1 where d_w_id = p_w and d_id = p_d
		returning d_next_o_id - 1, d_tax into v_o_id, v_d_tax;
	if not found then
		raise exception 'tpcc: new_order: district % of warehouse % not found', p_d, p_w;
	end if;
	select c_discount, c_last, c_credit into v_discount, v_last, v_credit
		from customer where c_w_id = p_w and c_d_id = p_d and c_id = p_c;
	insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		values (v_o_id, p_d, p_w, p_c, localtimestamp, null, v_n, p_all_local);
	insert into new_order (no_o_id, no_d_id, no_w_id) values (v_o_id, p_d, p_w);
	for i in 1 .. v_n loop
		select i_price, i_name, i_data into v_price, v_name, v_data from item where i_id = p_ids[i];
		if not found then
			raise exception 'tpcc: new_order: item % not found', p_ids[i] using errcode = 'TPCRB';
		end if;
		update stock set
			s_quantity = case when s_quantity >= p_qty[i] + 10 then s_quantity - p_qty[i] else s_quantity - p_qty[i] + 91 end,
			s_ytd = s_ytd + p_qty[i],
			s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + case when p_sw[i] = p_w then 0 else 1 end
		where s_w_id = p_sw[i] and s_i_id = p_ids[i]
		returning s_quantity, s_data,
			case p_d when 1 then s_dist_01 when 2 then s_dist_02 when 3 then s_dist_03 when 4 then s_dist_04
				when 5 then s_dist_05 when 6 then s_dist_06 when 7 then s_dist_07 when 8 then s_dist_08
				when 9 then s_dist_09 else s_dist_10 end
		into v_s_qty, v_s_data, v_dist;
		if not found then
			raise exception 'tpcc: new_order: no stock of item % at warehouse %', p_ids[i], p_sw[i];
		end if;
		insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
			values (v_o_id, p_d, p_w, p_nums[i], p_ids[i], p_sw[i], null, p_qty[i], p_qty[i] * v_price, v_dist);
	end loop;
	return v_o_id;
end $$`,

	// Payment (clause 2.5.2.2): by last name when p_c is 0. Returns the
	// customer paid, 0 when there is none (only on damaged data).
	`create or replace function tpcc_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_last varchar, p_amount int)
returns int language plpgsql as $$
declare
	v_amount numeric := p_amount / 100.0;
	v_w_name varchar; v_d_name varchar; v_c int := p_c; v_n int; v_credit char(2);
begin
	update warehouse set w_ytd = w_ytd + v_amount where w_id = p_w returning w_name into v_w_name;
	update district set d_ytd = d_ytd + v_amount where d_w_id = p_w and d_id = p_d returning d_name into v_d_name;
	if v_c = 0 then
		select count(*) into v_n from customer where c_w_id = p_cw and c_d_id = p_cd and c_last = p_last;
		if v_n = 0 then
			return 0;
		end if;
		select c_id into v_c from customer where c_w_id = p_cw and c_d_id = p_cd and c_last = p_last
			order by c_first, c_id offset (v_n + 1) / 2 - 1 limit 1;
	end if;
	select c_credit into v_credit from customer where c_w_id = p_cw and c_d_id = p_cd and c_id = v_c for update;
	if not found then
		return 0;
	end if;
	update customer set
		c_balance = c_balance - v_amount,
		c_ytd_payment = c_ytd_payment + v_amount,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = case when v_credit = 'BC' then
			left(format('%s %s %s %s %s %s | ', c_id, c_d_id, c_w_id, p_d, p_w, v_amount::numeric(6,2)) || c_data, 500)
			else c_data end
	where c_w_id = p_cw and c_d_id = p_cd and c_id = v_c;
	insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		values (v_c, p_cd, p_cw, p_d, p_w, localtimestamp, v_amount, v_w_name || '    ' || v_d_name);
	return v_c;
end $$`,

	// Order-Status (clause 2.6.2.2): by last name when p_c is 0. Returns
	// the customer (0 for none), their last order (0 for none) and its
	// number of lines.
	`create or replace function tpcc_order_status(p_w int, p_d int, p_c int, p_last varchar,
	out r_c_id int, out r_o_id int, out r_lines int)
language plpgsql as $$
declare
	v_n int; v_balance numeric; v_first varchar; v_middle char(2); v_last varchar;
	v_entry timestamp; v_carrier int; v_line record;
begin
	r_c_id := p_c; r_o_id := 0; r_lines := 0;
	if r_c_id = 0 then
		select count(*) into v_n from customer where c_w_id = p_w and c_d_id = p_d and c_last = p_last;
		if v_n = 0 then
			return;
		end if;
		select c_id into r_c_id from customer where c_w_id = p_w and c_d_id = p_d and c_last = p_last
			order by c_first, c_id offset (v_n + 1) / 2 - 1 limit 1;
	end if;
	select c_balance, c_first, c_middle, c_last into v_balance, v_first, v_middle, v_last
		from customer where c_w_id = p_w and c_d_id = p_d and c_id = r_c_id;
	if not found then
		r_c_id := 0;
		return;
	end if;
	select o_id, o_entry_d, o_carrier_id into r_o_id, v_entry, v_carrier
		from orders where o_w_id = p_w and o_d_id = p_d and o_c_id = r_c_id order by o_id desc limit 1;
	if not found then
		r_o_id := 0;
		return;
	end if;
	for v_line in select ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
		from order_line where ol_w_id = p_w and ol_d_id = p_d and ol_o_id = r_o_id loop
		r_lines := r_lines + 1;
	end loop;
end $$`,

	// Delivery (clause 2.7.4.2), the districts in order; a new order that
	// another Delivery holds locked is passed over, as in the other
	// interactions. Returns the orders delivered.
	`create or replace function tpcc_delivery(p_w int, p_carrier int)
returns int language plpgsql as $$
declare
	v_o_id int; v_c_id int; v_amount numeric; v_delivered int := 0;
begin
	for d in 1 .. 10 loop
		select no_o_id into v_o_id from new_order where no_w_id = p_w and no_d_id = d
			order by no_o_id limit 1 for update skip locked;
		if not found then
			continue;
		end if;
		delete from new_order where no_w_id = p_w and no_d_id = d and no_o_id = v_o_id;
		update orders set o_carrier_id = p_carrier where o_w_id = p_w and o_d_id = d and o_id = v_o_id
			returning o_c_id into v_c_id;
		update order_line set ol_delivery_d = localtimestamp where ol_w_id = p_w and ol_d_id = d and ol_o_id = v_o_id;
		select coalesce(sum(ol_amount), 0) into v_amount from order_line
			where ol_w_id = p_w and ol_d_id = d and ol_o_id = v_o_id;
		update customer set c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
			where c_w_id = p_w and c_d_id = d and c_id = v_c_id;
		v_delivered := v_delivered + 1;
	end loop;
	return v_delivered;
end $$`,

	// Stock-Level (clause 2.8.2.2). Returns the count of low stock.
	`create or replace function tpcc_stock_level(p_w int, p_d int, p_threshold int)
returns bigint language plpgsql as $$
declare
	v_next int; v_low bigint;
begin
	select d_next_o_id into v_next from district where d_w_id = p_w and d_id = p_d;
	select count(distinct s_i_id) into v_low from order_line, stock
		where ol_w_id = p_w and ol_d_id = p_d and ol_o_id < v_next and ol_o_id >= v_next - 20
			and s_w_id = p_w and s_i_id = ol_i_id and s_quantity < p_threshold;
	return v_low;
end $$`,
}

// The calls, one per transaction. Parameters are cast so that the server
// infers the types the terminal encodes.
const (
	sqlCallNewOrder    = `SELECT tpcc_new_order($1::int4, $2::int4, $3::int4, $4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int4)`
	sqlCallPayment     = `SELECT tpcc_payment($1::int4, $2::int4, $3::int4, $4::int4, $5::int4, $6::varchar, $7::int4)`
	sqlCallOrderStatus = `SELECT r_c_id, r_o_id, r_lines FROM tpcc_order_status($1::int4, $2::int4, $3::int4, $4::varchar)`
	sqlCallDelivery    = `SELECT tpcc_delivery($1::int4, $2::int4)`
	sqlCallStockLevel  = `SELECT tpcc_stock_level($1::int4, $2::int4, $3::int4)`
)
