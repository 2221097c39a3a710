package mariadb

import (
	"fmt"
	"regexp"
	"strings"
)

// settingName is a server variable or option as a spec writes it: in
// lowercase, words joined by _ or - (MariaDB reads both alike).
var settingName = regexp.MustCompile(`^[a-z][a-z0-9]*([_-][a-z0-9]+)*$`)

// normal is a setting's name with - as _, as MariaDB compares them.
func normal(key string) string { return strings.ReplaceAll(strings.ToLower(key), "-", "_") }

func (Engine) SettingRule(key string) string { return SettingRule(key) }

// SettingRule says what a spec's settings key must be, or "" when the
// spec may set it: a MariaDB option name that tenantbench does not own.
func SettingRule(key string) string {
	if !settingName.MatchString(key) {
		return "must be a MariaDB server option in lowercase: letters, digits, and _ or - between words (innodb_buffer_pool_size)"
	}
	if why := owned(normal(key)); why != "" {
		return "cannot be set in a spec: " + why
	}
	return ""
}

// owned says why a spec may not set an option, or "" when it may. As for
// PostgreSQL it is a deny-list of what reaches the server's files and
// endpoints, its logs, authentication, code it loads and statements run
// on the users' behalf: MariaDB has some 600 options and a benchmark tunes
// many (InnoDB, buffers, threads), so an allow-list would refuse what a
// new version adds for no reason.
func owned(key string) string {
	switch key {
	case "port", "bind_address", "skip_networking", "socket", "named_pipe", "extra_port", "extra_max_connections",
		"proxy_protocol_networks", "skip_name_resolve":
		return "tenantbench listens on loopback only, on a free port and a socket of its own, so that nothing is exposed beyond this machine"
	case "datadir", "basedir", "tmpdir", "pid_file", "innodb_data_home_dir", "innodb_log_group_home_dir",
		"innodb_undo_directory", "innodb_tmpdir", "aria_log_dir_path", "character_sets_dir", "lc_messages_dir",
		"secure_file_priv", "chroot", "user", "defaults_file", "defaults_extra_file", "defaults_group_suffix", "no_defaults":
		return "tenantbench lays out each instance's data directory and writes its configuration file"
	case "log_error", "log_output", "general_log_file", "slow_query_log_file", "log_bin", "log_bin_index",
		"relay_log", "relay_log_index", "log_basename", "syslog", "log_tc":
		return "tenantbench keeps each server's log as its stderr, in a file in the instance's directory; other logs would go outside it"
	case "plugin_dir", "plugin_load", "plugin_load_add", "plugin_maturity", "init_file", "init_connect", "init_slave",
		"local_infile", "secure_auth", "skip_grant_tables", "old_passwords", "default_auth_plugin", "unix_socket",
		"server_audit_file_path", "enforce_storage_engine":
		return "it changes authentication, loads code or runs statements that tenantbench's tenancy and loading rely on"
	case "read_only", "super_read_only", "skip_slave_start", "server_id", "master_info_file", "relay_log_info_file":
		return "tenantbench's servers are writable primaries"
	}
	if strings.HasPrefix(key, "ssl") || strings.HasPrefix(key, "tls_") {
		return "tenantbench's clients connect over loopback and its socket without TLS; TLS files and keys are the operator's"
	}
	return ""
}

// CheckSetting says what is wrong with a setting a spec asks for, if
// anything, at the server's start: what the plan refuses, and a value the
// configuration file cannot hold.
func (Engine) CheckSetting(name, value string) error {
	if why := SettingRule(name); why != "" {
		return fmt.Errorf("setting %q %s", name, why)
	}
	if strings.ContainsAny(value, "\x00\n\r") {
		return fmt.Errorf("setting %q: the value holds a line break or a NUL", name)
	}
	return nil
}
