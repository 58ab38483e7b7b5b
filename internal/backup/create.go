package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/taskwire/taskwire/internal/archive"
)

// Config is what Create backs up, and where.
type Config struct {
	DataDir string // the data directory of taskwire serve; required
	// SigningKey is the root key's file; "": DataDir's signing.key.
	SigningKey string
	Out        string // the archive to write, which must not exist; required
	Build      string // the Taskwire build making the backup, recorded in it
	// Progress, if not nil, is told what each long step did.
	Progress io.Writer
}

// Validate refuses a Config Create cannot work from.
func (c Config) Validate() error {
	switch {
	case c.DataDir == "":
		return errors.New("backup: Config.DataDir is empty")
	case c.Out == "":
		return errors.New("backup: Config.Out is empty")
	}
	return nil
}

func (c Config) signingKey() string {
	if c.SigningKey != "" {
		return c.SigningKey
	}
	return filepath.Join(c.DataDir, SigningKeyName)
}

// Create writes a backup of the data directory to cfg.Out while the
// server may go on serving it: a snapshot of the database (see snapshot)
// into a private temporary file beside the archive, removed after, then
// checked with SQLite's integrity check, then the archive with it and the
// key files. The archive is private to its owner (0600) and appears only
// once whole.
func Create(ctx context.Context, cfg Config) (archive.Manifest, error) {
	if err := cfg.Validate(); err != nil {
		return archive.Manifest{}, err
	}
	live := filepath.Join(cfg.DataDir, DatabaseName)
	if err := checkSources(cfg, live); err != nil {
		return archive.Manifest{}, err
	}
	progress(cfg.Progress, "backing up %s: %s takes %s on disk", cfg.DataDir, DatabaseName, size(onDisk(live)))
	tmp, err := tempSnapshot(cfg.Out)
	if err != nil {
		return archive.Manifest{}, err
	}
	defer removeDB(tmp)
	facts, err := takeSnapshot(ctx, cfg, live, tmp)
	if err != nil {
		return archive.Manifest{}, err
	}
	meta := Meta{SchemaVersion: facts.version, Taskwire: cfg.Build, PublicURL: facts.publicURL}
	start := time.Now()
	m, err := archive.WriteFile(cfg.Out, Format, FormatVersion, func(w *archive.Writer) (any, error) {
		return meta, fill(ctx, w, cfg, tmp)
	})
	if err != nil {
		return archive.Manifest{}, err
	}
	if fi, err := os.Stat(cfg.Out); err == nil {
		progress(cfg.Progress, "wrote %s: %s in %s", cfg.Out, size(fi.Size()), seconds(time.Since(start)))
	}
	return m, nil
}

// checkSources refuses, before any long work, an archive name that is
// taken (archive.WriteFile would refuse it only at the end) and a data
// directory without a database or a root key.
func checkSources(cfg Config, live string) error {
	if _, err := os.Lstat(cfg.Out); err == nil {
		return outExists(cfg.Out)
	}
	if fi, err := os.Stat(live); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("no Taskwire database in %s (no %s there): --data must name the data directory taskwire serve uses, its --data (default ./taskwire-data); "+
			"a deployment on PostgreSQL is backed up with PostgreSQL's tools (pg_dump)", cfg.DataDir, DatabaseName)
	}
	if _, err := os.Stat(cfg.signingKey()); err != nil {
		return fmt.Errorf("the root signing key %s cannot be read (%w): without it the database is of no use; pass --signing-key with the file taskwire serve uses", cfg.signingKey(), err)
	}
	return nil
}

// onDisk is the size of the SQLite database at path with its
// write-ahead log, which a snapshot reads too.
func onDisk(path string) int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// tempSnapshot makes the empty, private file the snapshot is written to,
// in the archive's directory: the room it takes is then not taken from
// the disk of the live database, which needs it to go on serving.
func tempSnapshot(out string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.snapshot")
	if err != nil {
		return "", fmt.Errorf("cannot write beside %s: %w", out, err)
	}
	return f.Name(), f.Close() // CreateTemp's mode is 0600
}

// takeSnapshot snapshots live into tmp and checks the copy.
func takeSnapshot(ctx context.Context, cfg Config, live, tmp string) (snapshotFacts, error) {
	start := time.Now()
	if err := snapshot(ctx, live, tmp); err != nil {
		return snapshotFacts{}, err
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		return snapshotFacts{}, err
	}
	progress(cfg.Progress, "snapshot of %s: %s in %s", DatabaseName, size(fi.Size()), seconds(time.Since(start)))
	start = time.Now()
	facts, err := inspect(ctx, tmp, fullCheck, true)
	if err != nil {
		return snapshotFacts{}, err
	}
	if facts.version == 0 {
		return snapshotFacts{}, fmt.Errorf("the database in %s records no schema version, so it is not one taskwire serve made: --data must name the data directory taskwire serve uses", cfg.DataDir)
	}
	progress(cfg.Progress, "integrity check of the snapshot: ok in %s (schema version %d)", seconds(time.Since(start)), facts.version)
	return facts, nil
}

// fill writes the backup's entries: the key files, then the snapshot.
func fill(ctx context.Context, w *archive.Writer, cfg Config, snapshot string) error {
	sources := map[string]string{
		SigningKeyName:     cfg.signingKey(),
		OperatorSecretName: filepath.Join(cfg.DataDir, OperatorSecretName),
		DatabaseName:       snapshot,
	}
	for _, e := range entries {
		err := addFile(ctx, w, e.name, sources[e.name])
		if errors.Is(err, os.ErrNotExist) && !e.required {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// addFile streams the file at path into the entry name.
func addFile(ctx context.Context, w *archive.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dst, err := w.Create(name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, ctxReader{ctx, f}); err != nil {
		return fmt.Errorf("write %s into the backup: %w", path, err)
	}
	return nil
}

// outExists is Create's error for an archive name that is taken: the
// sentence a user reads, and archive.ErrExists to errors.Is, as
// archive.WriteFile's own.
type outExists string

func (o outExists) Error() string {
	return string(o) + " already exists: choose another name for the backup, or remove that file first"
}

func (o outExists) Is(target error) bool { return target == archive.ErrExists }
