package backup_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/backup"
	"github.com/taskwire/taskwire/internal/caller/authn"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// dataDir makes a data directory as serve leaves it: a migrated database
// holding the first tenant, the root key, the operator secret and the
// reserve.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	reserve := store.NewReserve(log)
	t.Cleanup(reserve.Close)
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(dir, backup.DatabaseName), store.Logger(log), store.KeepReserve(reserve))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := tenancy.Bootstrap(context.Background(), db, tenancy.Config{
		TenantSlug: "default", TenantName: "Default", OwnerHandle: "owner", OwnerName: "Owner", BoardSlug: "main", BoardName: "Main",
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := authn.LoadOrCreateKey(filepath.Join(dir, backup.SigningKeyName)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, backup.OperatorSecretName), []byte("an operator secret of some length\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, store.ReserveName)); err != nil {
		t.Fatalf("the reserve was not placed: %v", err)
	}
	return dir
}

// create backs dir up into a new file, and returns its path.
func create(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "backup.zip")
	if _, err := backup.Create(context.Background(), backup.Config{DataDir: dir, Out: out, Build: "test"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return out
}

// TestBackupThenRestore: a backup is private, holds the database and the
// key files and nothing else of the data directory, and leaves nothing
// beside it; restored, it is a private data directory with the same keys
// and rows.
func TestBackupThenRestore(t *testing.T) {
	dir := dataDir(t)
	var said bytes.Buffer
	out := filepath.Join(t.TempDir(), "backup.zip")
	m, err := backup.Create(context.Background(), backup.Config{DataDir: dir, Out: out, Build: "test", Progress: &said})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if !strings.Contains(said.String(), "snapshot of taskwire.db: ") {
		t.Errorf("Create said %q, want the snapshot's size and time", said.String())
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, %v; want mode 0600: it holds the root key", fi, err)
	}
	var names []string
	for _, e := range m.Entries {
		names = append(names, e.Name)
	}
	if want := []string{"signing.key", "operator.secret", "taskwire.db"}; !slices.Equal(names, want) {
		t.Errorf("backup entries = %q, want %q (never the reserve, the lock or the write-ahead log)", names, want)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(left) != 1 {
		t.Errorf("files beside the backup = %q, want the backup alone (the snapshot removed)", left)
	}

	restored := filepath.Join(t.TempDir(), "new", "data")
	got, err := backup.Restore(context.Background(), backup.RestoreConfig{From: out, DataDir: restored})
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got.Meta.SchemaVersion != store.SchemaVersion || got.Meta.Taskwire != "test" {
		t.Errorf("Restore's Meta = %+v, want schema version %d by build test", got.Meta, store.SchemaVersion)
	}
	checkPrivate(t, restored, "signing.key", "operator.secret", "taskwire.db")
	for _, name := range []string{"signing.key", "operator.secret"} {
		if a, b := readFile(t, dir, name), readFile(t, restored, name); !bytes.Equal(a, b) {
			t.Errorf("restored %s differs from the original", name)
		}
	}
	if slug := tenantSlug(t, filepath.Join(restored, "taskwire.db")); slug != "default" {
		t.Errorf("restored database's tenant = %q, want default", slug)
	}
}

// checkPrivate fails unless dir is 0700 and holds exactly names, each
// 0600.
func checkPrivate(t *testing.T, dir string, names ...string) {
	t.Helper()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("restored directory: %v, %v; want mode 0700", fi, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
		if fi, err := e.Info(); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("restored %s: %v, %v; want mode 0600", e.Name(), fi, err)
		}
	}
	if slices.Sort(names); !slices.Equal(got, names) {
		t.Errorf("restored files = %q, want %q", got, names)
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tenantSlug reads the one tenant's slug from the database at path.
func tenantSlug(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var slug string
	if err := db.QueryRow("SELECT slug FROM tenants").Scan(&slug); err != nil {
		t.Fatalf("read the restored tenant: %v", err)
	}
	return slug
}

// TestRestoreRefusesDamaged: a backup cut short or with a byte changed is
// refused with the sentence saying so, and leaves nothing behind: no new
// directory, and an empty one left empty.
func TestRestoreRefusesDamaged(t *testing.T) {
	out := create(t, dataDir(t))
	whole, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(whole)
	flipped[len(flipped)/2] ^= 0xff // inside the database's compressed data
	for name, b := range map[string][]byte{"cut short": whole[:len(whole)*2/3], "a byte changed": flipped} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.zip")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			fresh := filepath.Join(t.TempDir(), "fresh")
			empty := t.TempDir()
			for _, dir := range []string{fresh, empty} {
				_, err := backup.Restore(context.Background(), backup.RestoreConfig{From: path, DataDir: dir})
				var damaged *archive.DamagedError
				if !errors.As(err, &damaged) || !strings.Contains(err.Error(), "use the original file") {
					t.Errorf("Restore of a backup %s = %v, want the archive refused as damaged", name, err)
				}
			}
			if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("directory after a refused restore: %v, want none made", err)
			}
			if left, _ := os.ReadDir(empty); len(left) != 0 {
				t.Errorf("empty directory after a refused restore holds %v, want it empty", left)
			}
		})
	}
}

