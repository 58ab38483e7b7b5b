package board

import (
	"context"
	"strings"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/idempotency"
	"github.com/taskwire/taskwire/internal/quota"
	"github.com/taskwire/taskwire/internal/safetext"
)

// CompleteWork finishes claimed work: the work is completed with its test
// status, the task moves to the bottom of its board's done lane (its
// version rises) and the notes become the caller's comment on it.
//
// The done lane's WIP limit does not stop a completion: the work is done
// whether or not the lane has room, and refusing would leave an assistant
// holding finished work it cannot hand in. The limit still applies to
// tasks people move into done with tasks_move.
func (s *Service) CompleteWork(ctx context.Context, req *taskwirev1.CompleteWorkRequest) (*taskwirev1.CompleteWorkResponse, error) {
	return call(ctx, s, req, s.completeWork)
}

// testStatusFromProto maps the API's test status onto the stored one.
var testStatusFromProto = map[taskwirev1.TestStatus]workitem.TestStatus{
	taskwirev1.TestStatus_TEST_STATUS_PASSED:  workitem.TestStatusPassed,
	taskwirev1.TestStatus_TEST_STATUS_FAILED:  workitem.TestStatusFailed,
	taskwirev1.TestStatus_TEST_STATUS_NOT_RUN: workitem.TestStatusNotRun,
}

func (s *Service) completeWork(ctx context.Context, a actor, req *taskwirev1.CompleteWorkRequest) (*taskwirev1.CompleteWorkResponse, error) {
	status, ok := testStatusFromProto[req.GetTestStatus()]
	if !ok {
		return nil, domainerr.New(domainerr.Invalid, "test_status is missing: say whether the tests passed, failed or were not run")
	}
	notes := safetext.Block(req.GetNotes())
	switch n := utf8.RuneCountInString(notes); {
	case strings.TrimSpace(notes) == "":
		return nil, domainerr.New(domainerr.Invalid, "notes are empty: say what you did, for the people who read the task")
	case n > MaxCompletionNotes:
		return nil, domainerr.New(domainerr.Invalid, "notes are %d characters long, more than %d: shorten them and add details as further comments", n, MaxCompletionNotes)
	}
	method := taskwirev1.WorkService_CompleteWork_FullMethodName
	return idempotency.Do(ctx, s.client, idemCaller(a), method, req, func(tx *ent.Tx) (*taskwirev1.CompleteWorkResponse, error) {
		// The done lane's order is written below: serialize with the other
		// writes that order lanes.
		if err := quota.Lock(ctx, tx, a.tenant.ID); err != nil {
			return nil, err
		}
		now := workNow()
		t, w, err := heldWork(ctx, tx, a, req.GetRef(), req.GetLeaseToken(), now)
		if err != nil {
			return nil, err
		}
		u := endLease(tx, a, w).SetState(workitem.StateCompleted).SetTestStatus(status).SetCompletedAt(now)
		if w, err = saveWork(ctx, t, u); err != nil {
			return nil, err
		}
		done, err := moveToDone(ctx, tx, a, t)
		if err != nil {
			return nil, err
		}
		c, err := tx.Comment.Create().SetTenantID(a.tenant.ID).SetTaskID(t.ID).SetAuthorID(a.member.ID).SetBody(notes).Save(ctx)
		if err != nil {
			return nil, err
		}
		detail := map[string]any{"ref": Ref(t.Number), "version": done.Version, "from": string(t.Lane),
			"test_status": string(status), "comment": c.Number}
		if err := record(ctx, tx, a, ActionWorkCompleted, done, detail); err != nil {
			return nil, err
		}
		tp, err := taskProto(ctx, tx.Client(), a, done)
		if err != nil {
			return nil, err
		}
		wp, err := workProto(ctx, tx.Client(), a, done, w)
		return &taskwirev1.CompleteWorkResponse{Task: tp, Work: wp}, err
	})
}

// moveToDone puts t at the bottom of its board's done lane (where it stays
// if it is there already) and bumps its version.
func moveToDone(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task) (*ent.Task, error) {
	u := tx.Task.UpdateOneID(t.ID).Where(task.TenantID(a.tenant.ID), task.Version(t.Version)).AddVersion(1)
	if t.Lane != task.LaneDone {
		pos, err := bottom(ctx, tx.Client(), a, t.BoardID, task.LaneDone)
		if err != nil {
			return nil, err
		}
		u.SetLane(task.LaneDone).SetPosition(pos)
	}
	return saveTask(ctx, t, u)
}
