package spec

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Limits of a spec. They are constants, not settings: they keep a typo
// (clients: 100000) from starting something that cannot finish.
const (
	// MaxTenants bounds tenancy.tenants; whether a machine holds that
	// many (ports, connections, memory) is the plan's check.
	MaxTenants = 10000
	MaxClients = 10000 // per tenant; beyond this the driver, not the DBMS, is measured
	MaxRuns    = 10000 // runs in one plan
	// MinCPUs is the least CPU share a CFS quota can express usefully
	// (1 ms per 100 ms period).
	MinCPUs     = 0.01
	MinProgress = Duration(time.Second)
	maxNameLen  = 100
)

// choice is a closed set of words a key accepts, with the words that are
// planned but not supported yet, so that the message can say so.
type choice struct {
	supported, planned []string
}

func (c choice) has(s string) bool {
	for _, v := range c.supported {
		if v == s {
			return true
		}
	}
	return false
}

// allowed is the rule, naming the nearest word when v looks like a typo
// of one.
func (c choice) allowed(v string) string {
	msg := "must be " + strings.Join(c.supported, " or ")
	if len(c.supported) > 2 {
		msg = "must be one of " + strings.Join(c.supported, ", ")
	}
	if len(c.planned) == 1 {
		msg += " (" + c.planned[0] + " is planned but not supported yet)"
	} else if len(c.planned) > 1 {
		msg += " (" + strings.Join(c.planned, " and ") + " are planned but not supported yet)"
	}
	return msg + Suggest(v, c.supported)
}

func transports() choice {
	return choice{[]string{"tcp", "unix"}, nil}
}

// The values of workload.provision.
const (
	ProvisionLoad  = "load"
	ProvisionClone = "clone"
)

func provisions() choice { return choice{[]string{ProvisionLoad, ProvisionClone}, nil} }

func isolations() choice { return choice{[]string{IsolationOff, IsolationAudit}, nil} }

// experimentName is usable as a directory name on every file system.
var experimentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// serverVersion is a major version ("16") or a full one ("16.4"); it ends
// up in paths, so nothing else may pass.
var serverVersion = regexp.MustCompile(`^[0-9]{1,3}(\.[0-9]{1,3}){0,2}$`)

// The element rules return what is allowed, or "" when v is fine. Parse
// applies them too, to lists it could only read in part.

// modelRule takes any name: the tenancy models are registered apart from
// the spec, and the plan checks the name against them.
func modelRule(string) string { return "" }

func tenantsRule(v int) string {
	if v < 1 || v > MaxTenants {
		return fmt.Sprintf("must be 1..%d", MaxTenants)
	}
	return ""
}

func clientsRule(v int) string {
	if v < 1 || v > MaxClients {
		return fmt.Sprintf("must be 1..%d (connections per tenant)", MaxClients)
	}
	return ""
}

func scaleRule(v float64) string {
	if !(v > 0) || math.IsInf(v, 0) {
		return "must be a number greater than 0"
	}
	return ""
}

// engineRule takes any name but none: the engines are registered apart
// from the spec, and the plan checks the name against them.
func engineRule(v string) string {
	if v == "" {
		return "must name an engine"
	}
	return ""
}

func settingValueRule(v string) string {
	switch {
	case v == "":
		return "must not be empty; remove the key to keep the server's default"
	case strings.ContainsAny(v, "\n\r\x00"):
		return "must be on one line, without NUL characters"
	}
	return ""
}

