package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Config is what tenantbench writes into an instance's postgresql.conf.
type Config struct {
	Port      int
	SocketDir string
	// ListenAddresses defaults to loopback: nothing listens beyond it
	// unless the spec asks.
	ListenAddresses string
	// MaxConnections is used unless Settings sets max_connections; 0 keeps
	// initdb's choice.
	MaxConnections int
	// ClusterName shows in the server's process titles ("postgres: t01:
	// checkpointer"), so that ps tells the instances apart.
	ClusterName string
	// Settings are the spec's, written after tenantbench's own so that
	// they win (PostgreSQL applies the last occurrence of a setting).
	Settings map[string]string
}

// configMarker starts the part of postgresql.conf that tenantbench owns:
// initdb's text stays above it, ours is rewritten below it.
const configMarker = "# ---- written by tenantbench: edits below this line are overwritten ----"

// Managed reports whether a spec may not set the named setting: those
// that say where the server's files and endpoints are, how clients
// authenticate, what it loads and which commands it runs. It is the
// engine's rule (owned), so that a server start refuses what the plan
// refuses.
func Managed(name string) bool { return owned(strings.ToLower(name)) != "" }

var settingNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// CheckSetting says what is wrong with a setting a spec asks for, if
// anything: a name the configuration file cannot hold, a setting
// tenantbench manages, or a value that cannot be written.
func CheckSetting(name, value string) error {
	if !settingNameRE.MatchString(name) {
		return fmt.Errorf("setting name %q is not a PostgreSQL setting name (letters, digits, _ and at most one dot)", name)
	}
	if why := owned(strings.ToLower(name)); why != "" {
		return fmt.Errorf("setting %q is managed by tenantbench and cannot be set in the spec: %s", name, why)
	}
	if strings.ContainsRune(value, 0) {
		return fmt.Errorf("setting %q: the value contains a NUL byte", name)
	}
	if strings.ToLower(name) == "shared_preload_libraries" {
		if _, err := PreloadLibraries(value); err != nil {
			return fmt.Errorf("setting %q: %w", name, err)
		}
	}
	return nil
}

// PreloadLibraries are the library names of a shared_preload_libraries
// value: a comma-separated list, each name bare or in double quotes. A
// name with a directory is refused: the server would load any file a
// spec names, where a bare name is looked up among the installed
// libraries ($libdir).
func PreloadLibraries(value string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(value, ",") {
		n := strings.TrimSpace(part)
		if len(n) >= 2 && n[0] == '"' && n[len(n)-1] == '"' {
			n = strings.ReplaceAll(n[1:len(n)-1], `""`, `"`)
		}
		if n == "" {
			continue
		}
		if strings.ContainsAny(n, `/\`) || strings.HasPrefix(n, "$") || n == "." || n == ".." {
			return nil, fmt.Errorf("library %q: name an installed library without a directory (pg_stat_statements, auto_explain)", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// QuoteValue writes v as a postgresql.conf string literal. Every value may
// be quoted, numbers and booleans included. Inside quotes the server reads
// a doubled quote as one quote, and backslash escapes (\n, \\): both are
// escaped.
func QuoteValue(v string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range v {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// render is tenantbench's block of postgresql.conf.
func (c Config) render() (string, error) {
	if c.Port <= 0 || c.Port > 65535 {
		return "", fmt.Errorf("port %d is out of range", c.Port)
	}
	listen := c.ListenAddresses
	if listen == "" {
		listen = "127.0.0.1"
	}
	var b strings.Builder
	b.WriteString(configMarker + "\n")
	line := func(name, value string) { fmt.Fprintf(&b, "%s = %s\n", name, QuoteValue(value)) }
	line("listen_addresses", listen)
	line("port", fmt.Sprint(c.Port))
	line("unix_socket_directories", c.SocketDir)
	// The server writes to stderr, which tenantbench sends to the
	// instance's log file: one file per instance, no collector process.
	line("log_destination", "stderr")
	line("logging_collector", "off")
	line("password_encryption", "scram-sha-256")
	if c.MaxConnections > 0 {
		line("max_connections", fmt.Sprint(c.MaxConnections))
	}
	if c.ClusterName != "" {
		line("cluster_name", c.ClusterName)
	}
	if len(c.Settings) > 0 {
		b.WriteString("# from the spec\n")
		names := make([]string, 0, len(c.Settings))
		for n := range c.Settings {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := CheckSetting(n, c.Settings[n]); err != nil {
				return "", err
			}
			line(n, c.Settings[n])
		}
	}
	return b.String(), nil
}

// WriteConfig writes c at the end of dataDir/postgresql.conf, replacing
// what an earlier call wrote (a retry on another port rewrites it). The
// file keeps its owner: the server runs as another user than root.
func WriteConfig(dataDir string, c Config) error {
	block, err := c.render()
	if err != nil {
		return err
	}
	path := filepath.Join(dataDir, "postgresql.conf")
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the configuration initdb wrote: %w", err)
	}
	text := string(old)
	if i := strings.Index(text, configMarker); i >= 0 {
		text = text[:i]
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return rewrite(path, text+block)
}

// hba lets every role in with a SCRAM password, over the instance's unix
// socket and over IPv4 loopback only; nothing else matches, so any other
// client is refused. Replication connections (a standby's base backup and
// its stream, sut.replicas) come over the unix socket only, and need a
// role with the REPLICATION attribute: tenantbench's superuser, never a
// tenant's.
const hba = `# written by tenantbench
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 scram-sha-256
host    all          all   127.0.0.1/32  scram-sha-256
local   replication  all                 scram-sha-256
`

// WriteHBA replaces dataDir/pg_hba.conf with tenantbench's rules, and
// lets in the clients of the subnet clients too when it is not "" (the
// host's end of a network namespace's link: sut.network).
func WriteHBA(dataDir, clients string) error {
	text := hba
	if clients != "" {
		if strings.ContainsAny(clients, " \t\n#\"") {
			return fmt.Errorf("client subnet %q is not an address", clients)
		}
		text += fmt.Sprintf("host    all          all   %s  scram-sha-256\n", clients)
	}
	return rewrite(filepath.Join(dataDir, "pg_hba.conf"), text)
}

// rewrite replaces the contents of an existing file in place, keeping its
// owner and mode (a new file would belong to root, and the server could
// not read it).
func rewrite(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	return nil
}
