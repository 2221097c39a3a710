package mariadb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tenantbench/tenantbench/internal/engine/maven"
	dbserver "github.com/tenantbench/tenantbench/internal/engine/server"
)

// What the local provider needs of MariaDB to run its servers
// (engine.Server).

// Programs is one installation of the MariaDB server.
type Programs struct {
	Server    string // mariadbd (or mysqld)
	InstallDB string // mariadb-install-db (or mysql_install_db)
	Full      string // "10.11.19"
	Major     string // "10.11"
	// Base is the installation's own directory when it is a standalone
	// build (bin/, share/english/errmsg.sys below it: a fetched one),
	// whose server is told where it is rather than trusting the paths
	// compiled in; "" for a packaged server (Debian's), whose built-in
	// paths are right.
	Base string
}

// layoutArgs tell a standalone build's server where its files are.
func (p Programs) layoutArgs() []string {
	if p.Base == "" {
		return nil
	}
	return []string{"--basedir=" + p.Base, "--lc-messages-dir=" + filepath.Join(p.Base, "share")}
}

func (p Programs) Version() string { return p.Full }
func (p Programs) Dir() string     { return filepath.Dir(p.Server) }

// programsOf is the installation FindPrograms made.
func programsOf(p dbserver.Programs) Programs {
	if mp, ok := p.(Programs); ok {
		return mp
	}
	return Programs{Server: filepath.Join(p.Dir(), "mariadbd"), InstallDB: filepath.Join(p.Dir(), "mariadb-install-db"), Full: p.Version()}
}

// Installed lists every usable installation: $MARIADB_BINDIR first, then
// PATH, /usr/sbin, /usr/local/mysql/bin and the builds fetched into the
// default cache, newest first after the pinned one.
func Installed(ctx context.Context) []Programs { return Fetcher{}.installed(ctx) }

// installed is Installed with f's cache.
func (f Fetcher) installed(ctx context.Context) []Programs {
	var dirs []string
	pinned := os.Getenv("MARIADB_BINDIR")
	if pinned != "" {
		dirs = append(dirs, pinned)
	}
	dirs = append(dirs, filepath.SplitList(os.Getenv("PATH"))...)
	dirs = append(dirs, "/usr/sbin", "/usr/local/mysql/bin", "/usr/local/mariadb/bin")
	for _, c := range f.cacheDirs() {
		m, _ := filepath.Glob(filepath.Join(c, "mariadb-*", "bin"))
		dirs = append(dirs, m...)
	}
	seen := map[string]bool{}
	var out []Programs
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p, err := inspect(ctx, d)
		if err != nil || seen[p.Server] {
			continue
		}
		seen[p.Server] = true
		out = append(out, p)
	}
	first := 0
	if pinned != "" && len(out) > 0 && filepath.Dir(out[0].Server) == resolved(pinned) {
		first = 1
	}
	rest := out[first:]
	sort.SliceStable(rest, func(i, j int) bool { return maven.CompareVersions(rest[i].Full, rest[j].Full) > 0 })
	return out
}

// resolved is dir with symlinks followed.
func resolved(dir string) string {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dir
	}
	return d
}

// inspect finds the server and its install script in or near dir and asks
// the server its version.
func inspect(ctx context.Context, dir string) (Programs, error) {
	var p Programs
	for _, name := range []string{"mariadbd", "mysqld"} {
		if f, err := filepath.EvalSymlinks(filepath.Join(dir, name)); err == nil && executable(f) {
			p.Server = f
			break
		}
	}
	if p.Server == "" {
		return p, fmt.Errorf("no mariadbd in %s", dir)
	}
	base := filepath.Dir(p.Server)
	for _, d := range []string{base, filepath.Join(base, "..", "bin"), filepath.Join(base, "..", "scripts"), "/usr/bin"} {
		for _, name := range []string{"mariadb-install-db", "mysql_install_db"} {
			if f := filepath.Join(d, name); executable(f) {
				p.InstallDB = filepath.Clean(f)
				break
			}
		}
		if p.InstallDB != "" {
			break
		}
	}
	if p.InstallDB == "" {
		return p, fmt.Errorf("no mariadb-install-db beside %s", p.Server)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p.Server, "--version").Output()
	if err != nil {
		return p, fmt.Errorf("%s --version: %w", p.Server, err)
	}
	p.Full, p.Major, err = ParseVersion(string(out))
	if root := filepath.Dir(base); fileExists(filepath.Join(root, "share", "english", "errmsg.sys")) {
		p.Base = root
	}
	return p, err
}

func fileExists(f string) bool {
	_, err := os.Stat(f)
	return err == nil
}

