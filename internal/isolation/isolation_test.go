package isolation

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// place puts two tenants on real servers with model m.
func place(t *testing.T, m tenancy.Model) []tenancy.Placement {
	t.Helper()
	var insts []*provider.Instance
	for range m.Instances(2) {
		insts = append(insts, pgtest.Start(t))
	}
	ps, err := m.Place(context.Background(), insts, tenancy.TenantNames(2))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// runAudit runs the audit from t01 against t02 and checks it left nothing
// behind on t02's server: no canary table, no large object, no session
// of the audit's.
func runAudit(t *testing.T, m tenancy.Model) map[string]Finding {
	t.Helper()
	ps := place(t, m)
	fs, err := Audit(context.Background(), m, ps[0], ps[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != len(probes) {
		t.Errorf("%d findings for %d probes", len(fs), len(probes))
	}
	got := map[string]Finding{}
	for _, f := range fs {
		if f.Outcome != Denied && f.Outcome != Visible && f.Outcome != Possible || f.Evidence == "" {
			t.Errorf("probe %s: outcome %q, evidence %q", f.Probe, f.Outcome, f.Evidence)
		}
		t.Logf("%s: %s: %s", f.Probe, f.Outcome, f.Evidence)
		got[f.Probe] = f
	}
	admin := pgtest.Connect(t, ps[1].Instance, ps[1].Database)
	var tables, objects, sessions int
	// A closed session's backend exits a moment after the client left.
	for try := 0; try < 20; try++ {
		err = admin.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM pg_class WHERE relname LIKE 'tenantbench_%'),
			(SELECT count(*) FROM pg_largeobject_metadata),
			(SELECT count(*) FROM pg_stat_activity WHERE usename IN ('t01', 't02'))`).Scan(&tables, &objects, &sessions)
		if err != nil {
			t.Fatal(err)
		}
		if sessions == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if tables+objects+sessions != 0 {
		t.Errorf("left behind: %d tables, %d large objects, %d tenant sessions", tables, objects, sessions)
	}
	return got
}

// want checks the outcome of each named probe.
func want(t *testing.T, got map[string]Finding, outcomes map[string]Outcome) {
	t.Helper()
	for probe, o := range outcomes {
		f, ok := got[probe]
		if !ok {
			t.Errorf("no probe %q", probe)
			continue
		}
		if f.Outcome != o {
			t.Errorf("%s: %s (%s), want %s", probe, f.Outcome, f.Evidence, o)
		}
	}
}

// The reads of another tenant's data every model denies.
var reads = map[string]Outcome{
	"read: direct": Denied, "read: search_path": Denied, "read: view": Denied,
	"read: security definer function": Denied, "read: others' security definer functions": Denied,
	"read: large object": Denied, "read: COPY TO PROGRAM": Denied, "read: dblink": Denied,
	"sessions: terminate": Denied,
}

func TestSchemaAudit(t *testing.T) {
	got := runAudit(t, tenancy.Schema{})
	want(t, got, reads)
	want(t, got, map[string]Outcome{
		"metadata: table names": Visible, "metadata: row counts": Visible, "metadata: role names": Visible,
		"metadata: planner statistics": Denied, // pg_stats checks the column privilege
		"lock: LOCK TABLE":             Denied, "lock: row locks": Denied,
		// One database: an open snapshot holds back every tenant's vacuum.
		"vacuum: held back by a long transaction": Possible,
		"connections: exhaustion":                 Possible,
	})
	if ev := got["read: direct"].Evidence; !strings.HasPrefix(ev, "42501") {
		t.Errorf("direct read: %q, want permission denied (42501)", ev)
	}
}

func TestDatabaseAudit(t *testing.T) {
	got := runAudit(t, tenancy.Database{})
	want(t, got, reads)
	want(t, got, map[string]Outcome{
		"metadata: table names": Denied, "metadata: row counts": Denied, "metadata: planner statistics": Denied,
		"metadata: role names": Visible, // pg_roles is the server's
		"lock: LOCK TABLE":     Denied, "lock: row locks": Denied,
		// The horizon of a database's tables counts its own sessions only.
		"vacuum: held back by a long transaction": Denied,
		"connections: exhaustion":                 Possible,
	})
}

func TestSharedTableAudit(t *testing.T) {
	got := runAudit(t, tenancy.SharedTable{})
	want(t, got, reads)
	want(t, got, map[string]Outcome{
		"metadata: table names": Visible, "metadata: row counts": Visible, "metadata: role names": Visible,
		// pg_stats hides the rows of tables under row-level security.
		"metadata: planner statistics": Denied,
		// Any tenant that may change a shared table may lock it whole.
		"lock: LOCK TABLE":                        Possible,
		"lock: row locks":                         Denied, // row-level security: its own rows only
		"vacuum: held back by a long transaction": Possible,
		"connections: exhaustion":                 Possible,
	})
	if ev := got["read: direct"].Evidence; !strings.HasPrefix(ev, "0 of t02's") {
		t.Errorf("direct read: %q, want no row of t02's read", ev)
	}
}

func TestInstanceAudit(t *testing.T) {
	got := runAudit(t, tenancy.Instance{})
	for _, f := range got {
		if f.Outcome != Denied {
			t.Errorf("%s: %s (%s), want denied: each tenant has its own server", f.Probe, f.Outcome, f.Evidence)
		}
	}
}
