package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// countedBlocks counts the block queries of a real statistics session.
type countedBlocks struct {
	server.Stats
	n int
}

func (c *countedBlocks) DatabaseBlocks(ctx context.Context, fn func(name []byte, read, hit int64)) error {
	c.n++
	return c.Stats.(server.BlockStats).DatabaseBlocks(ctx, fn)
}

func (c *countedBlocks) SchemaBlocks(ctx context.Context, fn func(name []byte, read, hit int64)) error {
	c.n++
	return c.Stats.(server.BlockStats).SchemaBlocks(ctx, fn)
}

// TestBlocksSkippedWhenIdle: a round in which no process but the
// monitor's backend ran keeps the last counts without a query; one after
// a tenant's session ran asks the server, and sees its blocks.
func TestBlocksSkippedWhenIdle(t *testing.T) {
	inst, ps, c := quietServer(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE x AS SELECT g FROM generate_series(1, 20000) g"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // its counts flushed (at most once a second)
	m := New(Config{Instances: []*provider.Instance{inst}, Placements: ps, Model: tenancy.Database{},
		Interval: time.Hour, WaitInterval: -1, PSSInterval: -1})
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	s := m.samplers[0]
	cb := &countedBlocks{Stats: s.conn}
	s.conn = cb
	defer func() { s.conn = cb.Stats }()
	k := firstTenant
	// On a loaded machine the server's own processes may still be busy
	// (CREATE DATABASE's checkpoint) for seconds, and each round then
	// rightly asks: sample until one round is skipped, for at most 10 s.
	skipped := 0
	for end := time.Now().Add(10 * time.Second); skipped == 0 && time.Now().Before(end); {
		n := cb.n
		s.sample(ctx, time.Now())
		smp := s.series[len(s.series)-1]
		if len(smp.TenantBlksRead) <= k || smp.TenantBlksRead[k] < 0 {
			t.Fatalf("round without the tenant's blocks: %v", smp.TenantBlksRead)
		}
		if cb.n == n {
			skipped++
		}
		time.Sleep(50 * time.Millisecond)
	}
	if skipped == 0 {
		t.Errorf("every idle round asked for the blocks")
	}
	before := s.series[len(s.series)-1]
	b0 := before.TenantBlksRead[k] + before.TenantBlksHit[k]
	if _, err := c.Exec(ctx, "SELECT count(*) FROM x"); err != nil {
		t.Fatal(err)
	}
	// The session flushes its counts within a second, running to do so.
	var b1 int64
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && b1 <= b0; {
		time.Sleep(300 * time.Millisecond)
		s.sample(ctx, time.Now())
		smp := s.series[len(s.series)-1]
		b1 = smp.TenantBlksRead[k] + smp.TenantBlksHit[k]
	}
	if b1 < b0+80 { // the table is about 90 blocks
		t.Errorf("tenant's blocks %d before its scan, %d after", b0, b1)
	}
	if errs := s.errs.list(""); len(errs) > 0 {
		t.Errorf("sampling errors: %v", errs)
	}
}
