package postgres

import (
	"net/url"
	"testing"

	srv "github.com/tenantbench/tenantbench/internal/engine/server"
)

// TestAdminTLS: the admin string's TLS words, else the PGSSL* variables,
// else prefer.
func TestAdminTLS(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGSSLROOTCERT", "")
	for dsn, want := range map[string]srv.TLS{
		"postgres://a:pw@db:5432/postgres?sslmode=verify-full&sslrootcert=/etc/ca%20x.crt": {Mode: "verify-full", RootCert: "/etc/ca x.crt"},
		"postgres://a@db/postgres":            {Mode: "prefer"},
		"postgresql://a@db/postgres?ssl=true": {Mode: "require"},
		"host=db user=a sslmode=verify-ca sslrootcert='/c a/r\\'t.crt' sslcert=/c/c.crt sslkey=/c/c.key": {
			Mode: "verify-ca", RootCert: "/c a/r't.crt", Cert: "/c/c.crt", Key: "/c/c.key"},
		"host=db user=a password='p w' sslmode=disable": {Mode: "disable"},
	} {
		// adminTLS, not ParseAdmin: pgconn would read the files.
		got, err := adminTLS(dsn)
		if err != nil {
			t.Errorf("%s: %v", dsn, err)
			continue
		}
		if got != want {
			t.Errorf("%s: TLS %+v, want %+v", dsn, got, want)
		}
	}
	t.Setenv("PGSSLMODE", "require")
	t.Setenv("PGSSLROOTCERT", "/env/ca.crt")
	if got, err := adminTLS("postgres://a@db/postgres"); err != nil || got != (srv.TLS{Mode: "require", RootCert: "/env/ca.crt"}) {
		t.Errorf("from the environment: %+v, %v", got, err)
	}
	if got, err := adminTLS("postgres://a@db/postgres?sslmode=disable"); err != nil || got.Mode != "disable" {
		t.Errorf("the string's mode over the environment's: %+v, %v", got, err)
	}
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGSSLROOTCERT", "")
	// ParseAdmin gives it with the rest (no file named: pgconn reads them).
	if l, err := (Engine{}).ParseAdmin("host=db user=a password='p w' sslmode=require"); err != nil || l.TLS.Mode != "require" || l.Password != "p w" {
		t.Errorf("ParseAdmin: %+v, %v", l.TLS, err)
	}
}

// TestDSNTLS: a DSN carries the TLS it is given; the zero TLS is disable.
func TestDSNTLS(t *testing.T) {
	tls := srv.TLS{Mode: "verify-full", RootCert: "/a b/ca.crt", Cert: "/c.crt", Key: "/c.key"}
	u, err := url.Parse(Engine{}.DSN("db.example", 5432, tls, "t01", "t01", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("sslmode") != "verify-full" || q.Get("sslrootcert") != "/a b/ca.crt" || q.Get("sslcert") != "/c.crt" || q.Get("sslkey") != "/c.key" {
		t.Errorf("DSN %s lacks the TLS words", u.Redacted())
	}
	u, _ = url.Parse(Engine{}.DSN("127.0.0.1", 5432, srv.TLS{}, "t01", "t01", "pw"))
	if u.Query().Get("sslmode") != "disable" || u.Query().Has("sslrootcert") {
		t.Errorf("DSN of no TLS %s", u.Redacted())
	}
}
