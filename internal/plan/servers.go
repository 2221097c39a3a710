package plan

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// serverCheckTimeout bounds the plan's look at each of the user's
// servers (sut.servers).
const serverCheckTimeout = 15 * time.Second

// checkServers checks sut.servers against the provider: a provider that
// places tenants on the user's servers (Factory.Servers) needs them, each
// with its variable set, reachable, and a role that may create roles and
// databases; it cannot set the servers' configuration or limit them; and
// every model must find as many servers as it needs. Any other provider
// takes none.
func checkServers(s *spec.Spec, regs Registries, engs engines) []spec.Problem {
	f, ok := regs.Providers[s.SUT.Provider]
	if !ok {
		return nil // checkSUT refused it
	}
	ss := s.SUT.Servers
	if !f.Servers {
		if len(ss) == 0 {
			return nil
		}
		var takers []string
		for _, name := range regs.Providers.Names() {
			if regs.Providers[name].Servers {
				takers = append(takers, name)
			}
		}
		return []spec.Problem{{Path: "sut.servers", Allowed: fmt.Sprintf("provider %s starts its own servers and takes no sut.servers "+
			"(the providers that place tenants on servers you run: %s)", f.Name, strings.Join(takers, ", "))}}
	}
	if len(ss) == 0 {
		return []spec.Problem{{Path: "sut.servers", Allowed: fmt.Sprintf("provider %s needs the servers to place tenants on: "+
			"a list of {name, dsn_env}, each variable holding a server's admin connection string", f.Name)}}
	}
	var out []spec.Problem
	if len(s.SUT.Engine) > 1 {
		return append(out, spec.Problem{Path: "sut.engine", Value: strings.Join(s.SUT.Engine, ", "), Allowed: fmt.Sprintf(
			"provider %s places tenants on the servers you run, each of one engine: list one engine", f.Name)})
	}
	eng := engs.first(s)
	if len(s.SUT.Settings)+len(s.SUT.EngineSettings) > 0 {
		out = append(out, spec.Problem{Path: "sut.settings", Allowed: fmt.Sprintf(
			"provider %s runs on servers you configure: tenantbench sets none of their settings; remove sut.settings", f.Name)})
	}
	if r := s.SUT.Resources; r.CPUs > 0 || r.Memory > 0 {
		out = append(out, spec.Problem{Path: "sut.resources", Allowed: fmt.Sprintf(
			"provider %s starts no server, so it cannot limit one: remove sut.resources", f.Name)})
	}
	most := 0
	for _, t := range s.Tenancy.Tenants {
		most = max(most, t)
	}
	for i, name := range s.Tenancy.Model {
		m, ok := regs.Models[name]
		if !ok || most < 1 || most > spec.MaxTenants {
			continue
		}
		if n := m.Instances(most); n > len(ss) {
			path := "tenancy.model"
			if len(s.Tenancy.Model) > 1 {
				path = spec.Index(path, i)
			}
			out = append(out, spec.Problem{Path: path, Value: name, Allowed: fmt.Sprintf(
				"model %s needs %d servers for %d tenants (one each), but sut.servers names %d: name more servers, or use fewer tenants",
				name, n, most, len(ss))})
		}
	}
	if f.CheckServer == nil {
		return out
	}
	for i, sv := range ss {
		if sv.Name == "" || sv.DSNEnv == "" {
			continue // the spec's check refused it
		}
		ctx, cancel := context.WithTimeout(context.Background(), serverCheckTimeout)
		msg := f.CheckServer(ctx, eng, provider.Server{Name: sv.Name, DSNEnv: sv.DSNEnv})
		cancel()
		if msg != "" {
			out = append(out, spec.Problem{Path: spec.Join(spec.Index("sut.servers", i), "dsn_env"), Value: sv.DSNEnv, Allowed: msg})
		}
	}
	return out
}

// servers are sut.servers for the plan, nil when the provider takes none.
func servers(s *spec.Spec, regs Registries) []provider.Server {
	if !regs.Providers[s.SUT.Provider].Servers {
		return nil
	}
	out := make([]provider.Server, len(s.SUT.Servers))
	for i, sv := range s.SUT.Servers {
		out[i] = provider.Server{Name: sv.Name, DSNEnv: sv.DSNEnv}
	}
	return out
}

// ServerOf is the user's server an instance of the plan is placed on,
// nil when the provider starts its own.
func (p *Plan) ServerOf(in Instance) *provider.Server {
	for i := range p.Servers {
		if p.Servers[i].Name == in.Server {
			sv := p.Servers[i]
			return &sv
		}
	}
	return nil
}

// writeServers lists, for servers the user runs, what each run creates on
// which server: every name begins with the run's id and a tag drawn when
// the run starts.
func (p *Plan) writeServers(w io.Writer, models tenancy.Models) error {
	if len(p.Servers) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nOn the servers you named (<tag>: drawn when the run starts; all of it is dropped at its end):\n")
	for _, r := range p.Runs {
		c, ok := models[r.Model].(tenancy.Creator)
		if !ok {
			continue
		}
		for _, in := range r.Instances {
			var parts []string
			byKind := map[string][]string{}
			var kinds []string
			for _, o := range c.Creates(tenancy.PlannedPrefix(r.ID), in.Tenants) {
				if byKind[o.Kind] == nil {
					kinds = append(kinds, o.Kind)
				}
				name := o.Name
				if o.Database != "" {
					name += " (in " + o.Database + ")"
				}
				byKind[o.Kind] = append(byKind[o.Kind], name)
			}
			for _, k := range kinds {
				parts = append(parts, k+"s "+strings.Join(byKind[k], ", "))
			}
			fmt.Fprintf(&b, "  run %s, server %s: %s\n", r.ID, in.Server, strings.Join(parts, "; "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
