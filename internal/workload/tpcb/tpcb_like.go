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
	aid, bid, tid, delta := c.drawScript()
	if err := c.updateAndRead(aid, delta); err != nil {
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
	return c.insertHistoryEnd(tid, bid, aid, delta)
}

// drawScript is the four \set lines that tpcb-like and simple-update begin
// with, in their order.
func (c *Client) drawScript() (aid, bid, tid, delta int64) {
	aid = c.random(1, c.accounts)
	bid = c.random(1, c.branches)
	tid = c.random(1, c.tellers)
	delta = c.random(-5000, 5000)
	return aid, bid, tid, delta
}

// updateAndRead is BEGIN and the account's UPDATE and SELECT, as
// tpcb-like and simple-update have them.
func (c *Client) updateAndRead(aid, delta int64) error {
	if err := c.exec(&c.begin); err != nil {
		return err
	}
	c.updateAccount.set(0, delta)
	c.updateAccount.set(1, aid)
	if err := c.exec(&c.updateAccount); err != nil {
		return err
	}
	c.selectAccount.set(0, aid)
	return c.query(&c.selectAccount)
}

// insertHistoryEnd is the INSERT INTO pgbench_history and END that
// tpcb-like and simple-update end with.
func (c *Client) insertHistoryEnd(tid, bid, aid, delta int64) error {
	c.insertHistory.set(0, tid)
	c.insertHistory.set(1, bid)
	c.insertHistory.set(2, aid)
	c.insertHistory.set(3, delta)
	if err := c.exec(&c.insertHistory); err != nil {
		return err
	}
	return c.exec(&c.end)
}
