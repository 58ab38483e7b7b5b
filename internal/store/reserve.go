package store

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// ReserveName is the file a Reserve keeps in the SQLite database's
// directory.
const ReserveName = "reserve"

// ReserveSize is the room a Reserve keeps: enough for the audit rows of
// tens of thousands of reads, and for the write-ahead log to grow and be
// checkpointed meanwhile.
const ReserveSize = 8 << 20

// reserveCheck is how often a Reserve whose disk is full looks for room.
const reserveCheck = 250 * time.Millisecond

// Reserve keeps room on the disk of an SQLite database, in a file of
// ReserveSize bytes beside it, for reads to go on when the disk fills:
// every call, reads included, writes its audit row before it is answered
// (decision 0006), so a full disk would stop reads too. When a write
// fails for a full disk, the Reserve deletes its file, and is Full: the
// worker refuses writes without trying them (Full), and reads and their
// audit rows use the room freed. Once the disk has the reserve's room
// again and a minRoom more, it re-creates the file and is no longer Full.
// One log line when the disk fills, one when it has room again.
//
// A Reserve does nothing until Open or Connect places it beside an
// SQLite database (KeepReserve): a PostgreSQL deployment's disk is not
// Taskwire's to watch. A nil *Reserve is never Full.
type Reserve struct {
	log  *slog.Logger
	size int64
	// room is the free space of dir's file system (statfs), ok false when
	// it cannot tell; tests replace it.
	room func(dir string) (free uint64, ok bool)

	full atomic.Bool

	mu     sync.Mutex
	path   string    // "" until placed, or when there was no room for it at start
	since  time.Time // when the disk filled
	stop   chan struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewReserve returns a Reserve of ReserveSize that logs to log, to pass
// to Open (KeepReserve).
func NewReserve(log *slog.Logger) *Reserve {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Reserve{log: log, size: ReserveSize, room: freeRoom, stop: make(chan struct{})}
}

// KeepReserve has Open keep r's room beside its SQLite database: r is
// placed there (its file created, or kept from the last start), and the
// client's full disk empties it (see Reserve). Ignored on PostgreSQL.
func KeepReserve(r *Reserve) Option {
	return func(o *options) { o.reserve = r }
}

// Full reports whether the disk filled and the reserve was given up:
// writes are to be refused until it is not.
func (r *Reserve) Full() bool { return r != nil && r.full.Load() }

// place creates the reserve's file in dir. Without room for it, it logs
// so and the Reserve stays unplaced: a full disk is then met as without
// one.
func (r *Reserve) place(dir string) {
	if r == nil || dir == "" {
		return
	}
	path := filepath.Join(dir, ReserveName)
	if err := r.fill(path); err != nil {
		r.log.Warn("no room to reserve on the data directory's disk: when it fills, reads fail as writes do", "path", path, "size", r.size, "err", err.Error())
		return
	}
	r.mu.Lock()
	r.path = path
	r.mu.Unlock()
}

// fill writes the reserve's file at path, size bytes of zeros synced to
// disk, keeping what a last start wrote; a file it could not complete
// is removed.
func (r *Reserve) fill(path string) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	// Zeros really written, not a sparse file's promise: the room must
	// be taken now to be there to free later.
	zeros := make([]byte, 1<<20)
	for at := min(st.Size(), r.size); at < r.size; {
		n, err := f.WriteAt(zeros[:min(int64(len(zeros)), r.size-at)], at)
		if err != nil {
			return err
		}
		at += int64(n)
	}
	if err := f.Truncate(r.size); err != nil {
		return err
	}
	return f.Sync()
}

// filled is told that a write failed because the disk is full (err): the
// first time, it frees the reserve's room, becomes Full, logs it, and
// watches for room to return.
func (r *Reserve) filled(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.full.Load() || r.closed {
		return
	}
	r.full.Store(true)
	r.since = time.Now()
	if rerr := os.Remove(r.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		r.log.Warn("the reserve on the data directory's disk cannot be removed", "path", r.path, "err", rerr.Error())
	}
	r.log.Warn("the data directory's disk is full: writes fail until space is freed; reads go on in the room reserved for them", "err", err.Error(), "reserved", r.size)
	r.wg.Add(1)
	go r.watch()
}

// watch looks for room every reserveCheck while the Reserve is Full,
// and re-creates its file once there is.
func (r *Reserve) watch() {
	defer r.wg.Done()
	t := time.NewTicker(reserveCheck)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		if r.refill() {
			return
		}
	}
}

// refill re-creates the reserve's file if the disk has room for it and
// minRoom more, and then ends the Full state; it reports whether it did.
func (r *Reserve) refill() bool {
	dir := filepath.Dir(r.path)
	if free, ok := r.room(dir); ok && free < uint64(r.size)+minRoom {
		return false
	}
	if err := r.fill(r.path); err != nil {
		return false // the room went to something else meanwhile
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log.Warn("the data directory's disk has room again: writes succeed", "full_for", time.Since(r.since).Round(time.Millisecond).String(), "reserved", r.size)
	r.full.Store(false) // after the line: whoever sees writes succeed finds it logged
	return true
}

// placed reports whether the Reserve holds room to give up: it was
// placed beside an SQLite database.
func (r *Reserve) placed() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.path != ""
}

// Close stops watching for room. The file stays for the next start.
func (r *Reserve) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.stop)
	}
	r.mu.Unlock()
	r.wg.Wait()
}