// TestRestoreRefusesNonEmpty: a restore never writes into a directory
// that holds something.
func TestRestoreRefusesNonEmpty(t *testing.T) {
	out := create(t, dataDir(t))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := backup.Restore(context.Background(), backup.RestoreConfig{From: out, DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "is not empty") || !strings.Contains(err.Error(), "new or empty directory") {
		t.Errorf("Restore into a directory with a file = %v, want it refused, asking for a new or empty directory", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("directory after the refused restore holds %v, want notes.txt alone", left)
	}
}

// TestRestoreRefusesNewerSchema: a backup of a database a newer build
// migrated is refused before anything is written, naming the way out; an
// older schema is restored (serve migrates it).
func TestRestoreRefusesNewerSchema(t *testing.T) {
	for _, tc := range []struct {
		version int
		refused bool
	}{{store.SchemaVersion + 1, true}, {store.SchemaVersion - 1, false}} {
		dir := dataDir(t)
		setVersion(t, filepath.Join(dir, backup.DatabaseName), tc.version)
		out := create(t, dir)
		restored := filepath.Join(t.TempDir(), "data")
		got, err := backup.Restore(context.Background(), backup.RestoreConfig{From: out, DataDir: restored})
		if !tc.refused {
			if err != nil || got.Meta.SchemaVersion != tc.version {
				t.Errorf("Restore of schema version %d = %+v, %v; want it restored", tc.version, got.Meta, err)
			}
			continue
		}
		if !errors.Is(err, backup.ErrNewerSchema) || !strings.Contains(err.Error(), "restore it with a newer taskwire") {
			t.Errorf("Restore of schema version %d = %v, want it refused, asking for a newer taskwire", tc.version, err)
		}
		if _, err := os.Stat(restored); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("directory after a refused restore: %v, want none made", err)
		}
	}
}

// setVersion records version as the schema version of the database at
// path, as a build of that version would.
func setVersion(t *testing.T, path string, version int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE taskwire_schema SET version = ?", version); err != nil {
		t.Fatal(err)
	}
}

// TestBackupRefuses: an archive name that is taken, and a data directory
// without a database, are refused before any work, saying what to do.
func TestBackupRefuses(t *testing.T) {
	dir := dataDir(t)
	taken := filepath.Join(t.TempDir(), "taken.zip")
	if err := os.WriteFile(taken, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := backup.Create(context.Background(), backup.Config{DataDir: dir, Out: taken})
	if !errors.Is(err, archive.ErrExists) || !strings.Contains(err.Error(), "choose another name") {
		t.Errorf("Create over an existing file = %v, want it refused", err)
	}
	if b, _ := os.ReadFile(taken); string(b) != "keep me" {
		t.Errorf("existing file after a refused backup holds %q, want it untouched", b)
	}

	out := filepath.Join(t.TempDir(), "b.zip")
	_, err = backup.Create(context.Background(), backup.Config{DataDir: t.TempDir(), Out: out})
	if err == nil || !strings.Contains(err.Error(), "--data must name the data directory taskwire serve uses") {
		t.Errorf("Create of a directory without a database = %v, want it refused, saying what --data names", err)
	}
	if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
		t.Errorf("after a refused backup, its directory holds %v, want nothing", left)
	}
}

// TestBackupRefusesDamagedDatabase: a live database damaged on disk is
// found when the backup is made, not when it is needed: the backup fails,
// saying so, and leaves no file.
func TestBackupRefusesDamagedDatabase(t *testing.T) {
	dir := dataDir(t)
	damagePage(t, filepath.Join(dir, backup.DatabaseName), "tenants")
	out := filepath.Join(t.TempDir(), "b.zip")
	_, err := backup.Create(context.Background(), backup.Config{DataDir: dir, Out: out})
	if err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("Create of a damaged database = %v, want it refused as damaged", err)
	}
	if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
		t.Errorf("after a refused backup, its directory holds %v, want nothing", left)
	}
}

// damagePage overwrites the header of the first page of table in the
// database at path, which nothing has open, with bytes no page has.
func damagePage(t *testing.T, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var page, pageSize int64
	err = db.QueryRow("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&page)
	if err == nil {
		err = db.QueryRow("PRAGMA page_size").Scan(&pageSize)
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xff}, 16), (page-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}
