package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenantbench/tenantbench/internal/pgtest"
	"github.com/tenantbench/tenantbench/internal/provider"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// serverCert is a certificate for 127.0.0.1 signed by ca, and its key,
// in PEM.
func (ca *testCA) serverCert(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// tlsServer starts the user's server with TLS on, a certificate of ca's,
// and TCP connections without TLS refused (hostssl), so that a run that
// succeeds made every connection over TCP with TLS.
func tlsServer(t *testing.T, ca *testCA) *provider.Instance {
	t.Helper()
	ctx := context.Background()
	inst := pgtest.Start(t, pgtest.Name("tls"))
	userObjects(t, inst)
	admin := pgtest.Connect(t, inst, "postgres")
	var dir string
	if err := admin.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := int(st.Sys().(*syscall.Stat_t).Uid), int(st.Sys().(*syscall.Stat_t).Gid)
	certPEM, keyPEM := ca.serverCert(t)
	for name, b := range map[string][]byte{"server.crt": certPEM, "server.key": keyPEM} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	hba := filepath.Join(dir, "pg_hba.conf")
	b, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll("\n"+string(b), "\nhost ", "\nhostssl ")
	if !strings.Contains(text, "\nhostssl ") {
		t.Fatalf("pg_hba.conf has no host line:\n%s", b)
	}
	if err := os.WriteFile(hba, []byte(text[1:]), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "ALTER SYSTEM SET ssl = on"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		t.Fatal(err)
	}
	// The reload is asynchronous: wait until a new session sees it.
	for i := 0; ; i++ {
		c := pgtest.Connect(t, inst, "postgres")
		var on string
		c.QueryRow(ctx, "SHOW ssl").Scan(&on)
		c.Close(ctx)
		if on == "on" {
			break
		}
		if i == 50 {
			t.Fatal("ssl is not on after the reload")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return inst
}

// tlsDSN is the server's admin string over TCP, verifying it against the
// CA in caFile.
func tlsDSN(inst *provider.Instance, caFile string) string {
	q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {caFile}}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(inst.User, inst.Password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(inst.Port)), Path: "/postgres", RawQuery: q.Encode()}
	return u.String()
}

// TestExternalTLS: with sslmode=verify-full and the user's CA in the admin
// string, a run on the user's server succeeds with every session of its
// tenants encrypted (pg_stat_ssl, seen while it runs; the server refuses
// TCP without TLS anyway); with another CA, plan refuses the server,
// naming it and its variable, never the password.
func TestExternalTLS(t *testing.T) {
	ca := newCA(t, "tenantbench test CA")
	inst := tlsServer(t, ca)
	before := catalog(t, inst)
	tmp := workRoot(t)
	caFile := filepath.Join(tmp, "ca.crt")
	if err := os.WriteFile(caFile, ca.pem, 0o644); err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(tmp, "ext.yaml")
	os.WriteFile(specPath, []byte(externalSpec("database", "4s")), 0o644)
	dsn := tlsDSN(inst, caFile)

	cmd := externalCmd(tmp, dsn, "run", specPath, "--out", filepath.Join(tmp, "results"))
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	watch := pgtest.Connect(t, inst, "postgres")
	seen, plain := map[string]bool{}, map[string]bool{}
	var runErr error
	for waiting := true; waiting; {
		select {
		case runErr = <-done:
			waiting = false
		case <-time.After(200 * time.Millisecond):
			rows, err := watch.Query(context.Background(), `SELECT a.usename, s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
				WHERE a.usename LIKE 'r001\_%'`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var role string
				var ssl bool
				rows.Scan(&role, &ssl)
				seen[role] = true
				if !ssl {
					plain[role] = true
				}
			}
			rows.Close()
		}
	}
	if runErr != nil {
		t.Fatalf("run: %v\n%s", runErr, output.String())
	}
	rows := readCSV(t, filepath.Join(tmp, "results", "results.csv"))
	if len(rows) != 1 || rows[0]["status"] != "ok" {
		t.Fatalf("results.csv = %v, want one run ok\n%s", rows, output.String())
	}
	if len(seen) < 2 {
		t.Errorf("saw the sessions of %v while the run went, want both tenants' roles", slices.Sorted(mapKeys(seen)))
	}
	if len(plain) > 0 {
		t.Errorf("sessions without TLS: %v", slices.Sorted(mapKeys(plain)))
	}
	if after := catalog(t, inst); !slices.Equal(before, after) {
		t.Errorf("the server changed:\nbefore %v\nafter  %v", before, after)
	}

	// Another CA than the one that signed the server's certificate.
	other := filepath.Join(tmp, "other-ca.crt")
	if err := os.WriteFile(other, newCA(t, "another CA").pem, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := externalCmd(tmp, tlsDSN(inst, other), "plan", specPath).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("plan with another CA: %v, want status 2\n%s", err, b)
	}
	msg := string(b)
	for _, want := range []string{"server main", externalEnv, "verify-full", "certificate"} {
		if !strings.Contains(msg, want) {
			t.Errorf("plan's refusal does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, inst.Password) {
		t.Errorf("plan's refusal shows the password:\n%s", msg)
	}
	assertNoLeftovers(t, tmp)
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
