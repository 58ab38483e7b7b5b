package admin

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/services/board"
)

// CreateBoard implements adminv1.AdminServiceServer.
func (s *Service) CreateBoard(ctx context.Context, req *adminv1.CreateBoardRequest) (*adminv1.CreateBoardResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, a actor, req *adminv1.CreateBoardRequest) (*adminv1.CreateBoardResponse, error) {
		t, ctx, err := s.manage(ctx, a, req.GetTenant())
		if err != nil {
			return nil, err
		}
		var b *ent.Board
		err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
			b, err = board.InsertBoard(ctx, tx, t, s.quota, &taskwirev1.CreateBoardRequest{
				Slug: req.GetBoard(), Name: req.GetName(), Rules: req.Rules, WipLimits: req.GetWipLimits(),
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		return &adminv1.CreateBoardResponse{Board: boardToProto(b)}, s.boardsChanged(ctx, t.Slug, "The new board")
	})
}

// ListBoards implements adminv1.AdminServiceServer.
func (s *Service) ListBoards(ctx context.Context, req *adminv1.ListBoardsRequest) (*adminv1.ListBoardsResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, a actor, req *adminv1.ListBoardsRequest) (*adminv1.ListBoardsResponse, error) {
		t, ctx, err := s.manage(ctx, a, req.GetTenant())
		if err != nil {
			return nil, err
		}
		size, after, err := idPage(req.GetPageSize(), req.GetPageToken())
		if err != nil {
			return nil, err
		}
		q := s.client.Board.Query().Where(entboard.TenantID(t.ID), entboard.IDGT(after))
		if !req.GetIncludeArchived() {
			q.Where(entboard.ArchivedAtIsNil())
		}
		rows, err := q.Order(ent.Asc(entboard.FieldID)).Limit(size + 1).All(ctx)
		if err != nil {
			return nil, err
		}
		resp := &adminv1.ListBoardsResponse{}
		rows, resp.NextPageToken = idPageEnd(rows, size, func(b *ent.Board) int { return b.ID })
		for _, b := range rows {
			resp.Boards = append(resp.Boards, boardToProto(b))
		}
		return resp, nil
	})
}

// ArchiveBoard implements adminv1.AdminServiceServer.
func (s *Service) ArchiveBoard(ctx context.Context, req *adminv1.ArchiveBoardRequest) (*adminv1.ArchiveBoardResponse, error) {
	return call(ctx, s, req, func(ctx context.Context, a actor, req *adminv1.ArchiveBoardRequest) (*adminv1.ArchiveBoardResponse, error) {
		t, ctx, err := s.manage(ctx, a, req.GetTenant())
		if err != nil {
			return nil, err
		}
		archived := req.Archived == nil || *req.Archived
		var b *ent.Board
		err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
			b, err = board.SetArchived(ctx, tx, t, req.GetBoard(), archived, s.now())
			return err
		})
		if err != nil {
			return nil, err
		}
		return &adminv1.ArchiveBoardResponse{Board: boardToProto(b)}, s.boardsChanged(ctx, t.Slug, "The board's archiving")
	})
}

// boardsChanged tells listen streams that tenant's boards, its resources,
// changed. The change is stored already; a failure is Unavailable, since
// repeating the call repeats the news and changes nothing more.
func (s *Service) boardsChanged(ctx context.Context, tenant, what string) error {
	if s.events == nil {
		return nil
	}
	if err := s.events.Publish(tenant, events.Event{Kind: events.ResourcesChanged}); err != nil {
		s.log.ErrorContext(ctx, "admin: publishing a boards change failed", "tenant", tenant, "err", err)
		return domainerr.Wrap(domainerr.Unavailable, err,
			"%s is stored, but open resource lists could not be told: repeat the call to retry", domainerr.Safe(what))
	}
	return nil
}

func boardToProto(b *ent.Board) *adminv1.Board {
	return &adminv1.Board{
		Slug: b.Slug, Name: b.Name, IsDefault: b.IsDefault,
		CreateTime: timestamppb.New(b.CreatedAt), ArchiveTime: optionalTime(b.ArchivedAt),
	}
}
