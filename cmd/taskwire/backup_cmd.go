package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/taskwire/taskwire/internal/backup"
	"github.com/taskwire/taskwire/internal/clientconfig"
)

// runBackup runs `taskwire backup`: a backup of serve's data directory,
// taken while it serves (internal/backup).
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg backup.Config
	fs := flag.NewFlagSet("taskwire backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DataDir, "data", env("TASKWIRE_DATA", defaultDataDir), "data directory of taskwire serve to back up, while it runs or not (env TASKWIRE_DATA)")
	fs.StringVar(&cfg.Out, "out", "", "the backup file to write, which must not exist, e.g. taskwire-$(date +%F).zip (required)")
	fs.StringVar(&cfg.SigningKey, "signing-key", env("TASKWIRE_SIGNING_KEY", ""), "the root signing key file serve uses, put in the backup (env TASKWIRE_SIGNING_KEY; default <data>/signing.key)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if cfg.Out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("name the backup file: taskwire backup --out FILE, e.g. --out taskwire-$(date +%F).zip")
	}
	cfg.Build, cfg.Progress = version, stdout
	m, err := backup.Create(ctx, cfg)
	if err != nil {
		return err
	}
	names := make([]string, len(m.Entries))
	for i, e := range m.Entries {
		names[i] = e.Name
	}
	fmt.Fprintf(stdout, `
Backed up %s into %s: %s.
It holds the root signing key: keep it as secret as the data directory (it is mode 0600).
Restore it with:
  taskwire restore --from %s --data NEWDIR
`, cfg.DataDir, cfg.Out, strings.Join(names, ", "), clientconfig.ShellQuote(cfg.Out))
	return nil
}
