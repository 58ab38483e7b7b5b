package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	entboard "github.com/taskwire/taskwire/ent/board"
	"github.com/taskwire/taskwire/services/domainerr"
)

func (s *Service) listBoards(ctx context.Context, a actor, _ *taskwirev1.ListBoardsRequest) (*taskwirev1.ListBoardsResponse, error) {
	bs, err := boards(ctx, s.client, a)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListBoardsResponse{}
	for _, b := range bs {
		resp.Boards = append(resp.Boards, &taskwirev1.Board{
			Slug: b.Slug, Name: b.Name, Lanes: slices.Clone(Lanes), IsDefault: b.IsDefault,
		})
	}
	return resp, nil
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
