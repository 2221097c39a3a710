package tpcb

// selectOnly is pgbench's built-in "select-only" script, <builtin: select
// only> (pgbench -S):
//
//	\set aid random(1, 100000 * :scale)
//	SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
//
// There is no BEGIN or END: the SELECT runs in its own implicit transaction.
func (c *Client) selectOnly() error {
	aid := c.random(1, c.accounts)
	c.selectAccount.set(0, aid)
	return c.query(&c.selectAccount)
}
