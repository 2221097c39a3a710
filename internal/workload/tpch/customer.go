package tpch

// customerRow is a row of CUSTOMER.
type customerRow struct {
	key     int64
	address []byte
	nation  int64
	phone   []byte
	acctbal int64 // cents
	segment int   // index into segments
	comment []byte
}

// The streams of CUSTOMER, by position in customerGen.t.
const (
	cAddr = iota
	cNation
	cPhone
	cAcctbal
	cSegment
	cCmnt
)

type customerGen struct {
	pool []byte
	t    tableStreams
	row  customerRow
}

func newCustomerGen() *customerGen {
	return &customerGen{pool: textPool(), t: newTableStreams(sCAddr, sCNtrg, sCPhne, sCAbal, sCMseg, sCCmnt)}
}

// gen makes customer k (clause 4.2.3, CUSTOMER; dbgen's mk_cust).
func (g *customerGen) gen(k int64) *customerRow {
	g.t.at(k)
	s := g.t.streams
	r := &g.row
	r.key = k
	r.address = appendRandomString(r.address[:0], &s[cAddr], addressLen)
	r.nation = s[cNation].unifInt(0, numNations-1)
	r.phone = appendPhone(r.phone[:0], &s[cPhone], r.nation)
	r.acctbal = s[cAcctbal].unifInt(-99999, 999999)
	r.segment = segments.pick(&s[cSegment])
	r.comment = comment(g.pool, &s[cCmnt], customerComment)
	g.t.done()
	return r
}
