package board

import (
	"context"
	"maps"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	entboard "github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/methods"
	"github.com/taskwire/taskwire/internal/safetext"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// Limits on what a board holds.
const (
	MaxBoardName = tenancy.MaxName // characters, as every display name
	MaxRules     = 20000           // characters
	MaxWipLimit  = 1000            // tasks in one lane
)

// ActionBoardUpdated is recorded when a board's name, rules or WIP limits
// change.
const ActionBoardUpdated = "board.updated"

// updateBoardRule is what the proto declares of boards_update: its
// min_role (admin), name and title.
var updateBoardRule = methods.Must(taskwirev1.BoardService_UpdateBoard_FullMethodName)

// UpdateBoard changes a board's name, standing rules or WIP limits; only
// owners and admins may.
func (s *Service) UpdateBoard(ctx context.Context, req *taskwirev1.UpdateBoardRequest) (*taskwirev1.UpdateBoardResponse, error) {
	return call(ctx, s, req, s.updateBoard)
}

func (s *Service) updateBoard(ctx context.Context, a actor, req *taskwirev1.UpdateBoardRequest) (*taskwirev1.UpdateBoardResponse, error) {
	// The worker refuses weaker roles already (the tool's min_role); the
	// rules of a board direct every assistant on it, so check again here.
	if err := a.mayRun(updateBoardRule); err != nil {
		return nil, err
	}
	ch, err := checkBoardChange(req)
	if err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, s.client, idempotency.Caller{TenantID: a.tenant.ID, MemberID: a.member.ID},
		taskwirev1.BoardService_UpdateBoard_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.UpdateBoardResponse, error) {
			b, err := findBoard(ctx, tx.Client(), a, req.GetBoard())
			if err != nil {
				return nil, err
			}
			if b, err = ch.apply(ctx, tx, a, b); err != nil {
				return nil, err
			}
			detail, err := boardDetail(ctx, tx.Client(), a, b)
			return &taskwirev1.UpdateBoardResponse{Board: detail}, err
		})
}

// mayRun refuses a caller whose role is below rule's least role.
func (a actor) mayRun(rule methods.Rule) error {
	if role := string(a.member.Role); !authz.AtLeast(role, rule.MinRole) {
		r := rule.Refusal(role, a.tenant.Slug)
		return domainerr.New(domainerr.PermissionDenied, "%s", domainerr.Safe(r.LeastRoleSentence(rule.MinRole)))
	}
	return nil
}

// boardChange is a checked UpdateBoardRequest.
type boardChange struct {
	name, rules *string
	wip         map[string]int // lane name → limit, 0 to remove
}

func checkBoardChange(req *taskwirev1.UpdateBoardRequest) (boardChange, error) {
	var ch boardChange
	if req.Name != nil {
		name, err := line("name", *req.Name)
		if err != nil {
			return ch, err
		}
		switch n := utf8.RuneCountInString(name); {
		case n == 0:
			return ch, domainerr.New(domainerr.Invalid, "name is empty: give the board a display name, or leave name out to keep it")
		case n > MaxBoardName:
			return ch, domainerr.New(domainerr.Invalid, "name is %d characters long, more than %d: shorten it", n, MaxBoardName)
		}
		ch.name = &name
	}
	if req.Rules != nil {
		rules := safetext.Block(*req.Rules)
		if n := utf8.RuneCountInString(rules); n > MaxRules {
			return ch, domainerr.New(domainerr.Invalid, "rules are %d characters long, more than %d: shorten them", n, MaxRules)
		}
		ch.rules = &rules
	}
	for _, w := range req.GetWipLimits() {
		lane, ok, err := laneFromProto(w.GetLane())
		if err != nil {
			return ch, err
		}
		if !ok {
			return ch, domainerr.New(domainerr.Invalid, "a WIP limit names no lane: give each one a lane: backlog, next, doing or done")
		}
		if _, dup := ch.wip[string(lane)]; dup {
			return ch, domainerr.New(domainerr.Invalid, "lane %s has two WIP limits: give each lane at most one", lane)
		}
		if l := w.GetLimit(); l < 0 || l > MaxWipLimit {
			return ch, domainerr.New(domainerr.Invalid, "WIP limit %d of lane %s is out of range: use 1 to %d, or 0 to remove the limit", l, lane, MaxWipLimit)
		}
		if ch.wip == nil {
			ch.wip = map[string]int{}
		}
		ch.wip[string(lane)] = int(w.GetLimit())
	}
	if ch.name == nil && ch.rules == nil && ch.wip == nil {
		return ch, domainerr.New(domainerr.Invalid, "nothing to change: give a name, rules or wip_limits")
	}
	return ch, nil
}

// apply writes ch to b, recording what changed, and returns b as it is
// now. A change to what b already holds writes nothing.
func (ch boardChange) apply(ctx context.Context, tx *ent.Tx, a actor, b *ent.Board) (*ent.Board, error) {
	u := tx.Board.UpdateOneID(b.ID).Where(entboard.TenantID(a.tenant.ID))
	var changed []string
	if ch.name != nil && *ch.name != b.Name {
		u.SetName(*ch.name)
		changed = append(changed, "name")
	}
	if ch.rules != nil && *ch.rules != b.Rules {
		u.SetRules(*ch.rules)
		changed = append(changed, "rules")
	}
	if ch.wip != nil {
		wip := maps.Clone(b.WipLimits)
		if wip == nil {
			wip = map[string]int{}
		}
		for lane, l := range ch.wip {
			if l == 0 {
				delete(wip, lane)
			} else {
				wip[lane] = l
			}
		}
		if !maps.Equal(wip, b.WipLimits) {
			u.SetWipLimits(wip)
			changed = append(changed, "wip_limits")
		}
	}
	if changed == nil {
		return b, nil
	}
	b, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	detail := map[string]any{"board": b.Slug, "changed": changed}
	if ch.wip != nil {
		detail["wip_limits"] = b.WipLimits
	}
	return b, record(ctx, tx, a, ActionBoardUpdated, nil, detail)
}
