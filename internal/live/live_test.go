package live

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestCheckAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:9464":  "",
		"[::1]:9464":      "",
		"0.0.0.0:9464":    "",
		"localhost:9464":  "",
		":9464":           "names no host",
		"127.0.0.1":       "not host:port",
		"127.0.0.1:0":     "from 1 to 65535",
		"127.0.0.1:http":  "from 1 to 65535",
		"127.0.0.1:70000": "from 1 to 65535",
	} {
		err := CheckAddr(addr)
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckAddr(%q) = %v, want nil", addr, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("CheckAddr(%q) = %v, want %q", addr, err, want)
		}
	}
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// fill gives m a run in its workload phase with every kind of figure.
func fill(m *Metrics) {
	m.Planned(2)
	m.BeginRun(Run{ID: "001", Case: "c", Model: "schema", Engine: "postgres", Workload: "tpcb"})
	m.Phase("workload")
	m.Begin(time.Now(), time.Hour, []string{"t01", "t02"}, []string{"tpcb"})
	counts := make([]int64, len(Bounds)+1)
	counts[3] = 5 // 1 ms
	m.Committed(1, 0, counts, 4000)
	m.Failed(1, 0, "40", 2)
	m.Instance("shared", 1.5, 64<<20, "cgroup v2", "cgroup v2")
	m.Instance("other", -1, -1, "proc", "proc") // not measured: absent
}

// TestServe: a scrape over HTTP shows the run, its phase, the tenants'
// series and the measured instance only; Close frees the port.
func TestServe(t *testing.T) {
	addr := freeAddr(t)
	m := New()
	s, err := Listen(addr, m)
	if err != nil {
		t.Fatal(err)
	}
	fill(m)
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	for _, want := range []string{
		`tenantbench_run_info{case="c",engine="postgres",model="schema",run="001",workload="tpcb"} 1`,
		`tenantbench_run_phase{phase="workload",run="001"} 1`,
		`tenantbench_workload_warmup{run="001"} 1`,
		`tenantbench_runs_planned 2`,
		`tenantbench_transactions_committed_total{run="001",tenant="t02",txn="tpcb"} 5`,
		`tenantbench_transactions_committed_total{run="001",tenant="t01",txn="tpcb"} 0`,
		`tenantbench_transaction_latency_seconds_bucket{run="001",tenant="t02",txn="tpcb",le="0.0005"} 0`,
		`tenantbench_transaction_latency_seconds_bucket{run="001",tenant="t02",txn="tpcb",le="0.001"} 5`,
		`tenantbench_transaction_latency_seconds_sum{run="001",tenant="t02",txn="tpcb"} 0.004`,
		`tenantbench_transactions_failed_total{class="40",run="001",tenant="t02",txn="tpcb"} 2`,
		`tenantbench_instance_cpu_seconds_total{instance="shared",run="001",source="cgroup v2"} 1.5`,
		`tenantbench_instance_memory_bytes{instance="shared",run="001",source="cgroup v2"} 6.7108864e+07`,
		`process_cpu_seconds_total`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %s", want)
		}
	}
	if strings.Contains(body, `instance="other"`) {
		t.Errorf("an instance not measured has series:\n%s", body)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port is still taken after Close: %v", err)
	}
	ln.Close()
}

// TestBusy: a port taken is refused at Listen.
func TestBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if s, err := Listen(ln.Addr().String(), New()); err == nil {
		s.Close()
		t.Fatal("Listen on a busy port succeeded")
	}
}

// TestNewRunForgets: a new run's metrics hold none of the previous run's
// tenants or instances.
func TestNewRunForgets(t *testing.T) {
	m := New()
	fill(m)
	m.EndRun("ok")
	m.BeginRun(Run{ID: "002"})
	for _, name := range familyNames(t, m) {
		if strings.HasPrefix(name, "tenantbench_transaction") || strings.HasPrefix(name, "tenantbench_instance") {
			t.Errorf("run 002 still shows %s", name)
		}
	}
}

// familyNames are the names of the metric families m gives, a
// histogram's as its series are named.
func familyNames(t *testing.T, m *Metrics) []string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fams {
		if f.GetType() == dto.MetricType_HISTOGRAM {
			out = append(out, f.GetName()+"_bucket", f.GetName()+"_sum", f.GetName()+"_count")
			continue
		}
		out = append(out, f.GetName())
	}
	return out
}

// TestDashboard: every tenantbench metric the Grafana dashboard queries
// is one the metrics give.
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile("../../docs/grafana/tenantbench.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	m := New()
	fill(m)
	m.EndRun("ok")
	m.Phase("workload") // as if the next run were in it
	known := map[string]bool{}
	for _, n := range familyNames(t, m) {
		known[n] = true
	}
	name := regexp.MustCompile(`tenantbench_[a-z_]+`)
	used := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				used++
				if !known[n] {
					t.Errorf("panel %q queries %s, which tenantbench does not give", p.Title, n)
				}
			}
		}
	}
	if used == 0 {
		t.Error("the dashboard queries no tenantbench metric")
	}
}
