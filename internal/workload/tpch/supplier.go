package tpch

// supplierRow is a row of SUPPLIER.
type supplierRow struct {
	key     int64
	address []byte
	nation  int64
	phone   []byte
	acctbal int64 // cents
	comment []byte
}

// The streams of SUPPLIER, by position in supplierGen.t.
const (
	suAddr = iota
	suNation
	suPhone
	suAcctbal
	suCmnt
	suBBBCmnt
	suBBBType
	suBBBJunk
	suBBBOffset
)

// Clause 4.2.3's S_COMMENT of "Customer ... Complaints" and "Customer
// ... Recommends" suppliers: about 10 per SF (bad_press 1..10000 at most
// 10), half of each (type below 50 complains).
const (
	bbbPerTenThousand = 10 // S_CMNT_BBB
	bbbDeadbeats      = 50
	bbbBase           = "Customer "
	bbbComplain       = "Complaints"
	bbbCommend        = "Recommends"
	bbbLen            = 19 // BBB_CMNT_LEN
)

type supplierGen struct {
	pool    []byte
	t       tableStreams
	row     supplierRow
	comment []byte // a copy of the pool's text when it is changed
}

func newSupplierGen() *supplierGen {
	return &supplierGen{pool: textPool(),
		t: newTableStreams(sSAddr, sSNtrg, sSPhne, sSAbal, sSCmnt, sBBBCmnt, sBBBType, sBBBJnk, sBBBOffst)}
}

// gen makes supplier k (clause 4.2.3, SUPPLIER; dbgen's mk_supp).
func (g *supplierGen) gen(k int64) *supplierRow {
	g.t.at(k)
	s := g.t.streams
	r := &g.row
	r.key = k
	r.address = appendRandomString(r.address[:0], &s[suAddr], addressLen)
	r.nation = s[suNation].unifInt(0, numNations-1)
	r.phone = appendPhone(r.phone[:0], &s[suPhone], r.nation)
	r.acctbal = s[suAcctbal].unifInt(-99999, 999999)
	r.comment = comment(g.pool, &s[suCmnt], supplierComment)
	n := int64(len(r.comment))
	badPress := s[suBBBCmnt].unifInt(1, 10000)
	typ := s[suBBBType].unifInt(0, 100)
	noise := s[suBBBJunk].unifInt(0, n-bbbLen)
	offset := s[suBBBOffset].unifInt(0, n-(bbbLen+noise))
	if badPress <= bbbPerTenThousand {
		c := append(g.comment[:0], r.comment...)
		copy(c[offset:], bbbBase)
		word := bbbCommend
		if typ < bbbDeadbeats {
			word = bbbComplain
		}
		copy(c[offset+int64(len(bbbBase))+noise:], word)
		g.comment, r.comment = c, c
	}
	g.t.done()
	return r
}
