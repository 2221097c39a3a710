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

// setGuards sets every guard on the tenants of ps, each planned one
// connection, and returns the guards' names.
func setGuards(t *testing.T, ps []tenancy.Placement) []string {
	t.Helper()
	all := tenancy.GuardNames()
	if err := tenancy.SetGuards(context.Background(), all, ps, func(string) int { return 1 }); err != nil {
		t.Fatal(err)
	}
	return all
}

// runAudit runs the audit from t01 against t02 of ps, with guards set,
// and checks it left nothing behind on t02's server: no canary table, no
// large object, no session of the audit's.
func runAudit(t *testing.T, m tenancy.Model, ps []tenancy.Placement, guards []string) map[string]Finding {
	t.Helper()
	fs, err := Audit(context.Background(), m, ps[0], ps[1], guards)
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

// guarded are the outcomes the guards change, in every model where two
// tenants share a server: connection slots are bounded, the statistics
// views and functions are refused.
var guarded = map[string]Outcome{"connections: exhaustion": Denied, "metadata: activity statistics": Denied}

// wantEvidence checks that probe's evidence holds each of parts.
func wantEvidence(t *testing.T, got map[string]Finding, probe string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(got[probe].Evidence, p) {
			t.Errorf("%s: evidence %q does not say %q", probe, got[probe].Evidence, p)
		}
	}
}

func TestSchemaAudit(t *testing.T) {
	m := tenancy.Schema{}
	ps := place(t, m)
	got := runAudit(t, m, ps, nil)
	want(t, got, reads)
	want(t, got, map[string]Outcome{
		"metadata: table names": Visible, "metadata: row counts": Visible, "metadata: role names": Visible,
		"metadata: activity statistics": Visible,
		"metadata: planner statistics":  Denied, // pg_stats checks the column privilege
		"metadata: planner estimates":   Denied,
		"lock: LOCK TABLE":              Denied, "lock: row locks": Denied,
		// One database: an open snapshot holds back every tenant's vacuum.
		"vacuum: held back by a long transaction": Possible,
		"connections: exhaustion":                 Possible,
	})
	if ev := got["read: direct"].Evidence; !strings.HasPrefix(ev, "42501") {
		t.Errorf("direct read: %q, want permission denied (42501)", ev)
	}

	setGuards(t, ps) // twice, as on a kept run audited again: no error
	got = runAudit(t, m, ps, setGuards(t, ps))
	want(t, got, reads)
	want(t, got, guarded)
	// pg_class stays readable: names and reltuples.
	want(t, got, map[string]Outcome{"metadata: table names": Visible, "metadata: row counts": Visible,
		"vacuum: held back by a long transaction": Possible})
	wantEvidence(t, got, "connections: exhaustion", "rolconnlimit 3", "guard connection_limit", "add up to 6 of")
	wantEvidence(t, got, "metadata: activity statistics", "42501", "guard hide_statistics")
	wantEvidence(t, got, "metadata: row counts", "pg_class.reltuples 3", "guard hide_statistics", "no guard hides pg_class")
	wantEvidence(t, got, "vacuum: held back by a long transaction", "guard idle_transaction_timeout")
}

func TestDatabaseAudit(t *testing.T) {
	m := tenancy.Database{}
	ps := place(t, m)
	got := runAudit(t, m, ps, nil)
	want(t, got, reads)
	want(t, got, map[string]Outcome{
		"metadata: table names": Denied, "metadata: row counts": Denied, "metadata: planner statistics": Denied,
		"metadata: planner estimates": Denied,
		"metadata: role names":        Visible, // pg_roles is the server's
		// pg_stat_database is the server's too.
		"metadata: activity statistics": Visible,
		"lock: LOCK TABLE":              Denied, "lock: row locks": Denied,
		// The horizon of a database's tables counts its own sessions only.
		"vacuum: held back by a long transaction": Denied,
		"connections: exhaustion":                 Possible,
	})
	wantEvidence(t, got, "metadata: activity statistics", "pg_stat_database lists t02's database")

	got = runAudit(t, m, ps, setGuards(t, ps))
	want(t, got, reads)
	want(t, got, guarded)
	wantEvidence(t, got, "metadata: activity statistics", "pg_stat_database: 42501", "guard hide_statistics")
}

func TestSharedTableAudit(t *testing.T) {
	m := tenancy.SharedTable{}
	ps := place(t, m)
	got := runAudit(t, m, ps, nil)
	want(t, got, reads)
	want(t, got, map[string]Outcome{
		"metadata: table names": Visible, "metadata: row counts": Visible, "metadata: role names": Visible,
		"metadata: activity statistics": Visible,
		// pg_stats hides the rows of tables under row-level security,
		// but the planner estimates from them.
		"metadata: planner statistics": Denied, "metadata: planner estimates": Visible,
		// Any tenant that may change a shared table may lock it whole.
		"lock: LOCK TABLE":                        Possible,
		"lock: row locks":                         Denied, // row-level security: its own rows only
		"vacuum: held back by a long transaction": Possible,
		"connections: exhaustion":                 Possible,
	})
	if ev := got["read: direct"].Evidence; !strings.HasPrefix(ev, "0 of t02's") {
		t.Errorf("direct read: %q, want no row of t02's read", ev)
	}
	wantEvidence(t, got, "lock: LOCK TABLE", "57014")

	got = runAudit(t, m, ps, setGuards(t, ps))
	want(t, got, reads)
	want(t, got, guarded)
	// No guard prevents the lock: lock_timeout fails the victim's
	// statement after its wait instead of letting it wait.
	want(t, got, map[string]Outcome{"lock: LOCK TABLE": Possible, "metadata: planner statistics": Denied, "metadata: planner estimates": Visible})
	wantEvidence(t, got, "lock: LOCK TABLE", "55P03", "lock_timeout 2000ms (guard lock_timeout)", "the stall is not")
}

func TestInstanceAudit(t *testing.T) {
	m := tenancy.Instance{}
	ps := place(t, m)
	check := func(got map[string]Finding, guards []string) {
		for _, f := range got {
			if f.Outcome != Denied {
				t.Errorf("guards %v: %s: %s (%s), want denied: each tenant has its own server", guards, f.Probe, f.Outcome, f.Evidence)
			}
		}
	}
	check(runAudit(t, m, ps, nil), nil)
	guards := setGuards(t, ps)
	check(runAudit(t, m, ps, guards), guards)
}
