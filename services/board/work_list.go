package board

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/workitem"
)

// maxWorkToApprove bounds one list of work waiting for a person: an inbox
// shows it at a glance.
const maxWorkToApprove = 100

// ListWorkToApprove lists the work of the caller's tenant that waits for a
// person to approve it again, longest waiting first: its claims ran out
// (exhausted, or its last lease lapsed at max_claims), or its last holder
// released it with a reason a person may need to act on.
func (s *Service) ListWorkToApprove(ctx context.Context, req *taskwirev1.ListWorkToApproveRequest) (*taskwirev1.ListWorkToApproveResponse, error) {
	return call(ctx, s, req, s.listWorkToApprove)
}

func (s *Service) listWorkToApprove(ctx context.Context, a actor, _ *taskwirev1.ListWorkToApproveRequest) (*taskwirev1.ListWorkToApproveResponse, error) {
	if a.member.Kind != member.KindHuman {
		return nil, domainerr.New(domainerr.PermissionDenied,
			"only people list work to approve: %s is an assistant; call work_next for work that is approved", a.member.Handle)
	}
	ws, err := s.client.WorkItem.Query().
		Where(workitem.TenantID(a.tenant.ID), toApprove(workNow()), workitem.HasTaskWith(task.DeletedAtIsNil())).
		WithTask().Order(ent.Asc(workitem.FieldApprovedAt), ent.Asc(workitem.FieldID)).
		Limit(maxWorkToApprove).All(ctx)
	if err != nil {
		return nil, err
	}
	n := names{boards: map[int]string{}, members: map[int]*ent.Member{}, me: a.member.ID}
	var boardIDs, memberIDs []int
	for _, w := range ws {
		boardIDs = append(boardIDs, w.BoardID)
		memberIDs = append(memberIDs, w.ApprovedByID)
	}
	if err := a.names.addBoards(ctx, s.client, a, n, uniq(boardIDs)); err != nil {
		return nil, err
	}
	if err := n.addMembers(ctx, s.client, a, uniq(memberIDs)); err != nil {
		return nil, err
	}
	out := &taskwirev1.ListWorkToApproveResponse{}
	for _, w := range ws {
		t := w.Edges.Task
		out.Items = append(out.Items, &taskwirev1.WorkToApprove{Work: workOut(t, w, n.handle), Title: t.Title, Board: n.boards[w.BoardID]})
	}
	return out, nil
}

// toApprove is the condition of work waiting for a person at now:
// exhausted; claimed at its last claim under a lease that has lapsed;
// or back in the queue after a release with a reason.
func toApprove(now time.Time) predicate.WorkItem {
	return workitem.Or(
		workitem.StateEQ(workitem.StateExhausted),
		workitem.And(workitem.StateEQ(workitem.StateClaimed), workitem.LeaseExpiresAtLTE(now),
			predicate.WorkItem(sql.FieldsGTE(workitem.FieldClaims, workitem.FieldMaxClaims))),
		workitem.And(workitem.StateEQ(workitem.StateApproved), workitem.LastReleaseReasonNEQ("")),
	)
}
