package tpch

// partRow is a row of PART with its four PARTSUPP rows (dbgen generates
// them together: mk_part).
type partRow struct {
	key       int64
	name      []byte // five distinct colours
	mfgr      int64  // 1..5: Manufacturer#m
	brand     int64  // 11..55: Brand#mn
	typ       int    // index into partTypes
	size      int64
	container int   // index into containers
	price     int64 // cents
	comment   []byte
	supps     [suppsPerPart]partsuppRow
}

// partsuppRow is a row of PARTSUPP.
type partsuppRow struct {
	supp, qty, cost int64 // cost in cents
	comment         []byte
}

// The streams of PART and PARTSUPP, by position in partGen.t.
const (
	pName = iota
	pMfgr
	pBrand
	pType
	pSize
	pCntr
	pCmnt
	psQty
	psCost
	psCmnt
)

type partGen struct {
	z    sizes
	pool []byte
	t    tableStreams
	row  partRow
	perm [92]int
}

func newPartGen(z sizes) *partGen {
	return &partGen{z: z, pool: textPool(),
		t: newTableStreams(sPName, sPMfg, sPBrnd, sPType, sPSize, sPCntr, sPCmnt, sPSQty, sPSScst, sPSCmnt)}
}

// gen makes part p (clause 4.2.3, PART and PARTSUPP).
func (g *partGen) gen(p int64) *partRow {
	g.t.at(p)
	s := g.t.streams
	r := &g.row
	r.key = p
	// P_NAME: five colours of a permutation of the 92 (agg_str), of which
	// only the first five places are drawn: later draws never move them.
	for i := range g.perm {
		g.perm[i] = i
	}
	r.name = r.name[:0]
	for i := range 5 {
		j := int(s[pName].unifInt(int64(i), int64(len(g.perm)-1)))
		g.perm[i], g.perm[j] = g.perm[j], g.perm[i]
		if i > 0 {
			r.name = append(r.name, ' ')
		}
		r.name = append(r.name, colors.words[g.perm[i]]...)
	}
	r.mfgr = s[pMfgr].unifInt(1, 5)
	r.brand = r.mfgr*10 + s[pBrand].unifInt(1, 5)
	r.typ = partTypes.pick(&s[pType])
	r.size = s[pSize].unifInt(1, 50)
	r.container = containers.pick(&s[pCntr])
	r.price = rpb(p)
	r.comment = comment(g.pool, &s[pCmnt], partComment)
	for i := range r.supps {
		ps := &r.supps[i]
		ps.supp = partSupplier(p, int64(i), g.z.suppliers)
		ps.qty = s[psQty].unifInt(1, 9999)
		ps.cost = s[psCost].unifInt(100, 100000)
		ps.comment = comment(g.pool, &s[psCmnt], partsuppComment)
	}
	g.t.done()
	return r
}
