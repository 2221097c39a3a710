package tpcb

// The built-in scripts of pgbench (pgbench -b NAME, listed by
// "pgbench -b list"). Their names are the transaction types in results.
const (
	TPCBLike     = "tpcb-like"
	SimpleUpdate = "simple-update"
	SelectOnly   = "select-only"
)

// script is one of the built-in scripts.
type script int

const (
	scriptTPCBLike script = iota
	scriptSimpleUpdate
	scriptSelectOnly
)

func (s script) String() string {
	switch s {
	case scriptTPCBLike:
		return TPCBLike
	case scriptSimpleUpdate:
		return SimpleUpdate
	case scriptSelectOnly:
		return SelectOnly
	}
	return "unknown"
}

// allScripts are the built-in scripts in pgbench's order.
func allScripts() []script {
	return []script{scriptTPCBLike, scriptSimpleUpdate, scriptSelectOnly}
}

// scriptNames are the built-in scripts' names in pgbench's order.
func scriptNames() []string {
	return []string{TPCBLike, SimpleUpdate, SelectOnly}
}

// scriptIndex is the script called name, or -1.
func scriptIndex(name string) script {
	for _, s := range allScripts() {
		if s.String() == name {
			return s
		}
	}
	return -1
}

// The statements of the built-in scripts, with pgbench's variables replaced
// by parameters in order of appearance, as "pgbench -M prepared" sends them
// ("pgbench --show-script=NAME" prints the scripts).
const (
	sqlBegin         = "BEGIN"
	sqlEnd           = "END"
	sqlUpdateAccount = "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"
	sqlSelectAccount = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
	sqlUpdateTeller  = "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2"
	sqlUpdateBranch  = "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2"
	sqlInsertHistory = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)"
)
