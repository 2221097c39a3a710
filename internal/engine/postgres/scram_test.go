package postgres_test

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tenantbench/tenantbench/internal/engine/postgres"
	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// knownVerifier was made by PostgreSQL 15.18 itself (ALTER ROLE ... PASSWORD
// 'tenantbench' with password_encryption scram-sha-256, then rolpassword
// from pg_authid): the verifier of a known password, salt and iteration
// count, which the client must compute bit for bit.
const (
	knownPassword = "tenantbench"
	knownVerifier = "SCRAM-SHA-256$4096:YlLVHCiRj0aMsnHj2DOP/Q==$tnl7CxLL6R5jyOjnwd4TNQIE8M02G7GDH7ULlGRqbtQ=:wQVRuirXo6hMG1wrDdcs02sgfNCdmbhZSqrbGJuvkMU="
)

// saltOf reads the iterations and salt of a stored verifier.
func saltOf(t *testing.T, v string) (int, []byte) {
	t.Helper()
	parts := strings.Split(v, "$")
	if len(parts) != 3 || parts[0] != "SCRAM-SHA-256" {
		t.Fatalf("not a SCRAM verifier: %q", v)
	}
	it, b64, ok := strings.Cut(parts[1], ":")
	n, err := strconv.Atoi(it)
	salt, err2 := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil || err2 != nil {
		t.Fatalf("bad iterations or salt in %q", v)
	}
	return n, salt
}

func TestScramVerifierKnown(t *testing.T) {
	n, salt := saltOf(t, knownVerifier)
	got, err := postgres.ScramVerifier(knownPassword, salt, n)
	if err != nil || got != knownVerifier {
		t.Errorf("ScramVerifier = %q, %v; PostgreSQL's %q", got, err, knownVerifier)
	}
	if _, err := postgres.ScramVerifier(knownPassword, salt, 0); err == nil {
		t.Error("0 iterations accepted")
	}
}

// TestScramVerifierMatchesServer: for passwords set in plain text, which
// the server hashes itself, the client's verifier with the server's salt
// and iterations is the one the server stored.
func TestScramVerifierMatchesServer(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Start(t)
	conn := pgtest.Connect(t, inst, "postgres")
	for i, pw := range []string{knownPassword, `it's a \ back-slash`, " spaced out ", "p\u00e4ssw\u00f6rd"} {
		role := "r" + strconv.Itoa(i)
		// Plain text here on purpose: the server computes the verifier.
		stmt := "SET password_encryption = 'scram-sha-256'; CREATE ROLE " + role + " LOGIN PASSWORD " +
			"'" + strings.ReplaceAll(pw, "'", "''") + "'"
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
		var stored string
		if err := conn.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		n, salt := saltOf(t, stored)
		if got, err := postgres.ScramVerifier(pw, salt, n); err != nil || got != stored {
			t.Errorf("password %q: client %q (%v), server %q", pw, got, err, stored)
		}
	}
}

// TestLoginStatementsHoldNoPassword: CreateLogin and SetPassword send a
// verifier, never the password; the server stores it as it is, with a
// fresh 16-byte salt and 4096 iterations, and the password opens a
// session over TCP with SCRAM while the one it replaced does not.
func TestLoginStatementsHoldNoPassword(t *testing.T) {
	ctx := context.Background()
	inst := pgtest.Start(t)
	conn := pgtest.Connect(t, inst, "postgres")
	e := postgres.Engine{}
	const first, second = "first-0123456789abcdef", "second-0123456789abcdef"
	stored := func() string {
		var v string
		if err := conn.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = 'tenant'").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	login := func(pw string) error {
		c, err := pgx.Connect(ctx, inst.DSN("tcp", "postgres", "tenant", pw))
		if err == nil {
			c.Close(ctx)
		}
		return err
	}
	var seen []string
	for _, step := range []struct {
		pw    string
		stmts []string
	}{{first, e.CreateLogin("tenant", first)}, {second, e.SetPassword("tenant", second)}} {
		for _, st := range step.stmts {
			if strings.Contains(st, step.pw) {
				t.Errorf("statement holds the password: %s", st)
			}
			if _, err := conn.Exec(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		v := stored()
		if !strings.Contains(strings.Join(step.stmts, ";"), v) {
			t.Errorf("stored %q is not the verifier sent in %q", v, step.stmts)
		}
		n, salt := saltOf(t, v)
		if n != 4096 || len(salt) != 16 {
			t.Errorf("%d iterations, %d-byte salt", n, len(salt))
		}
		for _, s := range seen {
			if s == v {
				t.Error("the same verifier twice: the salt is not fresh")
			}
		}
		seen = append(seen, v)
		if err := login(step.pw); err != nil {
			t.Errorf("password does not open a session: %v", err)
		}
	}
	if err := login(first); err == nil {
		t.Error("the replaced password still opens a session")
	}
}
