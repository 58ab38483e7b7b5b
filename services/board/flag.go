package board

import (
	"context"
	"strings"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/safetext"
)

// MaxFlagReason is the longest flag reason, in characters.
const MaxFlagReason = 500

// Actions recorded when a task's flag is raised or cleared.
const (
	ActionTaskFlagged   = "task.flagged"
	ActionTaskUnflagged = "task.unflagged"
)

// FlagTask raises a task's flag, with a reason, or clears it.
func (s *Service) FlagTask(ctx context.Context, req *taskwirev1.FlagTaskRequest) (*taskwirev1.FlagTaskResponse, error) {
	return call(ctx, s, req, s.flagTask)
}

func (s *Service) flagTask(ctx context.Context, a actor, req *taskwirev1.FlagTaskRequest) (*taskwirev1.FlagTaskResponse, error) {
	if _, err := parseRef(req.GetRef()); err != nil {
		return nil, err
	}
	if err := checkExpected(req.GetExpectedVersion()); err != nil {
		return nil, err
	}
	reason, err := checkFlagReason(req.GetFlagged(), req.GetReason())
	if err != nil {
		return nil, err
	}
	action := ActionTaskFlagged
	if !req.GetFlagged() {
		action = ActionTaskUnflagged
	}
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_FlagTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.FlagTaskResponse, error) {
			_, t, err := changeTask(ctx, tx, a, req.GetRef(), req.GetExpectedVersion(), action,
				func(t *ent.Task, u *ent.TaskUpdateOne) (map[string]any, error) {
					if t.Flagged == req.GetFlagged() && t.FlagReason == reason {
						return nil, nil
					}
					u.SetFlagged(req.GetFlagged()).SetFlagReason(reason)
					if !req.GetFlagged() {
						return map[string]any{"reason_was": t.FlagReason}, nil
					}
					return map[string]any{"reason": reason}, nil
				})
			if err != nil {
				return nil, err
			}
			p, err := taskProto(ctx, tx.Client(), a, t)
			return &taskwirev1.FlagTaskResponse{Task: p}, err
		})
}

// checkFlagReason returns the reason to store: trimmed when flagging (and
// then required), empty when clearing.
func checkFlagReason(flagged bool, reason string) (string, error) {
	if !flagged {
		return "", nil
	}
	reason = strings.TrimSpace(safetext.Block(reason))
	switch n := utf8.RuneCountInString(reason); {
	case n == 0:
		return "", domainerr.New(domainerr.Invalid, "reason is empty: say in a sentence why the task is flagged (what blocks it, or what a person should look at)")
	case n > MaxFlagReason:
		return "", domainerr.New(domainerr.Invalid, "reason is %d characters long, more than %d: shorten it and put details in a comment", n, MaxFlagReason)
	}
	return reason, nil
}
