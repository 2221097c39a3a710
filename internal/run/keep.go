package run

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/results"
	"github.com/tenantbench/tenantbench/internal/tenancy"
)

// Kept is one server left up by --keep, with the tenants on it.
type Kept struct {
	provider.Record
	// Engine and Provider name what the server is and who stops it
	// (sut.engine and sut.provider of the run); empty in files written
	// before they were recorded, which were PostgreSQL's, kept locally.
	Engine   string       `json:"engine"`
	Provider string       `json:"provider"`
	Tenants  []KeptTenant `json:"tenants"`
	// Host is where clients reach the server: the namespace's address
	// behind sut.network's link; "" (files written before it) is
	// loopback.
	Host string `json:"host,omitempty"`
	// password is the superuser's; it goes to pgpass only.
	password string
	user     string
}

// KeptTenant says how to reach one tenant; its password is in pgpass.
type KeptTenant struct {
	Tenant   string `json:"tenant"`
	Database string `json:"database"`
	Role     string `json:"role"`
	password string
}

func keptOf(insts []*provider.Instance, ps []tenancy.Placement, workDir, engineName, providerName string) []*Kept {
	var out []*Kept
	for _, i := range insts {
		rec := i.Record()
		// The run's work directory, not the instance's: down removes it
		// once the last of its instances is gone.
		rec.WorkDir = workDir
		k := &Kept{Record: rec, Engine: engineName, Provider: providerName, Host: i.Host, password: i.Password, user: i.User}
		for _, p := range ps {
			if p.Instance == i {
				k.Tenants = append(k.Tenants, KeptTenant{Tenant: p.Tenant, Database: p.Database, Role: p.Role, password: p.Password})
			}
		}
		out = append(out, k)
	}
	return out
}

// KeptFile is the file `tenantbench down` reads.
const KeptFile = "instances.json"

// WriteKept writes instances.json and pgpass (mode 0600: the passwords
// never go to the terminal) and tells the user how to connect and stop.
func WriteKept(d *results.Dir, kept []*Kept, w io.Writer) error {
	if err := d.WriteJSON(KeptFile, kept); err != nil {
		return err
	}
	var pg strings.Builder
	for _, k := range kept {
		fmt.Fprintf(&pg, "%s:%d:*:%s:%s\n", k.host(), k.Port, pgpassEscape(k.user), pgpassEscape(k.password))
		for _, t := range k.Tenants {
			fmt.Fprintf(&pg, "%s:%d:%s:%s:%s\n", k.host(), k.Port, pgpassEscape(t.Database), pgpassEscape(t.Role), pgpassEscape(t.password))
		}
	}
	if err := d.WriteFile("pgpass", []byte(pg.String()), 0o600); err != nil {
		return err
	}
	pgpass, _ := filepath.Abs(filepath.Join(d.Path, "pgpass"))
	fmt.Fprintf(w, "\nThe last run's instances are still up (--keep). Passwords are in %s.\n", pgpass)
	for _, k := range kept {
		fmt.Fprintf(w, "instance %s (port %d):\n", k.Name, k.Port)
		fmt.Fprintf(w, "  superuser: PGPASSFILE=%s psql \"host=%s port=%d dbname=postgres user=%s\"\n", pgpass, k.host(), k.Port, k.user)
		for _, t := range k.Tenants {
			fmt.Fprintf(w, "  %s: PGPASSFILE=%s psql \"host=%s port=%d dbname=%s user=%s\"\n", t.Tenant, pgpass, k.host(), k.Port, t.Database, t.Role)
		}
	}
	fmt.Fprintf(w, "Stop them with: tenantbench down %s\n", d.Path)
	return nil
}

// ReadKept reads instances.json of a results directory.
func ReadKept(dir string) ([]*Kept, error) {
	kept, err := readKept(dir)
	for _, k := range kept {
		if k.Engine == "" {
			k.Engine = "postgres"
		}
		if k.Provider == "" {
			k.Provider = "local"
		}
	}
	return kept, err
}

func readKept(dir string) ([]*Kept, error) {
	b, err := os.ReadFile(filepath.Join(dir, KeptFile))
	if err != nil {
		return nil, fmt.Errorf("no instances kept in %s (no %s): %w", dir, KeptFile, err)
	}
	var kept []*Kept
	if err := json.Unmarshal(b, &kept); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, KeptFile), err)
	}
	return kept, nil
}

// TenantDSN is how to reach a kept tenant over TCP, its password read from
// the results' pgpass.
func TenantDSN(dir string, k *Kept, t KeptTenant, eng engine.Engine) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "pgpass"))
	if err != nil {
		return "", err
	}
	want := fmt.Sprintf("%s:%d:%s:%s:", k.host(), k.Port, pgpassEscape(t.Database), pgpassEscape(t.Role))
	for _, line := range strings.Split(string(b), "\n") {
		if pw, ok := strings.CutPrefix(line, want); ok {
			inst := provider.Instance{Engine: eng, Host: k.host(), Port: k.Port, SocketDir: k.SocketDir}
			return inst.DSN("tcp", t.Database, t.Role, strings.NewReplacer(`\:`, ":", `\\`, `\`).Replace(pw)), nil
		}
	}
	return "", fmt.Errorf("no password for %s in %s", t.Tenant, filepath.Join(dir, "pgpass"))
}

// host is where clients reach k's server.
func (k *Kept) host() string {
	if k.Host == "" {
		return "127.0.0.1"
	}
	return k.Host
}

// pgpassEscape escapes ':' and '\' as the pgpass format requires.
func pgpassEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s)
}