func executable(f string) bool {
	fi, err := os.Stat(f)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

var versionRE = regexp.MustCompile(`Ver\s+(\d+)\.(\d+)\.(\d+)-MariaDB`)

// ParseVersion reads `mariadbd --version` ("/usr/sbin/mariadbd  Ver
// 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ...") into the version
// and its major ("10.11").
func ParseVersion(s string) (version, major string, err error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return "", "", fmt.Errorf("cannot read a MariaDB version from %q", strings.TrimSpace(s))
	}
	return m[1] + "." + m[2] + "." + m[3], m[1] + "." + m[2], nil
}

// FindPrograms picks the installation of version: a major ("10.11"), a
// full version, or "" for the newest. When none fits it fetches the
// newest published build of version (DefaultFetchVersion for "") into the
// cache, unless find forbids it.
func (Engine) FindPrograms(ctx context.Context, version string, find dbserver.Find) (dbserver.Programs, error) {
	f := Fetcher{CacheDir: find.CacheDir, Logf: find.Logf}
	found := f.installed(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p, ok := choose(found, version); ok {
		return p, nil
	}
	if find.NoFetch {
		return nil, notFound(found, version)
	}
	want := version
	if want == "" {
		want = DefaultFetchVersion
	}
	p, err := f.Fetch(ctx, want)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%w; fetching one failed too: %v", notFound(found, version), err)
	}
	return p, nil
}

// choose picks the first installation of version ("" matches any).
func choose(found []Programs, version string) (Programs, bool) {
	for _, p := range found {
		if version == "" || p.Major == version || p.Full == version {
			return p, true
		}
	}
	return Programs{}, false
}

// notFound says what was sought and what was found instead.
func notFound(found []Programs, version string) error {
	var have []string
	for _, p := range found {
		have = append(have, p.Full+" in "+filepath.Dir(p.Server))
	}
	what := "MariaDB server programs"
	if version != "" {
		what = "MariaDB " + version + " server programs"
	}
	msg := fmt.Sprintf("no %s (mariadbd and mariadb-install-db) found in $MARIADB_BINDIR, PATH, /usr/sbin or the cache", what)
	if len(have) > 0 {
		msg += " (found " + strings.Join(have, ", ") + ")"
	}
	return errors.New(msg + ": install them (Debian: apt-get install mariadb-server, then stop and disable its service), set MARIADB_BINDIR, or allow fetching")
}

// configName is tenantbench's configuration file in the data directory.
const configName = "tenantbench.cnf"

// InitCommand runs mariadb-install-db without any other configuration
// file, without the test database, and with an extra SQL file that makes
// the superuser, by its password's hash, and removes every other account
// (root among them, which the script makes without a password or for
// socket login): the hash is all the file holds.
//
// The bootstrap server gets the instance's own directory as its tmpdir
// (tmpDir): the system tables' script makes temporary tables there
// (mysql.tmp_user_sys), and every mariadbd that starts deletes each
// "#sql*" file in its tmpdir, so with the default /tmp one server's start
// deleted another's tables while it was initialising ("Unknown table
// 'mysql.tmp_user_sys'", "Can't find file '/tmp/#sql-temptable-...MAI'",
// now and then a crash).
func (Engine) InitCommand(p dbserver.Programs, dir, dataDir, user, password string) ([]string, []dbserver.InitFile, error) {
	mp := programsOf(p)
	// The script passes the options it does not know to the server
	// unquoted, so the shell would split or expand such a path.
	if tmp := tmpDir(dataDir); strings.ContainsAny(tmp, " \t\n*?[]'\"\\$`") {
		return nil, nil, fmt.Errorf("mariadb-install-db cannot pass the directory %q to its server (it splits and expands it): "+
			"use a work directory whose path has no blanks, quotes or wildcards", tmp)
	}
	sqlFile := filepath.Join(dir, "init.sql")
	text := fmt.Sprintf(`INSERT INTO mysql.global_priv (Host, User, Priv) VALUES ('%%', %s,
  JSON_OBJECT('access', CAST(-1 AS UNSIGNED), 'plugin', 'mysql_native_password', 'authentication_string', %s));
DELETE FROM mysql.global_priv WHERE User NOT IN ('mariadb.sys', %s);
DELETE FROM mysql.proxies_priv;
`, literal(user), literal(NativeHash(password)), literal(user))
	args := []string{mp.InstallDB, "--no-defaults", "--datadir=" + dataDir,
		"--basedir=" + filepath.Dir(filepath.Dir(mp.Server)),
		"--skip-test-db", "--auth-root-authentication-method=normal", "--extra-file=" + sqlFile,
		"--tmpdir=" + tmpDir(dataDir)}
	return args, []dbserver.InitFile{{Path: sqlFile, Data: []byte(text)}}, nil
}

