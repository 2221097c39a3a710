// Package rawsock is the two system calls the clients' hot paths make on
// their sockets themselves (workload.Wire for PostgreSQL, engine/mariadb's
// sendOnRead for MariaDB): one place, below both, for what each would
// otherwise repeat.
package rawsock
