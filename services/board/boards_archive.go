package board

import (
	"context"
	"time"

	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
)

// checkOpen refuses adding tasks to, or moving tasks on, archived board b.
func checkOpen(b *ent.Board) error {
	if b.ArchivedAt == nil {
		return nil
	}
	return domainerr.New(domainerr.Conflict,
		"board %s is archived: its tasks can still be read, but it takes no new tasks, moves or imports. Work on another board (boards_list), or ask an owner or admin of the tenant to unarchive it (taskwire admin boards unarchive %s)",
		b.Slug, b.Slug)
}

// SetArchived archives board slug of tenant t in tx, or with archived
// false brings it back, at now: the one rule for archiving, which the
// admin API's ArchiveBoard applies. Only t's ID and Slug are read. The
// default board is never archived, since every tool falls back to it.
// Archiving an archived board, or unarchiving one in use, changes
// nothing and is no error.
func SetArchived(ctx context.Context, tx *ent.Tx, t *ent.Tenant, slug string, archived bool, now time.Time) (*ent.Board, error) {
	b, err := tx.Board.Query().Where(entboard.TenantID(t.ID), entboard.Slug(slug)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domainerr.New(domainerr.NotFound, "No board %q in tenant %s: list its boards with taskwire admin boards list", slug, t.Slug)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case archived && b.IsDefault:
		return nil, domainerr.New(domainerr.Conflict,
			"board %s is the default board of tenant %s, which every tool uses when no board is named: it cannot be archived", b.Slug, t.Slug)
	case archived == (b.ArchivedAt != nil):
		return b, nil
	case archived:
		return tx.Board.UpdateOne(b).SetArchivedAt(now.UTC()).Save(ctx)
	}
	return tx.Board.UpdateOne(b).ClearArchivedAt().Save(ctx)
}
