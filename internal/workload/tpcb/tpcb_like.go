package tpcb

// tpcbLike is pgbench's built-in "tpcb-like" script, <builtin: TPC-B (sort
// of)>:
//
//	\set aid random(1, 100000 * :scale)
//	\set bid random(1, 1 * :scale)
//	\set tid random(1, 10 * :scale)
//	\set delta random(-5000, 5000)
//	BEGIN;
//	UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
//	SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
//	UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
//	UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
//	INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
//	END;
//
// As in pgbench, bid is drawn on its own, not as the teller's branch.
func (c *Client) tpcbLike() error {
	aid := c.random(1, c.accounts)
	bid := c.random(1, c.branches)
	tid := c.random(1, c.tellers)
	delta := c.random(-5000, 5000)

	if err := c.exec(&c.begin); err != nil {
		return err
	}
	c.updateAccount.set(0, delta)
	c.updateAccount.set(1, aid)
	if err := c.exec(&c.updateAccount); err != nil {
		return err
	}
	c.selectAccount.set(0, aid)
	if err := c.query(&c.selectAccount); err != nil {
		return err
	}
	c.updateTeller.set(0, delta)
	c.updateTeller.set(1, tid)
	if err := c.exec(&c.updateTeller); err != nil {
		return err
	}
	c.updateBranch.set(0, delta)
	c.updateBranch.set(1, bid)
	if err := c.exec(&c.updateBranch); err != nil {
		return err
	}
	c.setHistory(tid, bid, aid, delta)
	if err := c.exec(&c.insertHistory); err != nil {
		return err
	}
	return c.exec(&c.end)
}

// setHistory binds the INSERT INTO pgbench_history parameters.
func (c *Client) setHistory(tid, bid, aid, delta int64) {
	c.insertHistory.set(0, tid)
	c.insertHistory.set(1, bid)
	c.insertHistory.set(2, aid)
	c.insertHistory.set(3, delta)
}
