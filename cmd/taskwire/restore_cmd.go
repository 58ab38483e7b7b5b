package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/taskwire/taskwire/internal/backup"
	"github.com/taskwire/taskwire/internal/clientconfig"
	"github.com/taskwire/taskwire/internal/store"
)

// runRestore runs `taskwire restore`: a backup written into a new data
// directory (internal/backup), and how to start serve on it.
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg backup.RestoreConfig
	fs := flag.NewFlagSet("taskwire restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.From, "from", "", "the backup file taskwire backup wrote (required)")
	fs.StringVar(&cfg.DataDir, "data", env("TASKWIRE_DATA", ""), "the new data directory to restore into: one that does not exist, or is empty (env TASKWIRE_DATA; required)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if cfg.From == "" || cfg.DataDir == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("name the backup and the new data directory: taskwire restore --from FILE --data NEWDIR")
	}
	cfg.Progress = stdout
	got, err := backup.Restore(ctx, cfg)
	if err != nil {
		return err
	}
	printRestored(stdout, cfg.DataDir, got)
	return nil
}

// printRestored tells what was restored and how to start serve on it:
// with the public URL its tokens were issued for, which they are bound to.
func printRestored(out io.Writer, dir string, got backup.Restored) {
	m := got.Meta
	fmt.Fprintf(out, "\nRestored the backup taken %s (taskwire %s, schema version %d) into %s.\n",
		got.Manifest.Created.Format("2006-01-02 15:04:05 MST"), m.Taskwire, m.SchemaVersion, dir)
	if m.SchemaVersion < store.SchemaVersion {
		fmt.Fprintf(out, "Its schema is migrated from version %d to %d when serve starts on it.\n", m.SchemaVersion, store.SchemaVersion)
	}
	start := "taskwire serve --data " + clientconfig.ShellQuote(dir)
	if m.PublicURL == "" {
		fmt.Fprintf(out, "Start it with the --addr and --public-url the server had (tokens are bound to its URL):\n  %s\n", start)
		return
	}
	fmt.Fprintf(out, `Its tokens were issued for %s and work only there: start it with that public URL
(and an --addr it reaches), as the server had:
  %s --public-url %s
`, m.PublicURL, start, clientconfig.ShellQuote(m.PublicURL))
}
