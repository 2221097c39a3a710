package postgres

import (
	"maps"
	"slices"
	"strings"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

// DefaultImageVersion is the major version of the official image when a
// spec leaves sut.version open.
const DefaultImageVersion = "17"

// The configuration file a pod's server reads: mounted from a ConfigMap
// (read-only, so never the data directory's own file).
const (
	containerConfDir  = "/etc/tenantbench"
	containerConfFile = "postgresql.conf"
)

// Container is how the official postgres image (Docker Hub's "postgres")
// runs a server: its entrypoint initialises PGDATA on the first start
// with POSTGRES_PASSWORD as the superuser's password and passes its
// arguments to postgres; it runs as the image's postgres user, uid 999.
// PGDATA is a directory below the volume's mount, as the image wants (a
// volume's root may hold lost+found).
//
// The settings are a configuration file of their own (Files, a ConfigMap
// the provider mounts), named by config_file on the command line: it
// includes the data directory's postgresql.conf first, which the image's
// initdb wrote (listen_addresses = '*' among others), so that the run's
// settings, after it, win. The kubectl user sees them in the ConfigMap,
// not spread over the pod's arguments.
func (Engine) Container(major string, settings map[string]string) srv.Container {
	if major == "" {
		major = DefaultImageVersion
	}
	const mount = "/var/lib/postgresql/data"
	pgdata := mount + "/pgdata"
	var conf strings.Builder
	conf.WriteString("# written by tenantbench: the image's own file, then the run's settings\n")
	conf.WriteString("include " + QuoteValue(pgdata+"/postgresql.conf") + "\n")
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		conf.WriteString(k + " = " + QuoteValue(settings[k]) + "\n")
	}
	args := []string{"postgres", "-c", "config_file=" + containerConfDir + "/" + containerConfFile}
	return srv.Container{Image: "postgres:" + major, Args: args, Env: map[string]string{"PGDATA": pgdata},
		PasswordEnv: "POSTGRES_PASSWORD", User: "postgres", UID: 999, Port: 5432, DataMount: mount,
		Files: map[string]string{containerConfFile: conf.String()}, FilesMount: containerConfDir}
}
