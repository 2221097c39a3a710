// Package local is the provider that starts database servers as processes
// on this machine: each in its own directory, on its own loopback port and
// unix socket, in its own process group and cgroup, as an unprivileged user
// when tenantbench runs as root. What differs between engines (programs,
// initialisation, configuration, command line, signals) it asks the
// instance's engine (engine.Server).
package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/engine"
	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// Options configure a Provider. The zero value suits a run.
type Options struct {
	// User runs the servers when tenantbench runs as root. "" means
	// "postgres" if it exists, else a system user "tenantbench", created.
	User string
	// Run names this provider's cgroups, /tenantbench/<Run>/<instance>.
	// "" derives it from each instance's WorkDir, so that the instances of
	// one work directory share a parent.
	Run string
	// Cgroups is the cgroup setup to use; nil detects it. Pass
	// &cgroup.System{Mode: cgroup.None} to use none.
	Cgroups *cgroup.System
	// Find says where the engines' server programs are looked for
	// beyond the usual places, and whether they may be downloaded.
	Find dbserver.Find
	// StartTimeout bounds the wait for a started server to accept
	// connections; default 60 s.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits for a fast shutdown before an
	// immediate one; default 10 s.
	StopTimeout time.Duration
}

// Provider starts and stops local servers. It is safe for concurrent use.
type Provider struct {
	opts    Options
	cgroups cgroup.System
	account *account // nil: servers run as this process's user

	// pickPort chooses each server's port: freePort, but a test makes it
	// return a taken port to exercise the retry.
	pickPort func() (int, error)

	mu      sync.Mutex
	bins    map[string]dbserver.Programs   // by engine and requested version
	servers map[*provider.Instance]*server // every instance started
}

var _ provider.Provider = (*Provider)(nil)

// New prepares a provider: it detects cgroups and, when running as root,
// finds (or creates) the user the servers will run as.
func New(opts Options) (*Provider, error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 10 * time.Second
	}
	if opts.Run != "" && !nameRE.MatchString(opts.Run) {
		return nil, fmt.Errorf("run name %q: use letters, digits, '_', '.' and '-' (at most 63)", opts.Run)
	}
	acct, err := serverAccount(opts.User)
	if err != nil {
		return nil, err
	}
	p := &Provider{
		opts:     opts,
		account:  acct,
		pickPort: freePort,
		bins:     map[string]dbserver.Programs{},
		servers:  map[*provider.Instance]*server{},
	}
	if opts.Cgroups != nil {
		p.cgroups = *opts.Cgroups
	} else {
		p.cgroups = cgroup.Detect()
	}
	return p, nil
}

// CgroupMode is the cgroup version the provider puts servers in: "v1",
// "v2", or "none" (then limits are not enforced).
func (p *Provider) CgroupMode() string { return string(p.cgroups.Mode) }

// CgroupReason says why CgroupMode is "none".
func (p *Provider) CgroupReason() string { return p.cgroups.Reason }

// ServerUser is the user servers run as.
func (p *Provider) ServerUser() string {
	if p.account == nil {
		return "(this process's user)"
	}
	return p.account.name
}

// binaries finds the server programs of eng once per requested version.
func (p *Provider) binaries(ctx context.Context, eng engine.Server, version string) (dbserver.Programs, error) {
	key := eng.(engine.Engine).Name() + "\x00" + version
	p.mu.Lock()
	b, ok := p.bins[key]
	p.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := eng.FindPrograms(ctx, version, p.opts.Find)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.bins[key] = b
	p.mu.Unlock()
	return b, nil
}

// serverEngine is the engine e as this provider runs it: nil is
// PostgreSQL; an engine that cannot run as a local process is refused.
func serverEngine(e engine.Engine) (engine.Engine, engine.Server, error) {
	if e == nil {
		e = postgres.Engine{}
	}
	srv, ok := e.(engine.Server)
	if !ok {
		return nil, nil, fmt.Errorf("engine %s cannot run as a local server", e.Name())
	}
	return e, srv, nil
}

// nameRE is what instance and run names may be: they become directory
// and cgroup names.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$`)

// runName is the cgroup name of the run an instance belongs to.
func (p *Provider) runName(workDir string) string {
	if p.opts.Run != "" {
		return p.opts.Run
	}
	// The work directory's name (readable) and a hash of its path
	// (unique), so that two runs never share a cgroup parent.
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(workDir))
	base = strings.TrimLeft(base, ".")
	if len(base) > 40 {
		base = base[:40]
	}
	sum := sha256.Sum256([]byte(workDir))
	return base + "-" + hex.EncodeToString(sum[:4])
}

// server is the provider's bookkeeping of one instance.
type server struct {
	eng    engine.Server
	progs  dbserver.Programs
	conf   dbserver.Config // the configuration it was started with
	inst   *provider.Instance
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd ends
	// life is the instance's Exited: closed when a server ends while no
	// in-place restart (restarting) is replacing it.
	life       chan struct{}
	lifeOnce   sync.Once
	restarting atomic.Bool
	group      *cgroup.Group
	instDir    string
	// ownSocketDir: the socket directory lies outside instDir (a long
	// work dir path does not fit in a socket address) and is removed with
	// the server.
	ownSocketDir bool
	// spec and workDir are what the instance was started with, for
	// Restart.
	spec    provider.InstanceSpec
	workDir string

	// pool is the pooler in front of the server, zero for none.
	pool poolerState

	// replicas are the server's hot standbys (replica.go), guarded by
	// replMu (not mu, which a stop or restart holds throughout, while
	// the monitor asks for them); syncStandbys says the primary waits
	// for them at commit. A standby has its primary and the replication
	// slot it streams through.
	replMu       sync.Mutex
	replicas     []*server
	syncStandbys bool
	primary      *server
	slot         string

	mu      sync.Mutex // serializes Stop
	stopped bool
}

// running says why srv cannot be restarted or killed now: Stop has
// stopped it, or its process has exited (a crash, a kill) and nothing
// started it again. Called with srv.mu held, which Stop takes too, so
// the answer holds until the caller lets go.
func (srv *server) running() error {
	if srv.stopped {
		return fmt.Errorf("instance %s is stopped", srv.inst.Name)
	}
	select {
	case <-srv.life:
		return fmt.Errorf("instance %s has exited", srv.inst.Name)
	default:
	}
	return nil
}
