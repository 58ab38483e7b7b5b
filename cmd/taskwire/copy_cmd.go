package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/taskwire/taskwire/internal/dbcopy"
	"github.com/taskwire/taskwire/internal/telemetry"
	"github.com/taskwire/taskwire/node"
)

// copyUsage heads `taskwire copy -h`.
const copyUsage = `Usage: taskwire copy --from sqlite:PATH --to postgres://… [flags]

Copies the whole database of taskwire serve (every tenant, its signing keys
sealed as they are) into an empty PostgreSQL database, checks every table
(rows and a checksum) and says what to start next. Stop serve first: copy
refuses while serve runs on the data directory. The directory is left as it was.

`

// runCopy runs `taskwire copy`: the move from serve's SQLite database to
// PostgreSQL (internal/dbcopy), then what to start on it.
func runCopy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("taskwire copy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "serve's database: sqlite:<data dir>/taskwire.db, or its data directory (required)")
	to := fs.String("to", "", "an empty PostgreSQL database, e.g. postgres://taskwire@db/taskwire; it is migrated first (required)")
	publicURL := fs.String("public-url", env("TASKWIRE_PUBLIC_URL", ""), "the public URL serve used, for the commands printed after the copy: tokens are bound to it (env TASKWIRE_PUBLIC_URL; default serve's, http://127.0.0.1:8080)")
	verifyOnly := fs.Bool("verify-only", false, "compare the two databases again, table by table, and copy nothing")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), copyUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *from == "" || *to == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("name both databases: taskwire copy --from sqlite:<data dir>/taskwire.db --to postgres://…")
	}
	release, err := holdSource(*from)
	if err != nil {
		return err
	}
	defer release()
	var r *dbcopy.Report
	if *verifyOnly {
		r, err = dbcopy.Verify(ctx, *from, *to)
	} else {
		r, err = dbcopy.Copy(ctx, dbcopy.Config{From: *from, To: *to, Log: telemetry.NewLogger(stderr, slog.LevelInfo)})
	}
	if r != nil {
		r.Print(stdout)
	}
	if err != nil {
		return err
	}
	if !*verifyOnly {
		fmt.Fprintf(stdout, "\nCopied %d rows in %v; every table matches.\n", r.Rows(), r.Copied.Round(time.Millisecond))
		printNext(stdout, nextSteps{source: r.Source, db: redactDSN(*to), publicURL: *publicURL})
	}
	return nil
}

// holdSource refuses while serve runs on the source's data directory
// (what it wrote after the copy's snapshot would be missing from the
// copy), and keeps a serve from starting there until release.
func holdSource(from string) (release func(), err error) {
	path, err := dbcopy.DatabaseFile(from)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	url, release, err := node.LocalServer(dir)
	if err != nil {
		return nil, err
	}
	if url != "" {
		release()
		return nil, fmt.Errorf("taskwire serve is running on %s: stop it first, then copy (what it wrote during the copy would be missing from it)", dir)
	}
	return release, nil
}