// Validate returns every problem of s at once, each with its YAML path,
// the value and what is allowed. It never changes s. It checks the spec
// as it stands: call it after defaults are filled (Parse and Load do both).
// workload.name and workload.options are the workload registry's to check.
func Validate(s *Spec) []Problem {
	v := &validator{}
	v.top(s)
	v.order(s)
	v.sut(&s.SUT)
	v.resources(s)
	v.elastic(s)
	v.placement(&s.SUT)
	v.replicas(s)
	v.cost(s.Cost)
	oneOf(v, "tenancy.model", s.Tenancy.Model, modelRule)
	oneOf(v, "tenancy.tenants", s.Tenancy.Tenants, tenantsRule)
	if s.Tenancy.Isolation != "" && !isolations().has(s.Tenancy.Isolation) {
		v.add("tenancy.isolation", shown(s.Tenancy.Isolation), isolations().allowed(s.Tenancy.Isolation)+
			" (audit: the check phase tries, from one tenant's role, to reach another tenant; see runs/<id>/isolation.csv)")
	}
	oneOf(v, "workload.scale", s.Workload.Scale, scaleRule)
	oneOf(v, "workload.clients", s.Workload.Clients, clientsRule)
	if !provisions().has(s.Workload.Provision) {
		v.add("workload.provision", shown(s.Workload.Provision), provisions().allowed(s.Workload.Provision)+
			" (clone: tenants of the database and instance models get a copy of the first tenant's data)")
	}
	v.cases(s)
	v.casePicks(s)
	if s.Workload.Duration <= 0 {
		v.add("workload.duration", s.Workload.Duration.String(), "must be longer than 0s")
	}
	if s.Workload.Warmup < 0 {
		v.add("workload.warmup", s.Workload.Warmup.String(), "must be 0s or longer")
	}
	v.load(s)
	v.classes(s)
	v.slaRule(&s.Workload, "workload.sla", s.Workload.SLA)
	v.interferenceValues(s)
	v.size(s)
	return v.problems
}

type validator struct{ problems []Problem }

func (v *validator) add(path, value, allowed string) {
	v.problems = append(v.problems, Problem{Path: path, Value: value, Allowed: allowed})
}

func (v *validator) top(s *Spec) {
	switch {
	case s.Name == "":
		v.add("name", "", "required: the experiment's name, used for its results directory "+
			"(letters, digits, '-', '_', '.')")
	case len(s.Name) > maxNameLen || !experimentName.MatchString(s.Name):
		v.add("name", shown(s.Name), fmt.Sprintf("must be usable as a directory name: letters, digits, "+
			"'-', '_' and '.', starting with a letter or digit, at most %d characters", maxNameLen))
	}
	if s.Repeat < 1 {
		v.add("repeat", strconv.Itoa(s.Repeat), "must be at least 1")
	}
	if s.Progress < MinProgress {
		v.add("progress", s.Progress.String(), "must be at least "+MinProgress.String())
	}
}

func (v *validator) sut(s *SUT) {
	v.clientPlacements(s)
	v.versions(s)
	oneOf(v, "sut.engine", s.Engine, engineRule)
	v.engineKeyed("sut.settings", s.Engine, sortedKeys(s.Settings), sortedKeys(s.EngineSettings))
	if len(s.EngineSettings) == 0 {
		for _, key := range sortedKeys(s.Settings) {
			oneOf(v, join("sut.settings", key), s.Settings[key], settingValueRule)
		}
	}
	for _, e := range sortedKeys(s.EngineSettings) {
		for _, key := range sortedKeys(s.EngineSettings[e]) {
			oneOf(v, s.SettingPath(e, key), s.EngineSettings[e][key], settingValueRule)
		}
	}
	v.servers(s.Servers)
	v.kubernetes(s.Kubernetes)
}

// namespaceName is a Kubernetes namespace's name (an RFC 1123 label).
var namespaceName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// storageClassName is a storage class's name (an RFC 1123 subdomain);
// labelKey and labelValue are a label's key (an optional subdomain
// prefix and a name) and value, as Kubernetes takes them.
var (
	storageClassName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
	labelKey         = regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	labelValue       = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
)

// NamespaceOK says a namespace's name is one Kubernetes takes ("" is
// the default namespace).
func NamespaceOK(ns string) bool { return ns == "" || namespaceName.MatchString(ns) }

