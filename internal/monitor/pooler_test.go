package monitor

import (
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pooler"
)

// poolWait: the growth of a database's wait over that of its
// transactions across the window, counted from the last round before it;
// a tenant sharing its database gets none.
func TestPoolWait(t *testing.T) {
	s := time.Second
	pool := func(at time.Duration, tenant string, alone bool, xacts int64, wait time.Duration) PoolSample {
		return PoolSample{T: at, Tenant: tenant, DBAlone: alone, PoolStat: pooler.PoolStat{DBXacts: xacts, DBWait: wait}}
	}
	is := &InstanceSeries{Pools: []PoolSample{
		pool(1*s, "t01", true, 10, 5*time.Millisecond),    // before the window
		pool(3*s, "t01", true, 110, 105*time.Millisecond), // in it
		pool(5*s, "t01", true, 210, 405*time.Millisecond), // the last in it
		pool(9*s, "t01", true, 999, time.Second),          // after it
		pool(3*s, "t02", true, 50, 100*time.Millisecond),  // no round before: from zero
		pool(4*s, "t03", false, 50, time.Second),          // shares its database
	}}
	got := map[string]float64{}
	is.poolWait(2*s, 6*s, got)
	if len(got) != 2 || got["t01"] != 2 || got["t02"] != 2 {
		t.Errorf("poolWait = %v, want t01 and t02 at 2 ms per transaction", got)
	}
}