// tmpDir is the server's tmpdir: the instance's own directory, the data
// directory's parent (the server user's, and nobody else's server's), so
// that a server starting elsewhere deletes none of its temporary tables
// (see InitCommand), and a server's start deletes only its own leftovers.
// Not the data directory, where a directory would be a database.
func tmpDir(dataDir string) string { return filepath.Dir(filepath.Clean(dataDir)) }

// SocketPath is the server's socket in dir: the same length as
// PostgreSQL's (".s.PGSQL.<port>"), so that the provider's rule for a
// socket directory short enough fits both.
func SocketPath(dir string, port int) string {
	return filepath.Join(dir, fmt.Sprintf(".s.mysql.%d", port))
}

// render is the configuration file of c.
func render(c dbserver.Config) (string, error) {
	if c.Port <= 0 || c.Port > 65535 {
		return "", fmt.Errorf("port %d is out of range", c.Port)
	}
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, v) }
	b.WriteString("# written by tenantbench: rewritten at every start\n[mariadbd]\n")
	line("datadir", c.DataDir)
	line("socket", SocketPath(c.SocketDir, c.Port))
	line("port", fmt.Sprint(c.Port))
	bind := c.Listen
	if bind == "" {
		bind = "127.0.0.1"
	}
	// Its accounts are 'name'@'%': whoever reaches the address may try.
	line("bind-address", bind)
	b.WriteString("skip-name-resolve\n")
	line("pid-file", pidFile(c.DataDir))
	line("tmpdir", tmpDir(c.DataDir))
	// No log-error: the messages go to stderr, which tenantbench keeps
	// in the instance's log file.
	line("lc-messages", "en_US")
	line("character-set-server", "utf8mb4")
	line("collation-server", "utf8mb4_bin")
	// LOAD DATA LOCAL INFILE: the workloads' bulk load streams rows from
	// the client.
	line("local-infile", "1")
	if c.MaxConnections > 0 {
		line("max_connections", fmt.Sprint(c.MaxConnections))
	}
	if len(c.Settings) > 0 {
		b.WriteString("# from the spec\n")
		keys := make([]string, 0, len(c.Settings))
		for k := range c.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := (Engine{}).CheckSetting(k, c.Settings[k]); err != nil {
				return "", err
			}
			line(k, c.Settings[k])
		}
	}
	return b.String(), nil
}

// WriteConfig writes tenantbench.cnf into the data directory, readable by
// the server's user (it holds no secret).
func (Engine) WriteConfig(_ dbserver.Programs, c dbserver.Config) error {
	text, err := render(c)
	if err != nil {
		return err
	}
	path := filepath.Join(c.DataDir, configName)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Chmod(path, 0o644) // whatever the umask: the server user reads it
}

// StartCommand runs mariadbd on tenantbench.cnf alone (no /etc/mysql),
// naming the data directory too so that its process tells which server it
// is.
func (Engine) StartCommand(p dbserver.Programs, c dbserver.Config) []string {
	mp := programsOf(p)
	args := []string{mp.Server, "--defaults-file=" + filepath.Join(c.DataDir, configName), "--datadir=" + c.DataDir}
	return append(args, mp.layoutArgs()...)
}

func (Engine) LogName() string { return "mariadb.log" }

// PortTaken reads "Can't start server: Bind on TCP/IP port. Got error:
// 98: Address already in use" (lc-messages is en_US).
func (Engine) PortTaken(logTail string) bool {
	return strings.Contains(logTail, "Address already in use")
}

// StopSignals: SIGTERM is MariaDB's normal shutdown (it flushes InnoDB);
// it has no faster one but SIGKILL, so SIGTERM is sent again.
func (Engine) StopSignals() (clean, fast syscall.Signal) { return syscall.SIGTERM, syscall.SIGTERM }

// IsServer says whether cmdline is a mariadbd (or mysqld) on dataDir.
func (Engine) IsServer(args []string, dataDir string) bool {
	if len(args) < 2 {
		return false
	}
	if b := filepath.Base(args[0]); b != "mariadbd" && b != "mysqld" {
		return false
	}
	for _, a := range args[1:] {
		if d, ok := strings.CutPrefix(a, "--datadir="); ok && filepath.Clean(d) == filepath.Clean(dataDir) {
			return true
		}
	}
	return false
}

func pidFile(dataDir string) string          { return filepath.Join(dataDir, "mariadbd.pid") }
func (Engine) PidFile(dataDir string) string { return pidFile(dataDir) }

func (Engine) SocketFiles(dir string, port int) []string {
	s := SocketPath(dir, port)
	return []string{s, s + ".lock"}
}