// kubernetes checks sut.kubernetes as written; whether the provider takes
// it and whether the cluster answers is the plan's to check.
func (v *validator) kubernetes(k *Kubernetes) {
	if k == nil {
		return
	}
	switch {
	case k.KubeconfigEnv == "":
		v.add("sut.kubernetes.kubeconfig_env", "", "required: the environment variable holding the kubeconfig file's path "+
			"(no credential goes in the spec)")
	case !envName.MatchString(k.KubeconfigEnv):
		v.add("sut.kubernetes.kubeconfig_env", shown(k.KubeconfigEnv), "must be an environment variable's name (letters, digits, '_', not starting with a digit)")
	}
	if st := k.Storage; st != nil {
		switch {
		case st.Class == "":
			v.add("sut.kubernetes.storage.class", "", "required: the cluster's storage class each server's PersistentVolumeClaim is made in")
		case !storageClassName.MatchString(st.Class):
			v.add("sut.kubernetes.storage.class", shown(st.Class), "must be a storage class's name: lower-case letters, digits, '-' and '.', at most 253 characters")
		}
		if st.Size <= 0 {
			v.add("sut.kubernetes.storage.size", st.Size.String(), "must be more than 0: what each server's claim asks for")
		}
	}
	if k.Access != "" && !accesses().has(k.Access) {
		v.add("sut.kubernetes.access", shown(k.Access), accesses().allowed(k.Access))
	}
	if !NamespaceOK(k.Namespace) {
		v.add("sut.kubernetes.namespace", shown(k.Namespace), "must be a namespace's name: lower-case letters, digits and '-', "+
			"starting and ending with a letter or digit, at most 63 characters (empty: default)")
	}
}

