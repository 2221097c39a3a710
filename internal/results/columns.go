package results

import (
	"strings"

	"github.com/tenantbench/tenantbench/internal/metrics"
)

// Column is what one results.csv column means, declared once, here, for
// every reader: the report's tables and `compare` take its title, unit and
// direction from it, and results.csv's header is the list of names.
type Column struct {
	Name  string
	Title string
	Unit  string // "" for a count, an index or a label
	// Dir is which way the figure improves (HigherIsBetter or
	// LowerIsBetter), 0 for neither: a matrix dimension, a label, or a
	// figure no direction makes better (the workload phase's length).
	Dir metrics.Direction
	// Source is where the figure comes from: the paper and equation, or
	// what tenantbench measured; docs/results.md says it at length.
	Source string
}

// Figure says the column holds a number the report aggregates over
// repetitions, rather than a label of the run.
func (c Column) Figure() bool { return c.Unit != "" || c.Dir != 0 }

const (
	higher = metrics.HigherIsBetter
	lower  = metrics.LowerIsBetter
)

// resultColumns are results.csv's columns in order; the set_<key>
// columns of swept settings follow repetition (settingColumn), then the
// columns of list-valued interference params (interferenceColumn).
var resultColumns = []Column{
	{"run_id", "Run", "", 0, "the plan"},
	{"model", "Tenancy model", "", 0, "the plan (matrix dimension)"},
	{"tenants", "Tenants", "", 0, "the plan (matrix dimension)"},
	{"scale", "Scale", "", 0, "the plan (matrix dimension)"},
	{"clients", "Clients per tenant", "", 0, "the plan (matrix dimension)"},
	{"repetition", "Repetition", "", 0, "the plan"},
	{"status", "Status", "", 0, "the run: ok, failed or interrupted"},
	{"throughput_tps", "Throughput", "tx/s", higher, "the driver: committed transactions per second, summed over tenants"},
	{"latency_mean_ms", "Mean latency", "ms", lower, "the driver: macro-average of the tenants' means"},
	{"latency_p95_ms", "p95 latency", "ms", lower, "the driver: the worst tenant's 95th percentile"},
	{"latency_p99_ms", "p99 latency", "ms", lower, "the driver: the worst tenant's 99th percentile"},
	{"committed", "Committed transactions", "tx", higher, "the driver, summed over tenants after warmup"},
	{"failed", "Failed transactions", "tx", lower, "the driver, summed over tenants after warmup"},
	{"provision_s", "Provision", "s", lower, "the run: the longest tenant's time in the phase"},
	{"setup_s", "Setup", "s", lower, "the run: the longest tenant's time in the phase"},
	{"ingest_s", "Ingest", "s", lower, "the run: the longest tenant's time in the phase"},
	{"post_ingest_s", "Post-ingest", "s", lower, "the run: the longest tenant's time in the phase"},
	{"workload_s", "Workload phase", "s", 0, "the run: the longest tenant's time in the phase (set by workload.duration)"},
	{"tpm", "TPM", "tx/min", higher, "HammerDB's TPM (Matos and Pedreira 2025), from tenantbench's own counts"},
	{"nopm", "NOPM", "New-Orders/min", higher, "committed New-Orders per minute (Matos and Pedreira 2025; TPC-C tpmC)"},
	{"fairness_jain", "Fairness, Jain's index", "", higher, "Jain's index over the tenants' throughput (Jain et al. 1984)"},
	{"cpu_s", "CPU time of the system under test", "CPU-s", lower, "the monitor: the instances' cgroup CPU during the measured workload"},
	{"mem_peak_mb", "Peak memory", "MB", lower, "the monitor: the instances' peak memory during the measured workload"},
	{"e_tpx", "E_TpX, throughput efficiency", "tx per CPU-s", higher, "Erdelt and Rabl 2026, eq. 1"},
	{"e_lat", "E_Lat, latency efficiency", "1/s", higher, "Erdelt and Rabl 2026, eq. 2"},
	{"mem_footprint_per_tenant_mb", "Memory footprint per tenant", "MB", lower, "Oracle 2014, Table 2"},
	{"mem_marginal_per_tenant_mb", "Marginal memory per tenant", "MB", lower, "the monitor: memory during the workload minus before any tenant, over tenants"},
	{"ruc_usd_per_min", "Resource unit cost", "USD/min", lower, "Zhang et al. 2025, Table III prices"},
	{"p_score", "P-Score", "tx/s per USD/min", higher, "Zhang et al. 2025, eq. 1"},
	{"t_score", "T-Score", "tx/s per USD/min", higher, "Zhang et al. 2025, eq. 7"},
	{"e1_score", "E1-Score", "tx/s per USD", higher, "Zhang et al. 2025, eq. 2: TPS over the measured part's CPU, memory and IO cost, the limits in force integrated over time (limits.csv)"},
	{"e2_score", "E2-Score", "tx/s per node", higher, "Zhang et al. 2025, eq. 5: throughput gained per added replica over the scale, across the runs of a scale-out group"},
	{"power_at_size", "Power@Size", "", higher, "Erdelt and Rabl 2026, eq. 4 (TPC-H Power@Size)"},
	{"throughput_at_size", "Throughput@Size", "", higher, "Erdelt and Rabl 2026, eq. 3 (TPC-H Throughput@Size)"},
	{"e_cpu", "E_CPU", "queries x SF per CPU-s", higher, "Erdelt and Rabl 2026, eq. 5"},
	{"e_ram", "E_RAM", "queries x SF per GB", higher, "Erdelt and Rabl 2026, eq. 6"},
	{"host_speed", "Host speed (probe)", "", higher, "the speed probe before the run (probe.csv; its unit there)"},
	{"f_score_s", "F-Score", "s", lower, "Zhang et al. 2025, eq. 3: from each fault to its tenants' first commit (events.csv)"},
	{"r_score_s", "R-Score", "s", lower, "Zhang et al. 2025, eq. 4: from resumption until throughput is back (events.csv)"},
	{"host_cpu_idle_pct", "Host CPU idle", "%", 0, "/proc/stat idle + iowait over the workload phase (EDB 2026 reports it beside latency)"},
	{"cpu_background_pct", "CPU of background processes", "%", lower, "Oracle 2014, Table 5: the servers' background processes' CPU over the measured workload, share of the host's CPUs"},
	{"cpu_foreground_pct", "CPU of foreground processes", "%", 0, "Oracle 2014, Table 5: the tenants' backends' CPU over the measured workload, share of the host's CPUs"},
	{"cpu_servers_pct", "CPU of the servers", "%", 0, "the monitor: every server process's CPU over the measured workload, share of the host's CPUs (Oracle 2014, Table 5, without the kernel's part)"},
	{"mem_tenant_private_mb", "Private memory per tenant", "MB", lower, "the monitor: Pss_Anon of each tenant's own backends, the most over the measured workload, mean over the tenants"},
	{"sla_met_tenants", "Tenants that met their SLA", "tenants", higher, "workload.sla judged per tenant (tenants.csv sla_met)"},
	{"sla_met", "Every tenant met its SLA", "", 0, "workload.sla: true when every tenant with one met it"},
	{"driver_cpu_s_per_1000", "Driver CPU per 1000 transactions", "CPU-s", lower, "getrusage of tenantbench's process over the measured part, monitor included"},
	{"driver_cpu_share", "Driver share of the host's CPU", "", lower, "driver CPU over measured seconds x host CPUs; the report warns above 0.25"},
	{"interaction", "TPC-C interaction mode", "", 0, "workload.options.interaction: batched, statements or procedures (tpcc)"},
	{"storage", "Storage", "", 0, "the plan: sut.storage.kind, disk or tmpfs (matrix dimension)"},
	{"volume", "Volume", "", 0, "the plan: sut.storage.volume, shared or per-instance (matrix dimension)"},
	{"cpu_policy", "CPU placement", "", 0, "the plan: sut.resources.cpu_policy, none, pack or spread (matrix dimension)"},
	{"placement", "Client placement", "", 0, "the plan: the name of the run's sut.placement, empty without it (matrix dimension)"},
	{"replicas", "Replicas per server", "", 0, "the plan: sut.replicas (matrix dimension)"},
	{"lag_insert_ms", "Replication lag of inserts", "ms", lower, "the lag workload: from an insert's commit on the primary until a replica shows it, mean over the replicas (Zhang et al. 2025, section II-B)"},
	{"lag_update_ms", "Replication lag of updates", "ms", lower, "the lag workload: as lag_insert_ms, for updates"},
	{"lag_delete_ms", "Replication lag of deletes", "ms", lower, "the lag workload: as lag_insert_ms, for deletes"},
	{"c_score_ms", "C-Score", "ms", lower, "Zhang et al. 2025, eq. 6: the three lags' sum, over the replicas"},
	{"engine", "Engine", "", 0, "the plan: sut.engine, postgres or mariadb (matrix dimension)"},
	{"case", "Case", "", 0, "the plan: the run's entry of workload.cases, empty for none"},
	{"error", "Error", "", 0, "the run: why it failed or was cut"},
}

