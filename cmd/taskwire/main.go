// Command taskwire runs the Taskwire task board.
//
//	taskwire serve                      front door + worker + NATS + SQLite in one process
//	taskwire frontdoor | worker         the two tiers of a scaled-out deployment, apart
//	taskwire migrate                    the schema migration, once before a rollout
//	taskwire copy                       serve's SQLite database into PostgreSQL
//	taskwire backup | restore           a backup of serve's data directory, and back
//	taskwire token create --member H    mint a token for member H
//	taskwire token list | revoke        list or revoke tokens
//	taskwire export | import            a tenant to an archive, an archive to a new tenant
//	taskwire admin …                    tenants, members and tokens through the admin API
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	tuneGC(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	code := exitCode(err)
	if code == 1 {
		fmt.Fprintln(os.Stderr, "taskwire:", err)
	}
	os.Exit(code)
}

const usage = `Taskwire: a task board for people and AI assistants, served over MCP.

Usage:
  taskwire serve [flags]                 run Taskwire on one machine (SQLite + in-process NATS)
  taskwire frontdoor --workers ... [flags]
                                         run a front door of a deployment: the HTTP edge
  taskwire worker --db URL [flags]       run a worker of a deployment: the gRPC server
  taskwire migrate --db URL              migrate the database schema, before a rollout
  taskwire copy --from sqlite:PATH --to postgres://...
                                         copy serve's whole database into an empty PostgreSQL
                                         database, check it, and say what to start next
  taskwire backup --out FILE [--data DIR]
                                         back up serve's data directory (SQLite database and
                                         key files) into one file, while serve runs
  taskwire restore --from FILE --data NEWDIR
                                         restore a backup into a new data directory
  taskwire token create --member HANDLE [--admin]
                                         mint an MCP token for a member, or an admin token
  taskwire token list [--member HANDLE]  list tokens (never the tokens themselves)
  taskwire token revoke JTI | --member HANDLE
                                         revoke one token, or all of a member's
                                         (token commands go through the serve running on
                                         --data, or --url; else they work on the database)
  taskwire export --tenant SLUG --out FILE
                                         write a tenant to a portable archive
  taskwire import --from FILE [--tenant NEWSLUG]
                                         load an archive as a new tenant
                                         (export and import work on --data's database, or --db)
  taskwire admin <tenants|members|boards|tokens|keys> <command>
                                         manage tenants, members, boards, tokens and signing
                                         keys of a running server through its admin API

Run "taskwire serve --help" (or frontdoor, worker, migrate, copy, backup, restore, export,
import) or "taskwire token create --help" (or list, revoke) for their flags, and
"taskwire admin --help" for the admin commands.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "frontdoor":
		return runFrontdoor(ctx, args[1:], stdout, stderr)
	case "worker":
		return runWorker(ctx, args[1:], stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args[1:], stdout, stderr)
	case "copy":
		return runCopy(ctx, args[1:], stdout, stderr)
	case "backup":
		return runBackup(ctx, args[1:], stdout, stderr)
	case "restore":
		return runRestore(ctx, args[1:], stdout, stderr)
	case "token":
		return runToken(ctx, args[1:], stdout, stderr)
	case "admin":
		return runAdmin(ctx, args[1:], stdout, stderr)
	case "export":
		return runExport(ctx, args[1:], stdout, stderr)
	case "import":
		return runImport(ctx, args[1:], stdout, stderr)
	}
	if isHelp(args[0]) {
		return showHelp(stdout, usage)
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
	return flag.ErrHelp
}
