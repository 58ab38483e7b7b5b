package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/store"
)

// RestoreConfig is what Restore restores, and where.
type RestoreConfig struct {
	From    string // the backup; required
	DataDir string // the new data directory: missing or empty; required
	// Progress, if not nil, is told what each long step did.
	Progress io.Writer
}

// Validate refuses a RestoreConfig Restore cannot work from.
func (c RestoreConfig) Validate() error {
	switch {
	case c.From == "":
		return errors.New("backup: RestoreConfig.From is empty")
	case c.DataDir == "":
		return errors.New("backup: RestoreConfig.DataDir is empty")
	}
	return nil
}

// Restored is what a backup restored held.
type Restored struct {
	Manifest archive.Manifest
	Meta     Meta
}

// ErrNewerSchema is Restore's error for a backup of a database a newer
// build migrated: this build's server would refuse to start on it.
var ErrNewerSchema = errors.New("the backup's database is newer than this build")

// Restore writes the backup cfg.From into the new data directory
// cfg.DataDir, created private (0700) with private files (0600), for
// `taskwire serve --data` to start on; a server of this build migrates an
// older schema on start. It refuses, before it writes anything, a
// directory that holds files, a backup that is not whole or was changed
// (*archive.DamagedError), and one of a newer format or schema; a failure
// later (an entry found damaged while written, a database failing its
// quick check) removes what it wrote.
func Restore(ctx context.Context, cfg RestoreConfig) (Restored, error) {
	if err := cfg.Validate(); err != nil {
		return Restored{}, err
	}
	if err := checkTarget(cfg.DataDir); err != nil {
		return Restored{}, err
	}
	r, err := archive.OpenFile(cfg.From, Format)
	if errors.Is(err, os.ErrNotExist) {
		return Restored{}, fmt.Errorf("no backup at %s: --from must name a file taskwire backup wrote", cfg.From)
	}
	if err != nil {
		return Restored{}, err
	}
	defer r.Close()
	got := Restored{Manifest: r.Manifest()}
	if got.Meta, err = checkManifest(cfg.From, got.Manifest); err != nil {
		return Restored{}, err
	}
	undo, err := makeTarget(cfg.DataDir)
	if err != nil {
		return Restored{}, err
	}
	if err := extract(ctx, r, cfg); err != nil {
		undo()
		return Restored{}, err
	}
	return got, nil
}

// checkManifest refuses a backup this build cannot restore, and returns
// its Meta.
func checkManifest(path string, m archive.Manifest) (Meta, error) {
	if m.Version > FormatVersion {
		return Meta{}, fmt.Errorf("%s is a backup of format version %d, newer than this build's (%d): restore it with a newer taskwire", path, m.Version, FormatVersion)
	}
	var meta Meta
	if err := json.Unmarshal(m.Meta, &meta); err != nil || meta.SchemaVersion <= 0 {
		return Meta{}, &archive.DamagedError{Path: path, Why: "its manifest does not say which schema version its database is at"}
	}
	if meta.SchemaVersion > store.SchemaVersion {
		return Meta{}, fmt.Errorf("%w: %s holds a database at schema version %d, and this taskwire knows versions up to %d: restore it with a newer taskwire (the backup was made by %s)",
			ErrNewerSchema, path, meta.SchemaVersion, store.SchemaVersion, meta.Taskwire)
	}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.name] = true
		if _, ok := m.Entry(e.name); e.required && !ok {
			return Meta{}, &archive.DamagedError{Path: path, Why: "it holds no " + e.name}
		}
	}
	for _, e := range m.Entries {
		if !known[e.Name] {
			return Meta{}, fmt.Errorf("%s holds %s, which this taskwire does not know how to restore: restore it with a newer taskwire (the backup was made by %s)", path, e.Name, meta.Taskwire)
		}
	}
	return meta, nil
}

// partialSuffix marks the database while it is restored.
const partialSuffix = ".restoring"

// extract writes the backup's entries into the data directory, the
// database last and under its own name only once it passed SQLite's
// quick check: a directory left by a restore that was killed has no
// database a server could start on as if it were whole.
func extract(ctx context.Context, r *archive.Reader, cfg RestoreConfig) error {
	m := r.Manifest()
	for _, e := range entries {
		if _, ok := m.Entry(e.name); !ok || e.name == DatabaseName {
			continue
		}
		if _, err := writeEntry(ctx, r, e.name, filepath.Join(cfg.DataDir, e.name)); err != nil {
			return err
		}
	}
	start := time.Now()
	dst := filepath.Join(cfg.DataDir, DatabaseName)
	partial := dst + partialSuffix
	n, err := writeEntry(ctx, r, DatabaseName, partial)
	if err != nil {
		return err
	}
	progress(cfg.Progress, "restored %s: %s in %s, matching the backup's checksum", DatabaseName, size(n), seconds(time.Since(start)))
	start = time.Now()
	if err := checkRestored(ctx, partial); err != nil {
		return err
	}
	progress(cfg.Progress, "quick check of the restored database: ok in %s", seconds(time.Since(start)))
	return os.Rename(partial, dst)
}

// checkRestored runs SQLite's quick check on the database restored at
// path (see quickCheck) and compares the schema version it records with this build's.
func checkRestored(ctx context.Context, path string) error {
	facts, err := inspect(ctx, path, quickCheck, false)
	if err != nil {
		return err
	}
	if facts.version > store.SchemaVersion {
		return fmt.Errorf("%w: the restored database records schema version %d, and this taskwire knows versions up to %d: restore it with a newer taskwire", ErrNewerSchema, facts.version, store.SchemaVersion)
	}
	return nil
}

// writeEntry streams the entry name into a new private file at path,
// synced to disk, and returns its size. The archive's reader fails at the
// entry's end when what it read differs from the manifest.
func writeEntry(ctx context.Context, r *archive.Reader, name, path string) (int64, error) {
	src, err := r.Open(name)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, ctxReader{ctx, src})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
