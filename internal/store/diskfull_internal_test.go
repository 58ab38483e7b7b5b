package store

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A database that cannot grow answers SQLITE_FULL, as on a full disk
// (max_page_count stands in for the disk here): DiskFull knows it, in
// whatever wrapping it reaches the worker, and the log says once that the
// disk is full, however many writes fail, and once that writes succeed
// again.
func TestDiskFullOncePerEpisode(t *testing.T) {
	ctx := context.Background()
	var logged bytes.Buffer
	d, dir := smallDatabase(t, slog.New(slog.NewTextHandler(&logged, nil)))
	if d.watch.dir != dir {
		t.Errorf("sqliteDir = %q, want %q", d.watch.dir, dir)
	}
	insert := func() error { return insertBlob(ctx, d) }
	var full error
	for range 20 {
		if full = insert(); full != nil {
			break
		}
	}
	if !DiskFull(full) || !DiskFull(fmt.Errorf("store: commit: %w", full)) {
		t.Fatalf("DiskFull(%v) = false, want true for SQLITE_FULL", full)
	}
	for range 3 {
		if err := insert(); !DiskFull(err) {
			t.Fatalf("insert on a full database = %v, want SQLITE_FULL", err)
		}
	}
	if _, err := d.DB().ExecContext(ctx, "DELETE FROM b"); err != nil { // frees its pages for reuse
		t.Fatal(err)
	}
	for range 2 {
		if err := insert(); err != nil {
			t.Fatalf("insert once there is room = %v, want it to succeed", err)
		}
	}
	if n := strings.Count(logged.String(), "writes fail until space is freed"); n != 1 {
		t.Errorf("lines saying the disk is full = %d, want 1:\n%s", n, logged.String())
	}
	if n := strings.Count(logged.String(), "room again"); n != 1 {
		t.Errorf("lines saying writes succeed again = %d, want 1:\n%s", n, logged.String())
	}
}

// smallDatabase is a database in a directory of the test's own, with a
// table b, that cannot grow beyond 8 pages (max_page_count stands in for
// a small disk), and its directory; its diskWatch logs to log.
func smallDatabase(t *testing.T, log *slog.Logger) (*stmtDriver, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	drv, err := openDriver(ctx, "sqlite:"+filepath.Join(dir, "t.db")+"?_pragma=max_page_count(8)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drv.Close() })
	if err := drv.Exec(ctx, "CREATE TABLE b (v BLOB)", []any{}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := newStmtDriver(drv, stmtCacheSize)
	if err != nil {
		t.Fatal(err)
	}
	d.watch = newDiskWatch(log, sqliteDir(drv.DB()))
	return d, dir
}

// insertBlob writes a row of 8000 bytes into b, in a transaction.
func insertBlob(ctx context.Context, d *stmtDriver) error {
	tx, err := d.Tx(ctx)
	if err != nil {
		return err
	}
	if err := tx.Exec(ctx, "INSERT INTO b (v) VALUES (zeroblob(8000))", []any{}, nil); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func TestDiskFullKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("write signing key: %w", syscall.ENOSPC), true},
		{syscall.EIO, false},
		{context.Canceled, false},
	} {
		if got := DiskFull(tc.err); got != tc.want {
			t.Errorf("DiskFull(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
