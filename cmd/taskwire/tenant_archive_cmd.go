package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenantarchive"
	"github.com/taskwire/taskwire/node"
)

const exportUsage = `usage: taskwire export --tenant SLUG --out FILE [--data DIR | --db URL]

Writes the tenant's boards, members, tasks, links, comments, context notes, work
items, history and audit log to FILE, a new archive another Taskwire (SQLite or
PostgreSQL) loads with taskwire import. No tokens, keys, passwords or sign-in
accounts are written. The tenant may be in use meanwhile: the archive is the
tenant at one instant.

`

const importUsage = `usage: taskwire import --from FILE [--tenant NEWSLUG] [--data DIR | --db URL]

Loads an archive taskwire export wrote as a new tenant: the archive's slug, or
NEWSLUG. The whole archive is checked first, and loaded in one transaction: a
damaged archive changes nothing. Importing the same archive again changes
nothing. Members get no sign-in accounts and no tokens: give them new ones
(taskwire token create, taskwire admin signin-link).

`

// archiveFlags are the flags export and import share: where the
// database is.
type archiveFlags struct {
	data, db string
}

func (f *archiveFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.data, "data", env("TASKWIRE_DATA", defaultDataDir), "data directory whose SQLite database to use (env TASKWIRE_DATA)")
	fs.StringVar(&f.db, "db", env("TASKWIRE_DB", ""), "database: sqlite:<path> or postgres://… (env TASKWIRE_DB; default sqlite in the data directory)")
}

// dsn is the database the flags name, and whether it is the data
// directory's own.
func (f *archiveFlags) dsn() (string, bool) {
	if f.db != "" {
		return f.db, false
	}
	return (&config{DataDir: f.data}).ownDB(), true
}

// archiveFlagSet is the flag set of export or import, printing usage.
func archiveFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("taskwire "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// runExport runs `taskwire export`.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db archiveFlags
	fs := archiveFlagSet("export", exportUsage, stderr)
	db.declare(fs)
	tenant := fs.String("tenant", "", "slug of the tenant to export (required)")
	out := fs.String("out", "", "the archive to write; it must not exist (required)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *tenant == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("name the tenant and the file: taskwire export --tenant SLUG --out FILE")
	}
	dsn, own := db.dsn()
	if own && !hasDatabase(db.data) {
		return errNoData(db.data)
	}
	client, err := store.Open(ctx, dsn, store.Logger(commandLogger(stderr)))
	if err != nil {
		return err
	}
	defer client.Close()
	start := time.Now()
	m, err := tenantarchive.ExportFile(ctx, client, *tenant, *out)
	if err != nil {
		return tenantFlagHint(err)
	}
	fmt.Fprintf(stdout, "Exported tenant %s to %s in %s: %s.\n", *tenant, *out, since(start), recordCounts(func(name string) int64 {
		e, _ := m.Entry(name)
		return e.Records
	}))
	return nil
}

// runImport runs `taskwire import`.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var db archiveFlags
	fs := archiveFlagSet("import", importUsage, stderr)
	db.declare(fs)
	from := fs.String("from", "", "the archive taskwire export wrote (required)")
	tenant := fs.String("tenant", "", "slug of the new tenant (default: the archive's)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *from == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("name the archive: taskwire import --from FILE [--tenant NEWSLUG]")
	}
	r, err := archive.OpenFile(*from, tenantarchive.Format)
	if err != nil {
		return err
	}
	defer r.Close()
	dsn, own := db.dsn()
	if own {
		release, err := holdDataDir(db.data)
		if err != nil {
			return err
		}
		defer release()
	}
	client, err := store.Open(ctx, dsn, store.Logger(commandLogger(stderr)))
	if err != nil {
		return err
	}
	defer client.Close()
	return importArchive(ctx, client, r, *from, *tenant, stdout)
}

func importArchive(ctx context.Context, client *ent.Client, r *archive.Reader, from, tenant string, stdout io.Writer) error {
	start := time.Now()
	rep, err := tenantarchive.Import(ctx, client, r, tenantarchive.Options{Tenant: tenant})
	if err != nil {
		return err
	}
	if rep.AlreadyImported {
		fmt.Fprintf(stdout, "Tenant %s was imported from this archive (export %s) already: nothing changed.\n", rep.Tenant, rep.ExportID)
		return nil
	}
	fmt.Fprintf(stdout, "Imported %s as tenant %s in %s: %s.\n", from, rep.Tenant, since(start),
		recordCounts(func(name string) int64 { return rep.Records[name] }))
	fmt.Fprintf(stdout, "Its members have no tokens or sign-in accounts here yet: mint them tokens "+
		"(taskwire token create --tenant %s --member HANDLE) or sign-in links (taskwire admin signin-link --tenant %s --member HANDLE).\n",
		rep.Tenant, rep.Tenant)
	return nil
}

// holdDataDir keeps serve from starting on dir while an import writes to
// its database, and refuses when one runs: the import holds SQLite's
// write lock while it loads, which would stall the server's writes.
func holdDataDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	url, release, err := node.LocalServer(dir)
	if err != nil {
		return nil, err
	}
	if url != "" {
		release()
		return nil, fmt.Errorf("taskwire serve is running on %s: stop it, import, then start it again (an import holds the database's write lock while it loads)", dir)
	}
	return release, nil
}

// entryNames are the words a summary counts each entry's records in: one
// and many.
var entryNames = map[string][2]string{
	tenantarchive.MembersEntry: {"member", "members"}, tenantarchive.BoardsEntry: {"board", "boards"},
	tenantarchive.TasksEntry: {"task", "tasks"}, tenantarchive.LinksEntry: {"link", "links"},
	tenantarchive.CommentsEntry: {"comment", "comments"}, tenantarchive.ContextNotesEntry: {"context note", "context notes"},
	tenantarchive.WorkItemsEntry: {"work item", "work items"}, tenantarchive.ActivityEntry: {"history entry", "history entries"},
	tenantarchive.AuditEventsEntry: {"audit event", "audit events"},
}

// recordCounts says how many records of each kind count returns.
func recordCounts(count func(entry string) int64) string {
	parts := make([]string, 0, len(tenantarchive.Entries))
	for _, name := range tenantarchive.Entries {
		n, word := count(name), entryNames[name][1]
		if n == 1 {
			word = entryNames[name][0]
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, word))
	}
	return strings.Join(parts, ", ")
}

func since(start time.Time) string {
	return time.Since(start).Round(time.Millisecond).String()
}

// tenantFlagHint says which flag to check when the tenant is not found.
func tenantFlagHint(err error) error {
	if errors.Is(err, archive.ErrExists) {
		return fmt.Errorf("%w (--out)", err)
	}
	if domainerr.KindOf(err) == domainerr.NotFound {
		return fmt.Errorf("%s: check --tenant", domainerr.Message(err))
	}
	return err
}
