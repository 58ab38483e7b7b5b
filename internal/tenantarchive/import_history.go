package tenantarchive

import (
	"context"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/workitem"
)

// loadWork creates the work items. A claimed item comes with its lease
// ended (see workRecord) and no lease secret: it may be claimed again.
func (im *importer) loadWork(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.WorkItemCreate) error {
		return im.tx.WorkItem.CreateBulk(creates...).Exec(ctx)
	})
	n, err := records(r, WorkItemsEntry, func(_ int, rec *workRecord) error {
		c, err := im.workCreate(rec)
		if err != nil {
			return err
		}
		return b.add(ctx, c)
	})
	if err != nil {
		return 0, err
	}
	return n, b.flush(ctx)
}

func (im *importer) workCreate(rec *workRecord) (*ent.WorkItemCreate, error) {
	taskID, err := im.task(rec.Task)
	if err != nil {
		return nil, err
	}
	boardID, err := im.board(rec.Board)
	if err != nil {
		return nil, err
	}
	approver, err := im.member(rec.ApprovedBy)
	if err != nil {
		return nil, err
	}
	c := im.tx.WorkItem.Create().SetTenantID(im.tenant.ID).SetTaskID(taskID).SetBoardID(boardID).
		SetState(workitem.State(rec.State)).SetPlan(rec.Plan).SetApprovedByID(approver).SetApprovedAt(rec.ApprovedAt).
		SetLeaseMinutes(rec.LeaseMinutes).SetMaxClaims(rec.MaxClaims).SetClaims(rec.Claims).SetFence(rec.Fence).
		SetNillableLeaseExpiresAt(rec.LeaseExpiresAt).SetLastReleaseReason(rec.LastReleaseReason).
		SetNillableCompletedAt(rec.CompletedAt)
	if rec.Holder != "" {
		holder, err := im.member(rec.Holder)
		if err != nil {
			return nil, err
		}
		c.SetHolderID(holder)
	}
	if rec.TestStatus != "" {
		c.SetTestStatus(workitem.TestStatus(rec.TestStatus))
	}
	return c, nil
}

// loadActivity creates the history, in its order.
func (im *importer) loadActivity(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.ActivityCreate) error {
		return im.tx.Activity.CreateBulk(creates...).Exec(ctx)
	})
	n, err := records(r, ActivityEntry, func(_ int, rec *activityRecord) error {
		actor, err := im.member(rec.Actor)
		if err != nil {
			return err
		}
		c := im.tx.Activity.Create().SetTenantID(im.tenant.ID).SetActorID(actor).SetActorKind(activity.ActorKind(rec.ActorKind)).
			SetAction(rec.Action).SetClient(rec.Client).SetCreatedAt(rec.CreatedAt)
		if rec.Detail != nil {
			c.SetDetail(rec.Detail)
		}
		if rec.Task != "" {
			taskID, err := im.task(rec.Task)
			if err != nil {
				return err
			}
			c.SetTaskID(taskID)
		}
		return b.add(ctx, c)
	})
	if err != nil {
		return 0, err
	}
	return n, b.flush(ctx)
}

// loadAudit creates the audit trail, in its order.
func (im *importer) loadAudit(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.AuditEventCreate) error {
		return im.tx.AuditEvent.CreateBulk(creates...).Exec(ctx)
	})
	n, err := records(r, AuditEventsEntry, func(_ int, rec *auditRecord) error {
		c := im.tx.AuditEvent.Create().SetTenantID(im.tenant.ID).SetOccurredAt(rec.OccurredAt).SetMemberHandle(rec.MemberHandle).
			SetSponsorHandle(rec.SponsorHandle).SetTokenID(rec.TokenID).SetSessionLabel(rec.SessionLabel).SetMethod(rec.Method).
			SetTool(rec.Tool).SetOutcome(rec.Outcome).SetErrorMessage(rec.ErrorMessage).SetTraceID(rec.TraceID).
			SetDurationMs(rec.DurationMS)
		if rec.Targets != nil {
			c.SetTargets(rec.Targets)
		}
		if rec.MemberKind != "" {
			c.SetMemberKind(auditevent.MemberKind(rec.MemberKind))
		}
		if rec.Member != "" {
			id, err := im.member(rec.Member)
			if err != nil {
				return err
			}
			c.SetMemberID(id)
		}
		return b.add(ctx, c)
	})
	if err != nil {
		return 0, err
	}
	return n, b.flush(ctx)
}