// serverName is what a server's name may be: it names the server in the
// plan, the results and the run's instances.
var serverName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,30}$`)

// envName is an environment variable's name as a shell writes it.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// servers checks sut.servers as written; whether the provider takes them,
// whether the variables are set and the servers reachable is the plan's
// to check.
func (v *validator) servers(ss []Server) {
	seen := map[string]bool{}
	for i, sv := range ss {
		p := index("sut.servers", i)
		switch {
		case sv.Name == "":
			v.add(join(p, "name"), "", "required: a name for the server (lower-case letters, digits, '-', '_')")
		case !serverName.MatchString(sv.Name):
			v.add(join(p, "name"), shown(sv.Name), "must be lower-case letters, digits, '-' and '_', starting with a letter, at most 31 characters")
		case seen[sv.Name]:
			v.add(join(p, "name"), shown(sv.Name), "must be unique among sut.servers")
		}
		seen[sv.Name] = true
		switch {
		case sv.DSNEnv == "":
			v.add(join(p, "dsn_env"), "", "required: the environment variable holding the server's admin connection string "+
				"(no secret goes in the spec)")
		case !envName.MatchString(sv.DSNEnv):
			v.add(join(p, "dsn_env"), shown(sv.DSNEnv), "must be an environment variable's name (letters, digits, '_', not starting with a digit)")
		}
	}
}

// cost checks the unit prices: free is allowed (the cost columns are then
// empty), a negative or infinite price is not.
func (v *validator) cost(c Cost) {
	for _, p := range []struct {
		key string
		x   float64
	}{{"cost.cpu_vcore_hour", c.CPUVCoreHour}, {"cost.memory_gb_hour", c.MemoryGBHour}} {
		if !(p.x >= 0) || math.IsInf(p.x, 0) {
			v.add(p.key, fmt.Sprint(p.x), "must be a price in dollars per unit and hour, 0 or more (Zhang et al. 2025, Table III by default)")
		}
	}
}

func (v *validator) resources(s *Spec) {
	r := s.SUT.Resources
	if !(r.CPUs >= 0) || math.IsInf(r.CPUs, 0) {
		v.add("sut.resources.cpus", fmt.Sprint(r.CPUs), "must be a number of CPUs, 0 or more (0 = unlimited)")
	}
	if r.Memory < 0 {
		// The least memory a server runs with is the engine's (the plan
		// checks it).
		v.add("sut.resources.memory", r.Memory.String(), "must be 0 (unlimited) or a size")
	}
}

// oneOf checks a list dimension: not empty, each element by rule, no value
// twice (a repeated value would run the same matrix point twice under two
// IDs; that is what repeat is for).
func oneOf[T comparable](v *validator, path string, list []T, rule func(T) string) {
	if len(list) == 0 {
		v.add(path, "", "must not be an empty list: give at least one value")
		return
	}
	first := map[T]int{}
	for i, e := range list {
		ep := index(path, i)
		if msg := rule(e); msg != "" {
			v.add(ep, shown(fmt.Sprint(e)), msg)
			continue
		}
		if j, dup := first[e]; dup {
			v.add(ep, shown(fmt.Sprint(e)), fmt.Sprintf("already given as %s; each value of a list must be distinct (use repeat to run a point again)", index(path, j)))
			continue
		}
		first[e] = i
	}
}

// size refuses a plan of more than MaxRuns runs, naming its factors.
func (v *validator) size(s *Spec) {
	type factor struct {
		name string
		n    int
	}
	// Each case has its own replicas (casepick.go): the cases and the
	// replicas make one factor, the sum of each case's replica counts.
	caseRuns := 0
	for _, c := range s.Workload.cases() {
		caseRuns += len(c.replicasOr(s.SUT.Replicas))
	}
	factors := []factor{
		{"cases x replicas", caseRuns},
		{"engine", len(s.SUT.Engine)},
		{"model", len(s.Tenancy.Model)},
		{"tenants", len(s.Tenancy.Tenants)},
		{"scale", len(s.Workload.Scale)},
		{"clients", len(s.Workload.Clients)},
		{"rate", len(s.Workload.rates())},
		{"pattern", len(s.Workload.patterns())},
		{"storage kind", len(s.SUT.Storage.Kind)},
		{"storage volume", len(s.SUT.Storage.Volume)},
		{"cpu_policy", len(s.SUT.Resources.CPUPolicy)},
		{"placement", len(s.SUT.Placements())},
	}
	if len(s.SUT.Engine) == 1 {
		set := s.SUT.SettingsOf(s.SUT.Engine[0])
		for _, k := range sortedKeys(set) {
			factors = append(factors, factor{k, len(set[k])})
		}
	} else if len(s.SUT.Engine) > 1 {
		// Each engine's settings multiply its own runs only: the
		// engines' mean number of settings points, rounded up, bounds
		// the total no lower than it is.
		sum := 0
		for _, e := range s.SUT.Engine {
			sum += s.SUT.settingsRuns(e)
		}
		if n := (sum + len(s.SUT.Engine) - 1) / len(s.SUT.Engine); n > 1 {
			factors = append(factors, factor{"settings per engine", n})
		}
	}
	for _, d := range s.interferenceDims() {
		factors = append(factors, factor{d.key, len(d.values)})
	}
	factors = append(factors, factor{"repeat", s.Repeat})
	// float64 cannot overflow here (repeat may be huge) and is exact for
	// any count near the limit.
	total := 1.0
	var parts []string
	for _, f := range factors {
		if f.n < 1 {
			return // an empty list or a bad repeat, reported already
		}
		total *= float64(f.n)
		if f.n > 1 {
			parts = append(parts, fmt.Sprintf("%s %d", f.name, f.n))
		}
	}
	if total > MaxRuns {
		v.add("(plan)", fmt.Sprintf("%.0f runs", total), fmt.Sprintf("at most %d runs are allowed (%s): shorten a list or lower repeat",
			MaxRuns, strings.Join(parts, " x ")))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
