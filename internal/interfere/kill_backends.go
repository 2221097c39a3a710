package interfere

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// killBackends ends the sessions of the target's tenants
// (pg_terminate_backend), as an operator or a pooler recycling them
// would: the server stays up, the clients reconnect.
type killBackends struct {
	fault
	recoveryOnly
}

func init() { register(killBackends{}) }

func (killBackends) Name() string { return "kill-backends" }
func (killBackends) sessions()    {}

// terminateSQL ends the sessions of the given roles (PostgreSQL's SQL:
// the local provider's servers).
const terminateSQL = `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
FROM pg_stat_activity WHERE usename = ANY($1) AND pid <> pg_backend_pid()`

func (killBackends) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	var roles []string
	for _, i := range o.Target.Tenants {
		roles = append(roles, o.env.Tenants[i].Role)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, o.Target.Server.AdminDSN("postgres"))
	if err != nil {
		return Observed{}, fmt.Errorf("connecting to %s as its superuser: %w", o.Target.Server.Name, err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(cctx, terminateSQL, roles).Scan(&n); err != nil {
		return Observed{}, err
	}
	return Observed{Down: time.Now(), Note: fmt.Sprintf("%d sessions terminated", n)}, nil
}
