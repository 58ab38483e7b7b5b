package store

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unreachable reports whether err says that the database could not be
// reached or dropped the connection: it is down, restarting, shutting
// down, or the network to it failed. Such a failure is an outage, not a
// bug: the call may be retried as it was once the database answers. It is
// the one place that tells them apart, from the errors themselves
// (errors.Is/As), never their text.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return unreachableCode(pe.Code)
	}
	var ce *pgconn.ConnectError
	var oe *net.OpError
	switch {
	case errors.As(err, &ce):
		return true // no connection could be opened (refused, timed out, starting up)
	case errors.Is(err, pgconn.ErrConnClosed):
		return true // pgx found the connection closed under it (a transaction's next statement, say)
	case errors.Is(err, driver.ErrBadConn):
		return true // database/sql gave up on connections that died
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true // the server closed the connection mid-exchange
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return true
	case errors.As(err, &oe):
		return true // dialling, reading or writing the connection failed or timed out
	}
	return false
}

// unreachableCode reports whether a SQLSTATE is the server's own word
// that it cannot serve the connection: class 08 (connection exception),
// or 57P01-57P03 (admin_shutdown, crash_shutdown, cannot_connect_now: a
// server shutting down, recovering from a crash, or still starting up).
func unreachableCode(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}
