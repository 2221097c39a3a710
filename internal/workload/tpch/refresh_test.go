package tpch

import (
	"context"
	"slices"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/tenancy"
	"github.com/tenantbench/tenantbench/internal/workload"
	"github.com/tenantbench/tenantbench/internal/workload/wltest"
)

// TestRefreshKeys: a refresh set is SF x 1500 orders whose keys are in
// the unused part of the sparse key space: none is a loaded key, no two
// sets share one, and the keys stay below the loaded maximum's block.
func TestRefreshKeys(t *testing.T) {
	for _, c := range []struct {
		sf   float64
		size int64
	}{{0.01, 15}, {0.1, 150}, {1, 1500}} {
		w := mustNew(t, c.sf, Options{Refresh: true})
		if got := w.z.refreshSize(); got != c.size {
			t.Errorf("SF %v: %d orders per refresh set, want %d", c.sf, got, c.size)
		}
		if c.sf > 0.1 {
			continue
		}
		loaded := map[int64]bool{}
		for i := int64(1); i <= w.z.orders; i++ {
			loaded[sparseKey(i)] = true
		}
		seen := map[int64]int64{}
		for _, k := range []int64{1, 2, 41, maxRefreshSet} {
			keys := w.RefreshKeys(k)
			if int64(len(keys)) != c.size {
				t.Fatalf("SF %v set %d: %d keys", c.sf, k, len(keys))
			}
			for _, key := range keys {
				if loaded[key] {
					t.Errorf("SF %v set %d: key %d is a loaded order's", c.sf, k, key)
				}
				if other, ok := seen[key]; ok {
					t.Errorf("SF %v: key %d in sets %d and %d", c.sf, key, other, k)
				}
				seen[key] = k
				if key > w.z.maxOrderKey()+32 {
					t.Errorf("SF %v set %d: key %d above the loaded keys' range (%d)", c.sf, k, key, w.z.maxOrderKey())
				}
			}
		}
	}
	// Set k's keys are dbgen's mk_sparse(index, 1): the loaded key of the
	// same index with the bits 3 and 4 = 01.
	w := mustNew(t, 1, Options{Refresh: true})
	if keys := w.RefreshKeys(1); keys[0] != 9 || keys[7] != 32+8 || keys[1499] != sparseKey(1500)+8 {
		t.Errorf("set 1 keys %v .. %v", keys[:8], keys[1499])
	}
}

// TestRefresh runs a stream with refresh on against PostgreSQL at SF
// 0.01: RF1 adds its set's orders and lines (the foreign keys of
// post-ingest hold them to the loaded customers and parts), a second
// stream's RF1 meanwhile adds its own set, RF2 removes each, and the
// row counts are the loaded ones again.
func TestRefresh(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	tn := wltest.Place(t, inst, tenancy.Schema{}, "r01")[0]
	o := DefaultOptions()
	o.Refresh, o.Queries = true, []int{1, 6}
	w := mustNew(t, 0.01, o)
	tn.Load(t, w)
	if names := w.TxnNames(); !slices.Equal(names, []string{"q01", "q06", "rf1", "rf2"}) {
		t.Errorf("TxnNames %v", names)
	}
	if err := w.SetTenant(0, 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := tn.Conn(t)
	loaded := w.Counts()
	count := func(table string) int64 { return wltest.QueryInt(t, conn, "select count(*) from "+table) }
	client := func(i int) *Client {
		c, err := w.NewClient(ctx, tn.Conn(t), workload.ClientInfo{Index: i, Clients: 2})
		if err != nil {
			t.Fatal(err)
		}
		return c.(*Client)
	}
	c1, c2 := client(0), client(1)
	k1, k2 := refreshSetOf(c1.Stream()), refreshSetOf(c2.Stream())
	run := func(c *Client) string {
		typ := c.Pick()
		if err := c.Run(ctx, typ); err != nil {
			t.Fatalf("stream %d %s: %v", c.Stream(), w.TxnNames()[typ], err)
		}
		return w.TxnNames()[typ]
	}
	if name := run(c1); name != "rf1" {
		t.Fatalf("stream %d starts with %s, want rf1", c1.Stream(), name)
	}
	size, lines := w.z.refreshSize(), w.RefreshLines(k1)
	if got := count("orders"); got != loaded["orders"]+size {
		t.Errorf("after RF1: %d orders, want %d + %d", got, loaded["orders"], size)
	}
	if got := count("lineitem"); got != loaded["lineitem"]+lines {
		t.Errorf("after RF1: %d lineitems, want %d + %d", got, loaded["lineitem"], lines)
	}
	if lines < size || lines > 7*size {
		t.Errorf("set %d has %d lines for %d orders", k1, lines, size)
	}
	keyCount := func(table, col string, k int64) int64 {
		return wltest.QueryInt(t, conn, "select count(*) from "+table+" where "+col+" = any($1)", w.RefreshKeys(k))
	}
	if got := keyCount("orders", "o_orderkey", k1); got != size {
		t.Errorf("%d of set %d's orders found, want %d", got, k1, size)
	}
	// The orders' o_totalprice is the sum over their lines, as in the
	// loaded data (clause 4.2.3).
	if bad := wltest.QueryInt(t, conn, `select count(*) from orders o where o_orderkey = any($1) and o_totalprice <>
		(select sum(trunc(trunc(l_extendedprice * (1 - l_discount), 2) * (1 + l_tax), 2)) from lineitem where l_orderkey = o_orderkey)`,
		w.RefreshKeys(k1)); bad != 0 {
		t.Errorf("%d orders of set %d whose total is not their lines'", bad, k1)
	}
	// The second stream's RF1 while the first's set is in.
	if name := run(c2); name != "rf1" || keyCount("orders", "o_orderkey", k2) != size {
		t.Errorf("stream %d: %s, %d orders of set %d", c2.Stream(), name, keyCount("orders", "o_orderkey", k2), k2)
	}
	for _, c := range []*Client{c1, c2} {
		last := ""
		for !c.Done() {
			last = run(c)
		}
		if last != "rf2" {
			t.Errorf("stream %d ends with %s, want rf2", c.Stream(), last)
		}
	}
	for _, k := range []int64{k1, k2} {
		if got := keyCount("orders", "o_orderkey", k) + keyCount("lineitem", "l_orderkey", k); got != 0 {
			t.Errorf("after RF2: %d rows of set %d left", got, k)
		}
	}
	if v, err := w.Check(ctx, conn); err != nil || v != nil {
		t.Errorf("check after the streams: %v, %v", v, err)
	}
	// The stream's log: RF1, the queries, RF2, the refresh functions marked.
	st := w.Streams()
	if len(st) != 2 || st[0].Queries != 4 || len(st[0].Execs) != 4 {
		t.Fatalf("streams %+v", st)
	}
	for i, e := range st[0].Execs {
		if e.Err != "" || e.Refresh != (i == 0 || i == 3) || e.Refresh && e.Query != []string{"rf1", "", "", "rf2"}[i] {
			t.Errorf("exec %d: %+v", i, e)
		}
	}
	// A second sequence of the stream uses its set again.
	if name := run(c1); name != "rf1" || keyCount("orders", "o_orderkey", k1) != size {
		t.Errorf("second sequence: %s, %d orders", name, keyCount("orders", "o_orderkey", k1))
	}
}
