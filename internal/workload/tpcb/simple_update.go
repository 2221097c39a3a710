package tpcb

// simpleUpdate is pgbench's built-in "simple-update" script, <builtin:
// simple update> (pgbench -N):
//
//	\set aid random(1, 100000 * :scale)
//	\set bid random(1, 1 * :scale)
//	\set tid random(1, 10 * :scale)
//	\set delta random(-5000, 5000)
//	BEGIN;
//	UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
//	SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
//	INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
//	END;
func (c *Client) simpleUpdate() error {
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
	c.setHistory(tid, bid, aid, delta)
	if err := c.exec(&c.insertHistory); err != nil {
		return err
	}
	return c.exec(&c.end)
}
