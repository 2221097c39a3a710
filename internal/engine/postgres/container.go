package postgres

import (
	"maps"
	"slices"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

// DefaultImageVersion is the major version of the official image when a
// spec leaves sut.version open.
const DefaultImageVersion = "17"

// Container is how the official postgres image (Docker Hub's "postgres")
// runs a server: its entrypoint initialises PGDATA on the first start
// with POSTGRES_PASSWORD as the superuser's password and passes its
// arguments to postgres, so each setting is a -c flag; it runs as the
// image's postgres user, uid 999. PGDATA is a directory below the
// volume's mount, as the image wants (a volume's root may hold
// lost+found).
func (Engine) Container(major string, settings map[string]string) srv.Container {
	if major == "" {
		major = DefaultImageVersion
	}
	const mount = "/var/lib/postgresql/data"
	args := []string{"postgres"}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "-c", k+"="+settings[k])
	}
	return srv.Container{Image: "postgres:" + major, Args: args, Env: map[string]string{"PGDATA": mount + "/pgdata"},
		PasswordEnv: "POSTGRES_PASSWORD", User: "postgres", UID: 999, Port: 5432, DataMount: mount}
}
