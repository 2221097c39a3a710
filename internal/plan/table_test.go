package plan

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteTable(t *testing.T) {
	p := mustBuild(t, `
name: demo
repeat: 2
sut: {settings: {shared_buffers: [128MB, 1GB], fsync: "off"}}
tenancy: {model: [schema, instance], tenants: 4}
workload: {name: tpcb, clients: 8, duration: 30s, warmup: 5s}
`)
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	// With repeat the runs are interleaved by default: a round of every
	// point, then the next in the reverse order.
	want := `experiment demo: 8 runs, workload time 4m40s (8 x (warmup 5s + duration 30s), without provisioning and loading)
order: interleaved (the default with repeat 2): 2 rounds, each runs every one of the 4 points once, in matrix order, every second round reversed; the rep column is the round
run  model     tenants  scale  clients  provision  shared_buffers  rep
001  schema    4        1      8        load       128MB           1
002  schema    4        1      8        load       1GB             1
003  instance  4        1      8        clone      128MB           1
004  instance  4        1      8        clone      1GB             1
005  instance  4        1      8        clone      1GB             2
006  instance  4        1      8        clone      128MB           2
007  schema    4        1      8        load       1GB             2
008  schema    4        1      8        load       128MB           2
data: every run starts its own servers and loads its data (20 tenant loads in 8 runs, 12 by copy); the interleaved order forces 0 reload(s)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestWriteTableStreamsEnd: when the workload's clients stop after their
// work (TPC-H streams), the workload time is printed as an upper bound.
func TestWriteTableStreamsEnd(t *testing.T) {
	p := mustBuild(t, minimal)
	p.StreamsEnd = true
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "experiment t: 1 run, workload time up to 1m (1 x (warmup 0s + duration up to 1m), without provisioning and loading; " +
		"a run ends sooner when its query streams have run their queries)\n"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got:\n%s\nwant it to start with:\n%s", b.String(), want)
	}
}

func TestWriteTableOneRun(t *testing.T) {
	var b bytes.Buffer
	if err := mustBuild(t, minimal).WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `experiment t: 1 run, workload time 1m (1 x (warmup 0s + duration 1m), without provisioning and loading)
run  model   tenants  scale  clients  rep
001  schema  1        1      1        1
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// The table of a plan with cases shows each case and the provisioning the
// plan settled per run.
func TestWriteTableCases(t *testing.T) {
	p := mustBuild(t, `name: c
repeat: 2
sut:
  settings: {shared_buffers: 128MB, work_mem: 4MB}
tenancy: {model: [schema, database], tenants: 2}
workload:
  name: tpcc
  clients: 2
  cases:
    - name: small
      settings: {max_connections: 100, shared_buffers: 256MB}
      scale: 5
      clients: 5
    - name: aw
      scale: 2
      options: {all_warehouses: true}
`)
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "run  case   model     tenants  scale  clients  provision  max_connections  shared_buffers  rep\n"+
		"001  small  schema    2        5      5        load       100              256MB           1\n") ||
		!strings.Contains(b.String(), "002  small  database  2        5      5        clone") {
		t.Errorf("plan table:\n%s", b.String())
	}
}

// Under a pattern the table shows the first tenants' targets per slot.
func TestWriteTablePattern(t *testing.T) {
	p := mustBuild(t, "name: t\ntenancy: {tenants: 2}\nworkload: {name: tpcb, pattern: {name: [single-peak, large-spike], tau: 110}}\n")
	var b strings.Builder
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "t01: [11, 88, 11]") || !strings.Contains(b.String(), "pattern") {
		t.Errorf("plan table does not show the targets:\n%s", b.String())
	}
}
