package tpch

// nationGen makes NATION and REGION (clause 4.2.3): fixed names and keys,
// comments from their own streams.
type nationGen struct {
	pool   []byte
	nation tableStreams
	region tableStreams
}

func newNationGen() *nationGen {
	return &nationGen{pool: textPool(), nation: newTableStreams(sNCmnt), region: newTableStreams(sRCmnt)}
}

// nationComment is N_COMMENT of the nation with key n (row n+1).
func (g *nationGen) nationComment(n int64) []byte {
	g.nation.at(n + 1)
	c := comment(g.pool, &g.nation.streams[0], nationComment)
	g.nation.done()
	return c
}

// regionComment is R_COMMENT of the region with key r (row r+1).
func (g *nationGen) regionComment(r int64) []byte {
	g.region.at(r + 1)
	c := comment(g.pool, &g.region.streams[0], regionComment)
	g.region.done()
	return c
}
