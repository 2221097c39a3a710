package tpch

// q07 is the Volume Shipping Query (clause 2.4.7): :1 NATION1, :2
// NATION2.
const q07 = `select
	supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
	select
		n1.n_name as supp_nation,
		n2.n_name as cust_nation,
		extract(year from l_shipdate) as l_year,
		l_extendedprice * (1 - l_discount) as volume
	from supplier, lineitem, orders, customer, nation n1, nation n2
	where s_suppkey = l_suppkey
		and o_orderkey = l_orderkey
		and c_custkey = o_custkey
		and s_nationkey = n1.n_nationkey
		and c_nationkey = n2.n_nationkey
		and ((n1.n_name = $1 and n2.n_name = $2)
			or (n1.n_name = $2 and n2.n_name = $1))
		and l_shipdate between date '1995-01-01' and date '1996-12-31'
	) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year`

// q08 is the National Market Share Query (clause 2.4.8): :1 NATION, :2
// REGION, :3 TYPE.
const q08 = `select
	o_year,
	sum(case when nation = $1 then volume else 0 end) / sum(volume) as mkt_share
from (
	select
		extract(year from o_orderdate) as o_year,
		l_extendedprice * (1 - l_discount) as volume,
		n2.n_name as nation
	from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
	where p_partkey = l_partkey
		and s_suppkey = l_suppkey
		and l_orderkey = o_orderkey
		and o_custkey = c_custkey
		and c_nationkey = n1.n_nationkey
		and n1.n_regionkey = r_regionkey
		and r_name = $2
		and s_nationkey = n2.n_nationkey
		and o_orderdate between date '1995-01-01' and date '1996-12-31'
		and p_type = $3
	) as all_nations
group by o_year
order by o_year`

// q09 is the Product Type Profit Measure Query (clause 2.4.9): :1 COLOR.
const q09 = `select
	nation, o_year, sum(amount) as sum_profit
from (
	select
		n_name as nation,
		extract(year from o_orderdate) as o_year,
		l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
	from part, supplier, lineitem, partsupp, orders, nation
	where s_suppkey = l_suppkey
		and ps_suppkey = l_suppkey
		and ps_partkey = l_partkey
		and p_partkey = l_partkey
		and o_orderkey = l_orderkey
		and s_nationkey = n_nationkey
		and p_name like '%' || $1 || '%'
	) as profit
group by nation, o_year
order by nation, o_year desc`

// q10 is the Returned Item Reporting Query (clause 2.4.10): :1 DATE; the
// first 20 rows.
const q10 = `select
	c_custkey,
	c_name,
	sum(l_extendedprice * (1 - l_discount)) as revenue,
	c_acctbal,
	n_name,
	c_address,
	c_phone,
	c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and o_orderdate >= $1::date
	and o_orderdate < $1::date + interval '3' month
	and l_returnflag = 'R'
	and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc
limit 20`

// q11 is the Important Stock Identification Query (clause 2.4.11): :1
// NATION, :2 FRACTION (0.0001 / SF).
const q11 = `select
	ps_partkey,
	sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey
	and s_nationkey = n_nationkey
	and n_name = $1
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
	select sum(ps_supplycost * ps_availqty) * $2::numeric
	from partsupp, supplier, nation
	where ps_suppkey = s_suppkey
		and s_nationkey = n_nationkey
		and n_name = $1)
order by value desc`

// q12 is the Shipping Modes and Order Priority Query (clause 2.4.12): :1
// SHIPMODE1, :2 SHIPMODE2, :3 DATE.
const q12 = `select
	l_shipmode,
	sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH'
		then 1 else 0 end) as high_line_count,
	sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH'
		then 1 else 0 end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey
	and l_shipmode in ($1, $2)
	and l_commitdate < l_receiptdate
	and l_shipdate < l_commitdate
	and l_receiptdate >= $3::date
	and l_receiptdate < $3::date + interval '1' year
group by l_shipmode
order by l_shipmode`
