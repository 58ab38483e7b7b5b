package board

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/taskwire/taskwire/internal/events"
)

// Every task write and comment is announced on the tenant's events
// (events.BoardChanged) once its transaction has committed, so that the
// console pages showing the board refresh. The one place that sees every
// such write is the activity log: record notes the task of each row in
// the call's context, and call announces what was noted when the call
// succeeded. A write that rolled back is not announced, unless a retry of
// its transaction committed it.

// maxAnnounced bounds the events of one call per board: an import of
// hundreds of tasks is one event naming no task, which tells a page to
// reload the whole board.
const maxAnnounced = 20

// written is the tasks one call wrote, by board id then ref.
type written struct {
	mu    sync.Mutex
	tasks map[int]map[string]bool
}

type writtenKey struct{}

// withWritten returns ctx noting the tasks the call writes in w. Its map
// is made on the first note: most calls are reads and note nothing.
func withWritten(ctx context.Context) (context.Context, *written) {
	w := &written{}
	return context.WithValue(ctx, writtenKey{}, w), w
}

// noteWritten notes in ctx that the task ref of board id changed.
func noteWritten(ctx context.Context, boardID int, ref string) {
	w, ok := ctx.Value(writtenKey{}).(*written)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tasks == nil {
		w.tasks = map[int]map[string]bool{}
	}
	if w.tasks[boardID] == nil {
		w.tasks[boardID] = map[string]bool{}
	}
	w.tasks[boardID][ref] = true
}

// announce publishes a BoardChanged event for each task w noted. The
// writes are committed: a failure is logged, never the call's. Board
// slugs come from the worker's name cache, so a write costs no query.
func (s *Service) announce(ctx context.Context, a actor, w *written) {
	if s.events == nil || len(w.tasks) == 0 {
		return
	}
	ids := make([]int, 0, len(w.tasks))
	for id := range w.tasks {
		ids = append(ids, id)
	}
	n := names{boards: map[int]string{}}
	if err := s.names.addBoards(ctx, s.client, a, n, ids); err != nil {
		s.log.WarnContext(ctx, "board: changes not announced: boards not read", "err", err)
		return
	}
	for id, slug := range n.boards {
		refs := w.tasks[id]
		if len(refs) > maxAnnounced {
			refs = map[string]bool{"": true}
		}
		for ref := range refs {
			ev := events.Event{Kind: events.BoardChanged, Board: slug, Ref: ref, Member: a.member.ID}
			if err := s.events.Publish(a.tenant.Slug, ev); err != nil {
				// NATS away is logged once by the process, when the
				// connection is lost, not by every change meanwhile.
				level := slog.LevelWarn
				if errors.Is(err, events.ErrUnreachable) {
					level = slog.LevelDebug
				}
				s.log.Log(ctx, level, "board: change not announced", "board", slug, "ref", ref, "err", err)
				return
			}
		}
	}
}

// discard is the logger of a Service configured without one.
var discard = slog.New(slog.DiscardHandler)
