package tpch

// q13 is the Customer Distribution Query (clause 2.4.13): :1 WORD1, :2
// WORD2. The derived table's columns are named inside it (the template
// names them in a list after its alias, which MariaDB reads from 11.7 on
// only).
const q13 = `select
	c_count, count(*) as custdist
from (
	select c_custkey, count(o_orderkey) as c_count
	from customer left outer join orders on
		c_custkey = o_custkey
		and o_comment not like '%' || $1 || '%' || $2 || '%'
	group by c_custkey
	) as c_orders
group by c_count
order by custdist desc, c_count desc`

// q14 is the Promotion Effect Query (clause 2.4.14): :1 DATE.
const q14 = `select
	100.00 * sum(case when p_type like 'PROMO%'
		then l_extendedprice * (1 - l_discount) else 0 end)
		/ sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey
	and l_shipdate >= $1::date
	and l_shipdate < $1::date + interval '1' month`

// q15 is the Top Supplier Query (clause 2.4.15): :1 DATE. The view of the
// template is a common table expression, the variant of Appendix B
// (15a), so that concurrent streams need no DDL.
const q15 = `with revenue (supplier_no, total_revenue) as (
	select l_suppkey, sum(l_extendedprice * (1 - l_discount))
	from lineitem
	where l_shipdate >= $1::date
		and l_shipdate < $1::date + interval '3' month
	group by l_suppkey)
select s_suppkey, s_name, s_address, s_phone, total_revenue
from supplier, revenue
where s_suppkey = supplier_no
	and total_revenue = (select max(total_revenue) from revenue)
order by s_suppkey`

// q16 is the Parts/Supplier Relationship Query (clause 2.4.16): :1 BRAND,
// :2 TYPE, :3 to :10 SIZE1 to SIZE8.
const q16 = `select
	p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey
	and p_brand <> $1
	and p_type not like $2 || '%'
	and p_size in ($3::integer, $4::integer, $5::integer, $6::integer,
		$7::integer, $8::integer, $9::integer, $10::integer)
	and ps_suppkey not in (
		select s_suppkey from supplier
		where s_comment like '%Customer%Complaints%')
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size`

// q17 is the Small-Quantity-Order Revenue Query (clause 2.4.17): :1
// BRAND, :2 CONTAINER.
const q17 = `select
	sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey
	and p_brand = $1
	and p_container = $2
	and l_quantity < (
		select 0.2 * avg(l_quantity)
		from lineitem
		where l_partkey = p_partkey)`

// q18 is the Large Volume Customer Query (clause 2.4.18): :1 QUANTITY; the
// first 100 rows.
const q18 = `select
	c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
from customer, orders, lineitem
where o_orderkey in (
		select l_orderkey from lineitem
		group by l_orderkey
		having sum(l_quantity) > $1::integer)
	and c_custkey = o_custkey
	and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
limit 100`
