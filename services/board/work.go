package board

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/worklimits"
)

// Actions of the work queue recorded in the activity log.
const (
	ActionWorkApproved  = "work.approved"
	ActionWorkClaimed   = "work.claimed"
	ActionWorkReleased  = "work.released"
	ActionWorkCompleted = "work.completed"
)

// Limits of approved work.
const (
	MaxPlan             = worklimits.MaxPlan
	MaxReleaseReason    = 2000  // characters of the reason for a release
	MaxCompletionNotes  = 20000 // characters of the notes of completed work
	DefaultLeaseMinutes = worklimits.DefaultLeaseMinutes
	MaxLeaseMinutes     = worklimits.MaxLeaseMinutes
	DefaultMaxClaims    = worklimits.DefaultMaxClaims
	MaxMaxClaims        = worklimits.MaxMaxClaims
)

// workNow is the time of a work-queue operation: UTC to the microsecond,
// what PostgreSQL keeps, so an expiry written equals the expiry read back.
func workNow() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}

// leaseLength is how long one lease of w lasts.
func leaseLength(w *ent.WorkItem) time.Duration {
	return time.Duration(w.LeaseMinutes) * time.Minute
}

// stamp formats a time for a message to the caller.
func stamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// lapsed reports whether w is claimed under a lease that has run out at
// now: nobody holds it any more.
func lapsed(w *ent.WorkItem, now time.Time) bool {
	return w.State == workitem.StateClaimed && (w.LeaseExpiresAt == nil || !now.Before(*w.LeaseExpiresAt))
}

// claimable is the condition, on the work item's own columns, under which
// it may be claimed at now: waiting in the queue, or claimed under a lease
// that has lapsed, and claimed fewer than max_claims times.
func claimable(now time.Time) predicate.WorkItem {
	return workitem.And(
		workitem.Or(
			workitem.StateEQ(workitem.StateApproved),
			workitem.And(workitem.StateEQ(workitem.StateClaimed), workitem.LeaseExpiresAtLTE(now)),
		),
		predicate.WorkItem(sql.FieldsLT(workitem.FieldClaims, workitem.FieldMaxClaims)),
	)
}

// testStatuses maps the stored test status onto the API's.
var testStatuses = map[workitem.TestStatus]taskwirev1.TestStatus{
	workitem.TestStatusPassed: taskwirev1.TestStatus_TEST_STATUS_PASSED,
	workitem.TestStatusFailed: taskwirev1.TestStatus_TEST_STATUS_FAILED,
	workitem.TestStatusNotRun: taskwirev1.TestStatus_TEST_STATUS_NOT_RUN,
}

// workOf returns the work item of task t, or nil when t was never
// approved.
func workOf(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task) (*ent.WorkItem, error) {
	w, err := tx.WorkItem.Query().Where(workitem.TenantID(a.tenant.ID), workitem.TaskID(t.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return w, err
}

// workProto converts w, the work on task t, for a response, looking up
// the handles of its approver and holder.
func workProto(ctx context.Context, c *ent.Client, a actor, t *ent.Task, w *ent.WorkItem) (*taskwirev1.Work, error) {
	ids := []int{w.ApprovedByID}
	if w.HolderID != nil {
		ids = append(ids, *w.HolderID)
	}
	ms, err := c.Member.Query().Where(member.TenantID(a.tenant.ID), member.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	handles := map[int]string{}
	for _, m := range ms {
		handles[m.ID] = m.Handle
	}
	return workOut(t, w, func(id int) string { return handles[id] }), nil
}

// workOut converts w, the work on task t, with handle naming members.
func workOut(t *ent.Task, w *ent.WorkItem, handle func(int) string) *taskwirev1.Work {
	p := &taskwirev1.Work{
		Ref:               Ref(t.Number),
		State:             string(w.State),
		Plan:              w.Plan,
		PlanTrust:         taskwirev1.Trust_TRUST_INSTRUCTION,
		ApprovedBy:        handle(w.ApprovedByID),
		LeaseMinutes:      int32(w.LeaseMinutes),
		MaxClaims:         int32(w.MaxClaims),
		Claims:            int32(w.Claims),
		LastReleaseReason: w.LastReleaseReason,
	}
	if w.State == workitem.StateClaimed {
		if w.HolderID != nil {
			p.Holder = handle(*w.HolderID)
		}
		if w.LeaseExpiresAt != nil {
			p.LeaseExpiresAt = timestamppb.New(*w.LeaseExpiresAt)
		}
	}
	if w.TestStatus != nil {
		p.TestStatus = testStatuses[*w.TestStatus]
	}
	return p
}
