package board

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// ActionBoardCreated is recorded when a board is created.
const ActionBoardCreated = "board.created"

// createBoardRule is what the proto declares of boards_create: its
// min_role (admin), name and title.
var createBoardRule = methods.Must(taskwirev1.BoardService_CreateBoard_FullMethodName)

// CreateBoard adds a board to the caller's tenant; only owners and admins
// may.
func (s *Service) CreateBoard(ctx context.Context, req *taskwirev1.CreateBoardRequest) (*taskwirev1.CreateBoardResponse, error) {
	resp, err := call(ctx, s, req, s.createBoard)
	if err != nil {
		return nil, err
	}
	return resp, s.boardsChanged(ctx, "The board")
}

func (s *Service) createBoard(ctx context.Context, a actor, req *taskwirev1.CreateBoardRequest) (*taskwirev1.CreateBoardResponse, error) {
	// The worker refuses weaker roles already (the tool's min_role); check
	// again here, as boards_update does.
	if err := a.mayRun(createBoardRule); err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, s.client, idempotency.Caller{TenantID: a.tenant.ID, MemberID: a.member.ID},
		taskwirev1.BoardService_CreateBoard_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.CreateBoardResponse, error) {
			b, err := InsertBoard(ctx, tx, a.tenant, a.quota, req)
			if err != nil {
				return nil, err
			}
			detail := map[string]any{"board": b.Slug, "name": b.Name}
			if err := record(ctx, tx, a, ActionBoardCreated, nil, detail); err != nil {
				return nil, err
			}
			resp, err := boardDetail(ctx, tx.Client(), a, b)
			return &taskwirev1.CreateBoardResponse{Board: resp}, err
		})
}

// InsertBoard adds the board req describes to tenant t in tx, within the
// tenant's quota q: the one rule for a new board, which boards_create and
// the admin API's CreateBoard share. Only t's ID and Slug are read. A slug
// in use is a Conflict naming it.
func InsertBoard(ctx context.Context, tx *ent.Tx, t *ent.Tenant, q quota.Limits, req *taskwirev1.CreateBoardRequest) (*ent.Board, error) {
	if err := tenancy.CheckBoardSlug(req.GetSlug()); err != nil {
		return nil, err
	}
	if err := q.CheckBoards(ctx, tx, t); err != nil {
		return nil, err
	}
	taken, err := tx.Board.Query().Where(entboard.TenantID(t.ID), entboard.Slug(req.GetSlug())).Only(ctx)
	switch {
	case taken != nil && taken.ArchivedAt != nil:
		return nil, domainerr.New(domainerr.Conflict,
			"tenant %s has an archived board %q already: choose another slug, or ask an owner or admin to unarchive it (taskwire admin boards unarchive %s)",
			t.Slug, req.GetSlug(), req.GetSlug())
	case taken != nil:
		return nil, boardExists(t.Slug, req.GetSlug(), nil)
	case !ent.IsNotFound(err):
		return nil, err
	}
	// The fields are checked once the slug is known to be free, so that
	// the isolation probe can show a slug of another tenant is free too
	// without creating a board.
	name := req.GetName()
	ch, err := checkBoardChange(&taskwirev1.UpdateBoardRequest{Name: &name, Rules: req.Rules, WipLimits: req.GetWipLimits(), Kinds: req.GetKinds()})
	if err != nil {
		return nil, err
	}
	c := tx.Board.Create().SetTenantID(t.ID).SetSlug(req.GetSlug()).SetName(*ch.name)
	if ch.rules != nil {
		c.SetRules(*ch.rules)
	}
	wip := map[string]int{}
	for lane, l := range ch.wip {
		if l > 0 {
			wip[lane] = l
		}
	}
	if ch.kinds != nil {
		c.SetKinds(*ch.kinds)
	}
	b, err := c.SetWipLimits(wip).Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, boardExists(t.Slug, req.GetSlug(), err)
	}
	return b, err
}

// boardExists is the Conflict of a board slug in use.
func boardExists(tenant, slug string, cause error) error {
	return domainerr.Wrap(domainerr.Conflict, cause,
		"tenant %s has a board %q already: choose another slug, or work on that board (boards_get)", tenant, slug)
}

// boardsChanged tells listen streams that the tenant's boards, and so its
// resources, changed. The change is stored already; a failure is
// Unavailable, since repeating the call (with its idempotency key)
// repeats the news and changes nothing more.
func (s *Service) boardsChanged(ctx context.Context, what string) error {
	if s.events == nil {
		return nil
	}
	c, ok := identity.FromContext(ctx)
	if !ok {
		return nil
	}
	if err := s.events.Publish(c.Tenant, events.Event{Kind: events.ResourcesChanged}); err != nil {
		return domainerr.Wrap(domainerr.Unavailable, err,
			"%s is stored, but open resource lists could not be told: repeat the call with the same idempotency_key to retry", domainerr.Safe(what))
	}
	return nil
}
