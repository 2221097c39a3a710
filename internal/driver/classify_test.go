package driver

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tenantbench/tenantbench/internal/pgtest"
)

// TestClassify: a server's error is classed by its engine (the SQLSTATE
// class), anything else is a lost connection.
func TestClassify(t *testing.T) {
	if got := Classify(errors.New("read: connection reset by peer")); got != "connection" {
		t.Errorf("a network error is %q, want connection", got)
	}
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	inst := pgtest.Start(t)
	conn := pgtest.Connect(t, inst, "postgres")
	_, err := conn.Exec(context.Background(), "SELECT 1/0")
	if got := Classify(fmt.Errorf("txn: %w", err)); got != "22" { // data_exception: division_by_zero
		t.Errorf("division by zero (%v) is %q, want 22", err, got)
	}
}
