package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/audit"
)

// DefaultAuditQueue bounds the events waiting to be written when
// Config.AuditQueue is 0.
const DefaultAuditQueue = 1024

const (
	auditWriteTimeout = 5 * time.Second // one batch's write
	auditFlushTimeout = 5 * time.Second // writing what is left when the worker stops
	maxAuditBatch     = 256             // events written in one transaction
)

// errAuditStopped is what a call waits for in vain once the writer has
// stopped.
var errAuditStopped = errors.New("worker: the audit writer has stopped")

// auditLog is a worker's audit writer: a queue of the events of calls
// waiting for their rows, and the goroutine writing them. It is a group
// commit: the writer takes everything queued (up to maxAuditBatch) and
// writes it in one transaction, then answers each waiting call, then takes
// what queued meanwhile. It never lingers: a lone call waits for one
// commit, and under load each commit carries every call that ended during
// the previous one, which costs a call far less than a commit of its own.
// A full queue makes callers wait (within their contexts), never drops.
type auditLog struct {
	auditor  Auditor
	log      *slog.Logger
	queue    chan pendingEvent
	mu       sync.RWMutex // held for reading while a call queues; stop takes it to end queueing
	stopped  bool
	stopping chan struct{}
	done     chan struct{}
	now      func() time.Time // for tests
}

// pendingEvent is a queued event and where its call waits for the
// outcome of its write.
type pendingEvent struct {
	e       audit.Event
	written chan error // buffered: the writer never waits for the call
}

// batch is what the writer writes in one transaction: the events as
// Auditor.RecordAll takes them, and where the call of each waits.
type batch struct {
	events  []audit.Event
	written []chan error
}

func (b *batch) add(p pendingEvent) {
	b.events = append(b.events, p.e)
	b.written = append(b.written, p.written)
}

func newAuditLog(a Auditor, size int, log *slog.Logger) *auditLog {
	if a == nil {
		return nil
	}
	if size == 0 {
		size = DefaultAuditQueue
	}
	l := &auditLog{
		auditor: a, log: log, queue: make(chan pendingEvent, size),
		stopping: make(chan struct{}), done: make(chan struct{}), now: time.Now,
	}
	go l.run()
	return l
}

// record queues e and waits until it is written, ctx ends, or the writer
// stops. An event queued when ctx ends is still written.
func (l *auditLog) record(ctx context.Context, e audit.Event) error {
	p := pendingEvent{e: e, written: make(chan error, 1)}
	if err := l.enqueue(ctx, p); err != nil {
		return err
	}
	select {
	case err := <-p.written:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enqueue queues p, waiting for room within ctx; after stop it fails.
func (l *auditLog) enqueue(ctx context.Context, p pendingEvent) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.stopped {
		return errAuditStopped
	}
	select {
	case l.queue <- p:
		return nil
	case <-ctx.Done():
		l.log.WarnContext(ctx, "worker: call not audited: it ended while waiting for room in the audit queue", "method", p.e.Method, "queue", cap(l.queue))
		return ctx.Err()
	}
}

// run writes queued events until stop, then what is left.
func (l *auditLog) run() {
	defer close(l.done)
	for {
		select {
		case p := <-l.queue:
			l.write(context.Background(), l.gather(p))
		case <-l.stopping:
			l.flush()
			return
		}
	}
}

// gather returns first with the events queued behind it, up to
// maxAuditBatch.
func (l *auditLog) gather(first pendingEvent) batch {
	n := min(1+len(l.queue), maxAuditBatch)
	b := batch{events: make([]audit.Event, 0, n), written: make([]chan error, 0, n)}
	b.add(first)
	for len(b.events) < maxAuditBatch {
		select {
		case p := <-l.queue:
			b.add(p)
		default:
			return b
		}
	}
	return b
}

// flush writes what is queued, in batches, within auditFlushTimeout;
// calls whose events it cannot write by then learn it.
func (l *auditLog) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), auditFlushTimeout)
	defer cancel()
	for {
		select {
		case p := <-l.queue:
			if ctx.Err() != nil {
				p.written <- errAuditStopped
				continue
			}
			l.write(ctx, l.gather(p))
		default:
			return
		}
	}
}

// write writes b in one transaction and tells each call how it went.
// When the batch fails on an event that is not valid, the others are
// written one by one, so that one bad event fails only its own call.
func (l *auditLog) write(ctx context.Context, b batch) {
	err := l.writeAll(ctx, b.events)
	if err != nil && len(b.events) > 1 && domainerr.KindOf(err) == domainerr.Invalid {
		for i := range b.events {
			l.write(ctx, batch{events: b.events[i : i+1], written: b.written[i : i+1]})
		}
		return
	}
	if err != nil {
		// An outage of the database is logged once, by the breaker, and a
		// full disk once, by the store; their calls have failed on it
		// already.
		level := slog.LevelWarn
		if store.Unreachable(err) || store.DiskFull(err) {
			level = slog.LevelDebug
		}
		l.log.Log(ctx, level, "worker: audit events not recorded; their calls fail", "count", len(b.events), "err", err)
	}
	for _, w := range b.written {
		w <- err
	}
}

func (l *auditLog) writeAll(ctx context.Context, events []audit.Event) error {
	ctx, cancel := context.WithTimeout(ctx, auditWriteTimeout)
	defer cancel()
	skipped, err := l.auditor.RecordAll(ctx, events)
	if skipped > 0 {
		// An operator named a tenant that does not exist: no log to write to.
		l.log.Debug("worker: calls not audited: no such tenant", "count", skipped)
	}
	return err
}

// stop ends queueing, writes what is queued (within auditFlushTimeout)
// and ends the writer. Calls that end later fail with Unavailable rather
// than go unrecorded.
func (l *auditLog) stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	already := l.stopped
	l.stopped = true
	l.mu.Unlock()
	if !already {
		close(l.stopping)
	}
	<-l.done
}
