package postgres

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"golang.org/x/text/secure/precis"
)

// A password reaches the server as a SCRAM-SHA-256 verifier computed here,
// never as text: the statement that sets it may be logged
// (log_statement), and a verifier in the log does not let anyone log in.
// It is what psql's \password sends (libpq's PQencryptPasswordConn), in
// the form PostgreSQL stores in pg_authid.rolpassword (RFC 5802, RFC 7677;
// PostgreSQL's "Password Authentication"):
//
//	SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
//
// in standard base64. The server takes a string of this form as the
// verifier itself, whatever password_encryption says.

// scramIterations is PostgreSQL's default scram_iterations.
const scramIterations = 4096

// scramSaltLen is the salt length, in bytes, PostgreSQL and libpq use.
const scramSaltLen = 16

// scramVerifier is a verifier of password with a fresh random salt.
func scramVerifier(password string) string {
	salt := make([]byte, scramSaltLen)
	rand.Read(salt) // never fails: it crashes the program rather than return an error
	v, err := ScramVerifier(password, salt, scramIterations)
	if err != nil {
		// Only an iteration count below 1 fails, and this one is fixed.
		panic(err)
	}
	return v
}

// ScramVerifier is the SCRAM-SHA-256 verifier of password for salt and
// iterations, as PostgreSQL computes and stores it.
func ScramVerifier(password string, salt []byte, iterations int) (string, error) {
	if iterations < 1 {
		return "", fmt.Errorf("scram: %d iterations", iterations)
	}
	salted, err := pbkdf2.Key(sha256.New, scramPassword(password), salt, iterations, sha256.Size)
	if err != nil {
		return "", err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(storedKey[:]), b64(serverKey)), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// scramPassword is the password as the client that logs in with it hashes
// it. An ASCII password, which is all tenantbench generates, is used as
// it is, by PostgreSQL (pg_saslprep's ASCII shortcut), libpq and pgx
// alike. Any other is normalized the way pgx, the tenants' client, does
// (PRECIS OpaqueString, the raw bytes where that refuses it); libpq's
// SASLprep may differ for compatibility characters.
func scramPassword(password string) string {
	for i := 0; i < len(password); i++ {
		if password[i] >= 0x80 {
			if p, err := precis.OpaqueString.String(password); err == nil {
				return p
			}
			return password
		}
	}
	return password
}
