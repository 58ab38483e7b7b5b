package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/confirmation"
	"github.com/taskwire/taskwire/internal/ent/contextnote"
	"github.com/taskwire/taskwire/internal/ent/idempotencykey"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/privacy"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
	"github.com/taskwire/taskwire/internal/ent/token"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/poll"
)

// isoSnapshot is everything a tenant holds, read straight from the
// database past the tenant rule: the tenant, its boards, tasks, links,
// comments, context notes, work items and leases, members and roles,
// tokens and revocations, activity, used confirmations, idempotency keys
// and audit events, one line each, in id order.
func isoSnapshot(t *testing.T, db *ent.Client, tenantID int) []string {
	t.Helper()
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	var lines []string
	add := func(kind string, rows []fmt.Stringer, err error) {
		if err != nil {
			t.Fatalf("reading %s of tenant %d: %v", kind, tenantID, err)
		}
		lines = append(lines, fmt.Sprintf("%d %s", len(rows), kind))
		for _, r := range rows {
			lines = append(lines, r.String())
		}
	}
	ten, err := db.Tenant.Get(ctx, tenantID)
	add("tenant", []fmt.Stringer{ten}, err)
	add(rowsOf(db.Board.Query().Where(board.TenantID(tenantID)).Order(ent.Asc(board.FieldID)).All(ctx)))
	add(rowsOf(db.Task.Query().Where(task.TenantID(tenantID)).Order(ent.Asc(task.FieldID)).All(ctx)))
	add(rowsOf(db.TaskLink.Query().Where(tasklink.TenantID(tenantID)).Order(ent.Asc(tasklink.FieldID)).All(ctx)))
	add(rowsOf(db.Comment.Query().Where(comment.TenantID(tenantID)).Order(ent.Asc(comment.FieldID)).All(ctx)))
	add(rowsOf(db.ContextNote.Query().Where(contextnote.TenantID(tenantID)).Order(ent.Asc(contextnote.FieldID)).All(ctx)))
	add(rowsOf(db.WorkItem.Query().Where(workitem.TenantID(tenantID)).Order(ent.Asc(workitem.FieldID)).All(ctx)))
	add(rowsOf(db.Member.Query().Where(member.TenantID(tenantID)).Order(ent.Asc(member.FieldID)).All(ctx)))
	add(rowsOf(db.Token.Query().Where(token.TenantID(tenantID)).Order(ent.Asc(token.FieldID)).All(ctx)))
	add(rowsOf(db.Activity.Query().Where(activity.TenantID(tenantID)).Order(ent.Asc(activity.FieldID)).All(ctx)))
	add(rowsOf(db.Confirmation.Query().Where(confirmation.TenantID(tenantID)).Order(ent.Asc(confirmation.FieldID)).All(ctx)))
	add(rowsOf(db.IdempotencyKey.Query().Where(idempotencykey.TenantID(tenantID)).Order(ent.Asc(idempotencykey.FieldID)).All(ctx)))
	add(rowsOf(db.AuditEvent.Query().Where(auditevent.TenantID(tenantID)).Order(ent.Asc(auditevent.FieldID)).All(ctx)))
	return lines
}

// rowsOf names the entity of rows and makes them Stringers.
func rowsOf[R fmt.Stringer](rows []R, err error) (string, []fmt.Stringer, error) {
	out := make([]fmt.Stringer, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return fmt.Sprintf("%T", *new(R)), out, err
}

// settle waits until the worker has written the audit events of every
// call the tenant's members made so far: it makes one more call and
// waits for its event, which the worker's queue writes after the others.
func (w *isoWorld) settle(t *testing.T, db *ent.Client) {
	t.Helper()
	w.settles++
	label := fmt.Sprintf("%s settle %d", w.label, w.settles)
	if a := w.wire.mcp(w.owner, label, isoCall{method: "tools/call", name: "whoami", params: toolParams("whoami", map[string]any{})}); a.status != 200 {
		t.Fatalf("tenant %s: whoami = %d %s", w.name, a.status, a.body)
	}
	ctx := privacy.DecisionContext(context.Background(), privacy.Allow)
	poll.Until(t, 10*time.Second, "tenant "+w.name+"'s audit log to catch up", func() bool {
		n, err := db.AuditEvent.Query().Where(auditevent.TenantID(w.id), auditevent.SessionLabel(label)).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
}
