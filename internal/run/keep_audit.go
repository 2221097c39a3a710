package run

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// KeptPlacements are the kept tenants of a results directory as
// placements, passwords read from its pgpass, in the order of tenants
// (the run's tenant names, which give each its index): what the isolation
// audit needs to act as each tenant, and as the superuser where the model
// asks for it (the shared tables' owner).
func KeptPlacements(dir string, kept []*Kept, eng engine.Engine, tenants []string) ([]tenancy.Placement, error) {
	b, err := os.ReadFile(filepath.Join(dir, "pgpass"))
	if err != nil {
		return nil, err
	}
	// port, database, user -> password
	pw := map[[3]string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := pgpassFields(line)
		if len(f) == 5 {
			pw[[3]string{f[1], f[2], f[3]}] = f[4]
		}
	}
	index := map[string]int{}
	for i, t := range tenants {
		index[t] = i
	}
	var out []tenancy.Placement
	for _, k := range kept {
		port := strconv.Itoa(k.Port)
		inst := &provider.Instance{Name: k.Name, Engine: eng, Host: k.host(), Port: k.Port, SocketDir: k.SocketDir}
		for key, p := range pw {
			if key[0] == port && key[1] == "*" {
				inst.User, inst.Password = key[2], p
			}
		}
		for _, t := range k.Tenants {
			p, ok := pw[[3]string{port, t.Database, t.Role}]
			if !ok {
				return nil, fmt.Errorf("no password for %s in %s", t.Tenant, filepath.Join(dir, "pgpass"))
			}
			i, ok := index[t.Tenant]
			if !ok {
				return nil, fmt.Errorf("%s: tenant %s is not in the plan's last run", KeptFile, t.Tenant)
			}
			out = append(out, tenancy.Placement{Tenant: t.Tenant, Index: i, Instance: inst, Database: t.Database, Role: t.Role, Password: p})
		}
	}
	// In the run's order, so that the audit's attacker is the first tenant.
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// pgpassFields splits a pgpass line at its unescaped colons and unescapes
// each field.
func pgpassFields(line string) []string {
	var out []string
	var f strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			i++
			f.WriteByte(line[i])
		case c == ':':
			out = append(out, f.String())
			f.Reset()
		default:
			f.WriteByte(c)
		}
	}
	return append(out, f.String())
}