// settingColumn is the column of a swept sut.settings key.
func settingColumn(key string) Column {
	return Column{Name: "set_" + key, Title: key, Source: "the plan: sut.settings (matrix dimension)"}
}

// interferencePrefix starts the column of a list-valued interference
// param: the key itself, as the plan names it ("interference[0].load").
const interferencePrefix = "interference["

// interferenceColumn is the column of a list-valued interference param:
// the run's value, as written (a cpu load of 0: no noise).
func interferenceColumn(key string) Column {
	return Column{Name: key, Title: key, Source: "the plan: a list-valued interference param (matrix dimension)"}
}

// IsInterferenceColumn says name is the column of a list-valued
// interference param.
func IsInterferenceColumn(name string) bool { return strings.HasPrefix(name, interferencePrefix) }

// ColumnOf is the declaration of a results.csv column, false for a name
// results.csv does not have.
func ColumnOf(name string) (Column, bool) {
	if key, ok := strings.CutPrefix(name, "set_"); ok && key != "" {
		return settingColumn(key), true
	}
	if IsInterferenceColumn(name) {
		return interferenceColumn(name), true
	}
	for _, c := range resultColumns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// ResultColumns are the declarations of results.csv's columns without the
// swept settings, in order.
func ResultColumns() []Column { return append([]Column(nil), resultColumns...) }
