package tpch

// The queries of clause 2.4 in PostgreSQL syntax, their substitution
// parameters bound as text ($1 is the template's :1, and so on), cast
// where the column's type does not decide it. Row limits (the templates'
// :n) are LIMIT clauses. Intervals are written in the SQL standard's form
// (interval '3' month), which PostgreSQL, MariaDB and DuckDB read alike;
// mariadb_queries.go turns the rest into MariaDB's dialect.

// q01 is the Pricing Summary Report Query (clause 2.4.1): :1 DELTA days
// before 1998-12-01.
const q01 = `select
	l_returnflag,
	l_linestatus,
	sum(l_quantity) as sum_qty,
	sum(l_extendedprice) as sum_base_price,
	sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
	sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
	avg(l_quantity) as avg_qty,
	avg(l_extendedprice) as avg_price,
	avg(l_discount) as avg_disc,
	count(*) as count_order
from lineitem
where l_shipdate <= date '1998-12-01' - $1::integer
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus`

// q02 is the Minimum Cost Supplier Query (clause 2.4.2): :1 SIZE, :2 TYPE,
// :3 REGION; the first 100 rows.
const q02 = `select
	s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey
	and s_suppkey = ps_suppkey
	and p_size = $1::integer
	and p_type like '%' || $2
	and s_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and r_name = $3
	and ps_supplycost = (
		select min(ps_supplycost)
		from partsupp, supplier, nation, region
		where p_partkey = ps_partkey
			and s_suppkey = ps_suppkey
			and s_nationkey = n_nationkey
			and n_regionkey = r_regionkey
			and r_name = $3)
order by s_acctbal desc, n_name, s_name, p_partkey
limit 100`

// q03 is the Shipping Priority Query (clause 2.4.3): :1 SEGMENT, :2 DATE;
// the first 10 rows.
const q03 = `select
	l_orderkey,
	sum(l_extendedprice * (1 - l_discount)) as revenue,
	o_orderdate,
	o_shippriority
from customer, orders, lineitem
where c_mktsegment = $1
	and c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and o_orderdate < $2::date
	and l_shipdate > $2::date
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate
limit 10`

// q04 is the Order Priority Checking Query (clause 2.4.4): :1 DATE.
const q04 = `select
	o_orderpriority,
	count(*) as order_count
from orders
where o_orderdate >= $1::date
	and o_orderdate < $1::date + interval '3' month
	and exists (
		select * from lineitem
		where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority
order by o_orderpriority`

// q05 is the Local Supplier Volume Query (clause 2.4.5): :1 REGION, :2
// DATE.
const q05 = `select
	n_name,
	sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and l_suppkey = s_suppkey
	and c_nationkey = s_nationkey
	and s_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and r_name = $1
	and o_orderdate >= $2::date
	and o_orderdate < $2::date + interval '1' year
group by n_name
order by revenue desc`

// q06 is the Forecasting Revenue Change Query (clause 2.4.6): :1 DATE, :2
// DISCOUNT, :3 QUANTITY.
const q06 = `select
	sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= $1::date
	and l_shipdate < $1::date + interval '1' year
	and l_discount between $2::numeric - 0.01 and $2::numeric + 0.01
	and l_quantity < $3::integer`
