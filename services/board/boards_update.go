package board

import (
	"context"
	"maps"
	"slices"
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

// ActionBoardUpdated is recorded when a board's name, rules, WIP limits or
// kinds change.
const ActionBoardUpdated = "board.updated"

// updateBoardRule is what the proto declares of boards_update: its
// min_role (admin), name and title.
var updateBoardRule = methods.Must(taskwirev1.BoardService_UpdateBoard_FullMethodName)

// UpdateBoard changes a board's name, standing rules, WIP limits or
// kinds, and bumps its version; only owners and admins may.
func (s *Service) UpdateBoard(ctx context.Context, req *taskwirev1.UpdateBoardRequest) (*taskwirev1.UpdateBoardResponse, error) {
	return call(ctx, s, req, s.updateBoard)
}

func (s *Service) updateBoard(ctx context.Context, a actor, req *taskwirev1.UpdateBoardRequest) (*taskwirev1.UpdateBoardResponse, error) {
	// The worker refuses weaker roles already (the tool's min_role); the
	// rules of a board direct every assistant on it, so check again here.
	if err := a.mayRun(updateBoardRule); err != nil {
		return nil, err
	}
	if err := checkExpected(req.GetExpectedVersion()); err != nil {
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
			if err := checkBoardVersion(b, req.GetExpectedVersion()); err != nil {
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
	kinds       *[]string      // as the board stores them: nil for every kind
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
	if ks, ok, err := checkKinds(req.GetKinds()); err != nil {
		return ch, err
	} else if ok {
		ch.kinds = &ks
	}
	if ch.name == nil && ch.rules == nil && ch.wip == nil && ch.kinds == nil {
		return ch, domainerr.New(domainerr.Invalid, "nothing to change: give a name, rules, wip_limits or kinds")
	}
	return ch, nil
}

// apply writes ch to b, recording what changed, and returns b as it is
// now. A change to what b already holds writes nothing.
func (ch boardChange) apply(ctx context.Context, tx *ent.Tx, a actor, b *ent.Board) (*ent.Board, error) {
	u := tx.Board.UpdateOneID(b.ID).Where(entboard.TenantID(a.tenant.ID), entboard.Version(b.Version)).AddVersion(1)
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
	if ch.kinds != nil && !slices.Equal(*ch.kinds, b.Kinds) {
		if *ch.kinds == nil {
			u.ClearKinds()
		} else {
			u.SetKinds(*ch.kinds)
		}
		changed = append(changed, "kinds")
	}
	if changed == nil {
		return b, nil
	}
	after, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, boardConflict(b, b.Version)
	}
	if err != nil {
		return nil, err
	}
	b = after
	detail := map[string]any{"board": b.Slug, "changed": changed, "version": b.Version}
	if ch.kinds != nil {
		detail["kinds"] = b.Kinds
	}
	if ch.wip != nil {
		detail["wip_limits"] = b.WipLimits
	}
	return b, record(ctx, tx, a, ActionBoardUpdated, nil, detail)
}

// checkBoardVersion refuses a change to b made against another version
// than expected (0 means any version).
func checkBoardVersion(b *ent.Board, expected int32) error {
	if expected != 0 && int(expected) != b.Version {
		return boardConflict(b, int(expected))
	}
	return nil
}

// boardConflict reports that b is no longer at version want.
func boardConflict(b *ent.Board, want int) error {
	if b.Version != want {
		return domainerr.New(domainerr.Conflict,
			"board %s changed since version %d (now %d): read it again with boards_get, then retry with expected_version %d",
			b.Slug, want, b.Version, b.Version)
	}
	return domainerr.New(domainerr.Conflict, "board %s was changed by someone else at the same time: read it again with boards_get, then retry",
		b.Slug)
}
