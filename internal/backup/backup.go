// Package backup makes and restores backups of `taskwire serve`'s data
// directory, the embedded default: its SQLite database, copied while the
// server runs and writes, and the key files without which that database
// is of no use. A backup is one archive file (internal/archive) of the
// format "taskwire-backup". A PostgreSQL deployment is backed up with
// PostgreSQL's own tools instead (docs/operations.md).
//
// What a data directory holds, file by file, and what a backup does with
// it:
//
//   - taskwire.db: the database. Copied with SQLite's VACUUM INTO from a
//     connection of its own, a consistent snapshot taken while the server
//     goes on writing (a copy of the file could catch a page half-written
//     and miss what is still in the write-ahead log).
//   - taskwire.db-wal, taskwire.db-shm: SQLite's write-ahead log and its
//     index; the snapshot holds their pages, so they are left out.
//   - signing.key: the root key. The signing keys in the database are
//     sealed under it: without it no token verifies and none can be
//     minted. Always in a backup (from --signing-key when it lives
//     elsewhere).
//   - operator.secret: the platform operators' secret, kept so that
//     whatever uses it goes on working after a restore; a data directory
//     without one (--operator-secret-file elsewhere) is backed up without.
//   - reserve: 8 MiB of zeros kept for a full disk (store.Reserve), written
//     again on every start: never in a backup.
//   - serve.lock, admin.url: the running serve's lock and address, which
//     mean nothing to another process: never in a backup.
package backup

import (
	"fmt"
	"io"
	"time"
)

// Format names the archive format of a backup; FormatVersion is the
// version this build writes and the newest it restores.
const (
	Format        = "taskwire-backup"
	FormatVersion = 1
)

// The entries of a backup, named as the files of a data directory.
const (
	DatabaseName       = "taskwire.db"
	SigningKeyName     = "signing.key"
	OperatorSecretName = "operator.secret"
)

// entries are the files a backup may hold, in the order they are written
// and restored, and whether every backup holds them.
var entries = []struct {
	name     string
	required bool
}{
	{SigningKeyName, true},
	{OperatorSecretName, false},
	{DatabaseName, true},
}

// Meta is what a backup's manifest records besides its entries: what a
// restore checks before it writes anything, and what it tells whoever
// starts the restored server.
type Meta struct {
	// SchemaVersion is the schema version the database records
	// (store.SchemaVersion of the build that last migrated it): a build
	// with an older one cannot restore it.
	SchemaVersion int `json:"schema_version"`
	// Taskwire is the build that made the backup.
	Taskwire string `json:"taskwire"`
	// PublicURL is the public URL the server's live tokens were issued
	// for, if any: tokens are bound to it, so the restored server must be
	// started with it for them to work.
	PublicURL string `json:"public_url,omitempty"`
}

// progress prints a line of what a long step did, for a user of a big
// database not to be left staring; w may be nil.
func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// size formats a size for progress lines.
func size(n int64) string {
	switch {
	case n < 1e6:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// seconds formats a duration for progress lines.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}
