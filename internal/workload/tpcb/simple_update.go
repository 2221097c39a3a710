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
	aid, bid, tid, delta := c.drawScript()
	if err := c.updateAndRead(aid, delta); err != nil {
		return err
	}
	return c.insertHistoryEnd(tid, bid, aid, delta)
}
