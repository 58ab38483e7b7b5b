package store

import (
	"errors"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DiskFull reports whether err says that the disk holding the database
// (or a file written beside it) has no room left: SQLite's SQLITE_FULL,
// whatever extended code carries it, or ENOSPC from the system. SQLite
// rolls the transaction back and leaves the database as it was, so the
// call may be retried once space is freed. (SQLite also answers
// SQLITE_FULL when the database reaches max_page_count, which Taskwire
// never sets.)
func DiskFull(err error) bool {
	if err == nil {
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	return errors.Is(err, syscall.ENOSPC)
}

// diskWatch tells the log when the disk of a SQLite database fills and
// when writes succeed on it again: one line each, however many writes
// fail in between, rather than one per call. A full disk ends when a
// write succeeds and the disk has minRoom free: a small write may still
// fit in what SQLite holds already (its WAL keeps the room a failed
// write took) while the next fails, and each would otherwise be an
// episode.
//
// With a Reserve placed beside the database, the Reserve has the episode
// instead: it begins at the first write failing, and ends when the
// Reserve has its room back, however many reads write their audit rows
// meanwhile.
type diskWatch struct {
	log     *slog.Logger
	dir     string   // the database's directory; "" for none
	reserve *Reserve // nil for none
	mu      sync.Mutex
	full    bool
	since   time.Time // when it filled
}

// minRoom is the free space that ends a full disk's episode.
const minRoom = 1 << 20

func newDiskWatch(log *slog.Logger, dir string) *diskWatch {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &diskWatch{log: log, dir: dir}
}

// failed notes the error of a write: a full disk begins an episode.
func (w *diskWatch) failed(err error) {
	if !DiskFull(err) {
		return
	}
	if w.reserve.placed() {
		w.reserve.filled(err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full {
		return
	}
	w.full, w.since = true, time.Now()
	w.log.Warn("the data directory's disk is full: writes fail until space is freed", "err", err.Error())
}

// wrote notes the outcome of a commit: a success ends an episode.
func (w *diskWatch) wrote(err error) {
	if err != nil {
		w.failed(err)
		return
	}
	if w.reserve.placed() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.full || w.dir != "" && !hasRoom(w.dir) {
		return
	}
	w.full = false
	w.log.Warn("the data directory's disk has room again: writes succeed", "full_for", time.Since(w.since).Round(time.Millisecond).String())
}
