package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/poll"
)

// TestReserve: a Reserve placed beside a database holds its room in a
// file; the first write failing for a full disk (max_page_count stands
// in for the disk) removes the file and makes it Full, logged once
// however many writes fail and reads write after; it stays Full while
// the disk has less room than the reserve and a margin, and once it has,
// the file is back, it is no longer Full, and that is logged once.
func TestReserve(t *testing.T) {
	ctx := context.Background()
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	d, dir := smallDatabase(t, log)
	r := NewReserve(log)
	r.size = 64 << 10
	var room atomic.Uint64 // what the file system has free, as the test says
	r.room = func(string) (uint64, bool) { return room.Load(), true }
	defer r.Close()
	d.watch.reserve = r
	r.place(d.watch.dir)
	path := filepath.Join(dir, ReserveName)
	if st, err := os.Stat(path); err != nil || st.Size() != r.size || r.Full() {
		t.Fatalf("placed reserve: %v, %v, Full %v; want a file of %d bytes, not Full", st, err, r.Full(), r.size)
	}

	insert := func() error { return insertBlob(ctx, d) }
	for i := 0; !r.Full(); i++ {
		if err := insert(); err != nil && !DiskFull(err) {
			t.Fatal(err)
		}
		if i == 20 {
			t.Fatal("the database never filled")
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reserve once the disk is full: %v, want it removed", err)
	}
	insert()                                                      // another write failing
	if err := d.Exec(ctx, "SELECT 1", []any{}, nil); err != nil { // a read
		t.Fatal(err)
	}
	if _, err := d.DB().ExecContext(ctx, "DELETE FROM b"); err != nil { // a write succeeding
		t.Fatal(err)
	}
	d.watch.wrote(nil)
	for _, free := range []uint64{0, uint64(r.size) + minRoom - 1} {
		room.Store(free)
		if r.refill() {
			t.Errorf("refill with %d bytes free = true, want false", free)
		}
	}
	if !r.Full() || strings.Contains(logged.String(), "room again") {
		t.Fatalf("Full = %v with less room than the reserve and a margin, want true; log:\n%s", r.Full(), logged.String())
	}

	room.Store(uint64(r.size) + minRoom)
	poll.Until(t, 5*time.Second, "the reserve to be re-created", func() bool { return !r.Full() })
	if st, err := os.Stat(path); err != nil || st.Size() != r.size {
		t.Errorf("reserve once there is room: %v, %v; want a file of %d bytes", st, err, r.size)
	}
	if n := strings.Count(logged.String(), "writes fail until space is freed"); n != 1 {
		t.Errorf("lines saying the disk is full = %d, want 1:\n%s", n, logged.String())
	}
	if n := strings.Count(logged.String(), "room again"); n != 1 {
		t.Errorf("lines saying writes succeed again = %d, want 1:\n%s", n, logged.String())
	}
}

// TestReserveUnplaced: a Reserve with no room for its file at start
// logs so and is never Full: a full disk is met as without one.
func TestReserveUnplaced(t *testing.T) {
	var logged bytes.Buffer
	r := NewReserve(slog.New(slog.NewTextHandler(&logged, nil)))
	defer r.Close()
	r.place(filepath.Join(t.TempDir(), "missing")) // cannot be written, as a full disk cannot
	if r.placed() || !strings.Contains(logged.String(), "no room to reserve") {
		t.Errorf("placed = %v, log %q; want unplaced and said so", r.placed(), logged.String())
	}
	w := newDiskWatch(slog.New(slog.DiscardHandler), "")
	w.reserve = r
	w.failed(fmt.Errorf("insert: %w", syscall.ENOSPC))
	if r.Full() || !w.full {
		t.Errorf("Reserve.Full = %v, watch full = %v after a full disk; want false, true (the watch has the episode)", r.Full(), w.full)
	}
	var nilReserve *Reserve
	if nilReserve.Full() || nilReserve.placed() {
		t.Error("a nil Reserve is Full or placed")
	}
}
