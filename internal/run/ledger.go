package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tenantbench/tenantbench/internal/interfere"
	"github.com/tenantbench/tenantbench/internal/netns"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// LiveFile is the ledger in a results directory: every server of the
// experiment that may be alive and every run work directory not yet
// removed, written as each appears and goes. After a tenantbench that
// was killed (SIGKILL) it says what `tenantbench down DIR` must clean up.
const LiveFile = "live.json"

// RegistryEnv names another directory for the machine-wide registry (the
// tests use their own).
const RegistryEnv = "TENANTBENCH_REGISTRY"

// Ledger is the live.json of one experiment, with a copy in the
// machine-wide registry (RegistryDir) so that `tenantbench down --all`
// finds it without knowing the results directory. It implements
// provider.Ledger. A nil *Ledger records nothing.
type Ledger struct {
	mu    sync.Mutex
	paths []string // live.json, then the registry's copy
	book  LiveBook
	err   error // the first failed write
}

var _ provider.Ledger = (*Ledger)(nil)

// LiveBook is what a ledger file holds.
type LiveBook struct {
	// Owner is the tenantbench process that writes it: while it lives,
	// its servers are not left over.
	Owner     Owner             `json:"owner"`
	Results   string            `json:"results"` // the results directory, absolute
	Provider  string            `json:"provider"`
	Engine    string            `json:"engine"`
	Instances []provider.Record `json:"instances"`
	WorkDirs  []string          `json:"work_dirs"`
	// Stressors are the noise processes of the run's interference that
	// may be running (stressors.go).
	Stressors []interfere.Process `json:"stressors,omitempty"`
	// Networks are the runs' network namespaces (sut.network) that may
	// exist, each with its veth pair (network.go).
	Networks []netns.Record `json:"networks,omitempty"`
}

// Owner names a process: its pid and its start time, so that a later
// process given the same pid is not taken for it.
type Owner struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Alive reports whether the owner still runs.
func (o Owner) Alive() bool { return o.Pid > 0 && o.Start != 0 && provider.StartTime(o.Pid) == o.Start }

// Empty reports whether the book lists nothing to clean up.
func (b *LiveBook) Empty() bool {
	return len(b.Instances) == 0 && len(b.WorkDirs) == 0 && len(b.Stressors) == 0 && len(b.Networks) == 0
}

// RegistryDir is the machine-wide registry of ledgers: /run/tenantbench
// for root (servers are the machine's), else the user's cache directory;
// RegistryEnv overrides it.
func RegistryDir() (string, error) {
	if d := os.Getenv(RegistryEnv); d != "" {
		return d, nil
	}
	if os.Geteuid() == 0 {
		return "/run/tenantbench", nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "tenantbench", "live"), nil
}

// registryFile is the registry's copy of b: named after its results
// directory, or its owner when it has none (calibrate).
func registryFile(regDir string, b *LiveBook) string {
	key := b.Results
	if key == "" {
		key = fmt.Sprintf("pid %d start %d", b.Owner.Pid, b.Owner.Start)
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(regDir, hex.EncodeToString(sum[:8])+".json")
}

// OpenLedger starts the ledger of the experiment writing to resultsDir
// ("" for none: calibrate keeps only the registry's copy). Without a
// usable registry it still keeps live.json, and says why in its error
// (the ledger is returned either way).
func OpenLedger(resultsDir, providerName, engineName string) (*Ledger, error) {
	self := os.Getpid()
	l := &Ledger{book: LiveBook{Owner: Owner{Pid: self, Start: provider.StartTime(self)}, Provider: providerName, Engine: engineName}}
	if resultsDir != "" {
		abs, err := filepath.Abs(resultsDir)
		if err != nil {
			return nil, err
		}
		l.book.Results = abs
		l.paths = append(l.paths, filepath.Join(abs, LiveFile))
	}
	reg, err := RegistryDir()
	if err == nil {
		err = os.MkdirAll(reg, 0o700)
	}
	if err != nil {
		err = fmt.Errorf("no machine-wide registry of live servers (down --all will not see this run's): %w", err)
	} else {
		l.paths = append(l.paths, registryFile(reg, &l.book))
	}
	if werr := l.save(); werr != nil {
		return nil, werr
	}
	return l, err
}

// Live records r, replacing an earlier record of the same data directory.
func (l *Ledger) Live(r provider.Record) {
	l.change(func(b *LiveBook) {
		b.Instances = append(dropRecord(b.Instances, r.DataDir), r)
	})
}

// Gone forgets the server of r.
func (l *Ledger) Gone(r provider.Record) {
	l.change(func(b *LiveBook) { b.Instances = dropRecord(b.Instances, r.DataDir) })
}

// AddWorkDir records a run's work directory, made before its servers.
func (l *Ledger) AddWorkDir(dir string) {
	abs, _ := filepath.Abs(dir)
	l.change(func(b *LiveBook) { b.WorkDirs = append(b.WorkDirs, abs) })
}

// DoneWith forgets a work directory that has been removed, with every
// server below it: they were stopped before it was removed.
func (l *Ledger) DoneWith(dir string) {
	abs, _ := filepath.Abs(dir)
	l.change(func(b *LiveBook) {
		var ws []string
		for _, w := range b.WorkDirs {
			if w != abs {
				ws = append(ws, w)
			}
		}
		b.WorkDirs = ws
		var rs []provider.Record
		for _, r := range b.Instances {
			if !strings.HasPrefix(r.DataDir, abs+"/") {
				rs = append(rs, r)
			}
		}
		b.Instances = rs
	})
}

// change edits the book under the lock and saves it; a nil ledger
// records nothing.
func (l *Ledger) change(edit func(b *LiveBook)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	edit(&l.book)
	l.keep(l.save())
}

// Close removes the ledger's files when nothing is left (kept servers
// stay listed, for down) and returns the first write that failed.
func (l *Ledger) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.book.Empty() {
		for _, p := range l.paths {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				l.keep(err)
			}
		}
	}
	return l.err
}

func (l *Ledger) keep(err error) {
	if l.err == nil && err != nil {
		l.err = err
	}
}

// save writes every copy of the book atomically (a reader never sees half
// a file); called with l.mu held.
func (l *Ledger) save() error {
	b, err := json.MarshalIndent(&l.book, "", "  ")
	if err != nil {
		return err
	}
	for _, p := range l.paths {
		if err := writeAtomic(p, append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func dropRecord(rs []provider.Record, dataDir string) []provider.Record {
	out := rs[:0]
	for _, r := range rs {
		if r.DataDir != dataDir {
			out = append(out, r)
		}
	}
	return out
}
