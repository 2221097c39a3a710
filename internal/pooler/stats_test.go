package pooler

import (
	"testing"
	"time"
)

// poolStats joins each pool with its database's totals, reads maxwait's
// two columns as one duration and leaves the admin console's own pool
// out; columns a version lacks read as zero.
func TestPoolStats(t *testing.T) {
	pools := []map[string]string{
		{"database": "t01", "user": "t01", "cl_active": "2", "cl_waiting": "1", "sv_active": "1", "sv_idle": "0", "maxwait": "1", "maxwait_us": "250000"},
		{"database": "pgbouncer", "user": statsUser, "cl_active": "1"},
		{"database": "shared", "user": "t02", "cl_active": "3"},
	}
	stats := []map[string]string{
		{"database": "t01", "total_xact_count": "40", "total_query_count": "90", "total_wait_time": "1500"},
		{"database": "pgbouncer", "total_xact_count": "7"},
	}
	got := poolStats(pools, stats)
	if len(got) != 2 {
		t.Fatalf("got %d pools, want 2: %+v", len(got), got)
	}
	want := PoolStat{Database: "t01", User: "t01", ClActive: 2, ClWaiting: 1, SvActive: 1,
		MaxWait: 1250 * time.Millisecond, DBXacts: 40, DBQueries: 90, DBWait: 1500 * time.Microsecond}
	if got[0] != want {
		t.Errorf("pool t01 = %+v, want %+v", got[0], want)
	}
	if g := got[1]; g.User != "t02" || g.ClActive != 3 || g.DBXacts != 0 {
		t.Errorf("pool of t02 = %+v", g)
	}
}
