package tpch

// q19 is the Discounted Revenue Query (clause 2.4.19): :1 to :3 BRAND1 to
// BRAND3, :4 to :6 QUANTITY1 to QUANTITY3.
const q19 = `select
	sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (
		p_partkey = l_partkey
		and p_brand = $1
		and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
		and l_quantity >= $4::integer and l_quantity <= $4::integer + 10
		and p_size between 1 and 5
		and l_shipmode in ('AIR', 'AIR REG')
		and l_shipinstruct = 'DELIVER IN PERSON'
	) or (
		p_partkey = l_partkey
		and p_brand = $2
		and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
		and l_quantity >= $5::integer and l_quantity <= $5::integer + 10
		and p_size between 1 and 10
		and l_shipmode in ('AIR', 'AIR REG')
		and l_shipinstruct = 'DELIVER IN PERSON'
	) or (
		p_partkey = l_partkey
		and p_brand = $3
		and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
		and l_quantity >= $6::integer and l_quantity <= $6::integer + 10
		and p_size between 1 and 15
		and l_shipmode in ('AIR', 'AIR REG')
		and l_shipinstruct = 'DELIVER IN PERSON'
	)`

// q20 is the Potential Part Promotion Query (clause 2.4.20): :1 COLOR, :2
// DATE, :3 NATION.
const q20 = `select
	s_name, s_address
from supplier, nation
where s_suppkey in (
		select ps_suppkey from partsupp
		where ps_partkey in (
				select p_partkey from part where p_name like $1 || '%')
			and ps_availqty > (
				select 0.5 * sum(l_quantity)
				from lineitem
				where l_partkey = ps_partkey
					and l_suppkey = ps_suppkey
					and l_shipdate >= $2::date
					and l_shipdate < $2::date + interval '1' year))
	and s_nationkey = n_nationkey
	and n_name = $3
order by s_name`

// q21 is the Suppliers Who Kept Orders Waiting Query (clause 2.4.21): :1
// NATION; the first 100 rows.
const q21 = `select
	s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey
	and o_orderkey = l1.l_orderkey
	and o_orderstatus = 'F'
	and l1.l_receiptdate > l1.l_commitdate
	and exists (
		select * from lineitem l2
		where l2.l_orderkey = l1.l_orderkey
			and l2.l_suppkey <> l1.l_suppkey)
	and not exists (
		select * from lineitem l3
		where l3.l_orderkey = l1.l_orderkey
			and l3.l_suppkey <> l1.l_suppkey
			and l3.l_receiptdate > l3.l_commitdate)
	and s_nationkey = n_nationkey
	and n_name = $1
group by s_name
order by numwait desc, s_name
limit 100`

// q22 is the Global Sales Opportunity Query (clause 2.4.22): :1 to :7
// country codes I1 to I7.
const q22 = `select
	cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (
	select substring(c_phone from 1 for 2) as cntrycode, c_acctbal
	from customer
	where substring(c_phone from 1 for 2) in ($1, $2, $3, $4, $5, $6, $7)
		and c_acctbal > (
			select avg(c_acctbal) from customer
			where c_acctbal > 0.00
				and substring(c_phone from 1 for 2) in ($1, $2, $3, $4, $5, $6, $7))
		and not exists (select * from orders where o_custkey = c_custkey)
	) as custsale
group by cntrycode
order by cntrycode`

// QueryText is query q's text (1..22), parameters $1, $2, ... in the
// order of the template's :1, :2, ...
func QueryText(q int) string {
	return [...]string{"", q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11,
		q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22}[q]
}
