package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/predicate"
)

// boardsQuery is the query digest of boards_list: its one filter, whether
// archived boards are listed too. Without it, the digest is the one of
// the builds before archiving, so their cursors stay valid.
func boardsQuery(includeArchived bool) string {
	if includeArchived {
		return cursor.Query("sort:default,slug", "archived")
	}
	return cursor.Query("sort:default,slug")
}

func (s *Service) listBoards(ctx context.Context, a actor, req *taskwirev1.ListBoardsRequest) (*taskwirev1.ListBoardsResponse, error) {
	limit, err := cursor.Limit(req.GetLimit())
	if err != nil {
		return nil, err
	}
	query := boardsQuery(req.GetIncludeArchived())
	pos, err := s.cursors.Open(req.GetCursor(), a.tenant.ID, "boards", query, 2)
	if err != nil {
		return nil, err
	}
	where := []predicate.Board{entboard.TenantID(a.tenant.ID)}
	if !req.GetIncludeArchived() {
		where = append(where, entboard.ArchivedAtIsNil())
	}
	if pos != nil {
		where = append(where, afterBoard(pos[0] == "1", pos[1]))
	}
	bs, err := s.client.Board.Query().Where(where...).
		Order(ent.Desc(entboard.FieldIsDefault), ent.Asc(entboard.FieldSlug)).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListBoardsResponse{}
	if len(bs) > limit {
		bs = bs[:limit]
		last := bs[limit-1]
		resp.NextCursor = s.cursors.Seal(a.tenant.ID, "boards", query, flag(last.IsDefault), last.Slug)
	}
	for _, b := range bs {
		resp.Items = append(resp.Items, boardProto(b))
	}
	return resp, nil
}

// afterBoard matches the boards that come after (isDefault, slug) in
// boards_list's order: default first, then by slug.
func afterBoard(isDefault bool, slug string) predicate.Board {
	later := entboard.And(entboard.IsDefault(isDefault), entboard.SlugGT(slug))
	if isDefault {
		return entboard.Or(entboard.IsDefault(false), later)
	}
	return later
}

// flag is a bool as a cursor position.
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// boardProto converts a board for a response.
func boardProto(b *ent.Board) *taskwirev1.Board {
	return &taskwirev1.Board{
		Slug: b.Slug, Name: b.Name, Lanes: slices.Clone(Lanes), IsDefault: b.IsDefault, Archived: b.ArchivedAt != nil,
		Kinds: kindProtos(boardKinds(b)), Version: int32(b.Version),
	}
}

// boards returns the boards of the caller's tenant, default first, then by
// slug.
func boards(ctx context.Context, c *ent.Client, a actor) ([]*ent.Board, error) {
	return c.Board.Query().Where(entboard.TenantID(a.tenant.ID)).
		Order(ent.Desc(entboard.FieldIsDefault), ent.Asc(entboard.FieldSlug)).All(ctx)
}

// findBoard returns the board with slug in the caller's tenant, or its
// default board when slug is empty.
func findBoard(ctx context.Context, c *ent.Client, a actor, slug string) (*ent.Board, error) {
	slug = strings.TrimSpace(slug)
	bs, err := boards(ctx, c, a)
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		return nil, domainerr.New(domainerr.NotFound, "Tenant %s has no boards yet: ask an admin to create one", a.tenant.Slug)
	}
	if slug == "" {
		return bs[0], nil
	}
	var valid []string
	for _, b := range bs {
		if b.Slug == slug {
			return b, nil
		}
		valid = append(valid, fmt.Sprintf("%q", b.Slug))
	}
	return nil, domainerr.New(domainerr.NotFound, "No board %q in tenant %s: use one of %s, or leave board out for the default board",
		slug, a.tenant.Slug, strings.Join(valid, ", "))
}
