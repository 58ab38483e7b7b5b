package tenantarchive

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/auditevent"
	"github.com/taskwire/taskwire/internal/ent/board"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/contextnote"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
	"github.com/taskwire/taskwire/internal/ent/workitem"
)

func (x *exporter) writeMembers(ctx context.Context, enc *json.Encoder) error {
	var all []*ent.Member // a tenant's members are few, and a sponsor may come after its assistant
	err := pages(ctx, func(ctx context.Context, last *ent.Member) ([]*ent.Member, error) {
		q := x.tx.Member.Query().Where(member.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(member.HandleGT(last.Handle))
		}
		return q.Order(ent.Asc(member.FieldHandle)).Limit(pageSize).All(ctx)
	}, func(m *ent.Member) error {
		x.members[m.ID] = m.Handle
		all = append(all, m)
		return nil
	})
	if err != nil {
		return err
	}
	// In the order they joined: their ids are random.
	slices.SortStableFunc(all, func(a, b *ent.Member) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.Handle, b.Handle))
	})
	for _, m := range all {
		rec := memberRecord{Handle: m.Handle, DisplayName: m.DisplayName, Kind: string(m.Kind), Role: string(m.Role),
			CreatedAt: utc(m.CreatedAt), RemovedAt: utcp(m.RemovedAt)}
		if m.SponsorID != nil {
			if rec.Sponsor, err = x.member(*m.SponsorID); err != nil {
				return err
			}
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

// member returns the handle of the member id, which every reference to a
// member of the tenant must name.
func (x *exporter) member(id int) (string, error) {
	h, ok := x.members[id]
	if !ok {
		return "", fmt.Errorf("a row names member %d, which is not a member of the tenant", id)
	}
	return h, nil
}

func (x *exporter) handles(ids []int) ([]string, error) {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		h, err := x.member(id)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

func (x *exporter) board(id int) (string, error) {
	s, ok := x.boards[id]
	if !ok {
		return "", fmt.Errorf("a row names board %d, which is not a board of the tenant", id)
	}
	return s, nil
}

func (x *exporter) task(id int) (string, error) {
	n, ok := x.tasks[id]
	if !ok {
		return "", fmt.Errorf("a row names task %d, which is not a task of the tenant", id)
	}
	return ref(n), nil
}

func (x *exporter) writeBoards(ctx context.Context, enc *json.Encoder) error {
	return pages(ctx, func(ctx context.Context, last *ent.Board) ([]*ent.Board, error) {
		q := x.tx.Board.Query().Where(board.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(board.SlugGT(last.Slug))
		}
		return q.Order(ent.Asc(board.FieldSlug)).Limit(pageSize).All(ctx)
	}, func(b *ent.Board) error {
		x.boards[b.ID] = b.Slug
		return enc.Encode(boardRecord{Slug: b.Slug, Name: b.Name, IsDefault: b.IsDefault, Rules: b.Rules,
			WIPLimits: b.WipLimits, Kinds: b.Kinds, Version: b.Version, CreatedAt: utc(b.CreatedAt), ArchivedAt: utcp(b.ArchivedAt)})
	})
}

func (x *exporter) writeTasks(ctx context.Context, enc *json.Encoder) error {
	return pages(ctx, func(ctx context.Context, last *ent.Task) ([]*ent.Task, error) {
		q := x.tx.Task.Query().Where(task.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(task.NumberGT(last.Number))
		}
		return q.Order(ent.Asc(task.FieldNumber)).Limit(pageSize).All(ctx)
	}, func(t *ent.Task) error {
		x.tasks[t.ID] = t.Number
		rec, err := x.taskRecord(t)
		if err != nil {
			return fmt.Errorf("%s: %w", ref(t.Number), err)
		}
		return enc.Encode(rec)
	})
}

func (x *exporter) taskRecord(t *ent.Task) (rec taskRecord, err error) {
	rec = taskRecord{Ref: ref(t.Number), Title: t.Title, Note: t.Note, Lane: string(t.Lane), Kind: string(t.Kind),
		Labels: t.Labels, Project: t.Project, Position: t.Position, Flagged: t.Flagged, FlagReason: t.FlagReason,
		Version: t.Version, CreatedAt: utc(t.CreatedAt), UpdatedAt: utc(t.UpdatedAt), DeletedAt: utcp(t.DeletedAt)}
	if rec.Labels == nil {
		rec.Labels = []string{}
	}
	if t.Size != nil {
		rec.Size = string(*t.Size)
	}
	if rec.Board, err = x.board(t.BoardID); err != nil {
		return rec, err
	}
	if rec.CreatedBy, err = x.member(t.CreatedByID); err != nil {
		return rec, err
	}
	if rec.Assignees, err = x.handles(t.AssigneeIds); err != nil {
		return rec, err
	}
	rec.TextAuthors, err = x.handles(t.TextAuthorIds)
	return rec, err
}

func (x *exporter) writeLinks(ctx context.Context, enc *json.Encoder) error {
	key := []string{tasklink.FieldFromTaskID, tasklink.FieldToTaskID, tasklink.FieldKind}
	return pages(ctx, func(ctx context.Context, last *ent.TaskLink) ([]*ent.TaskLink, error) {
		q := x.tx.TaskLink.Query().Where(tasklink.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(predicate.TaskLink(after(key, last.FromTaskID, last.ToTaskID, string(last.Kind))))
		}
		return q.Order(ent.Asc(key...)).Limit(pageSize).All(ctx)
	}, func(l *ent.TaskLink) (err error) {
		rec := linkRecord{Kind: string(l.Kind), CreatedAt: utc(l.CreatedAt)}
		if rec.From, err = x.task(l.FromTaskID); err != nil {
			return err
		}
		if rec.To, err = x.task(l.ToTaskID); err != nil {
			return err
		}
		if rec.CreatedBy, err = x.member(l.CreatedByID); err != nil {
			return err
		}
		return enc.Encode(rec)
	})
}

func (x *exporter) writeComments(ctx context.Context, enc *json.Encoder) error {
	return pages(ctx, func(ctx context.Context, last *ent.Comment) ([]*ent.Comment, error) {
		q := x.tx.Comment.Query().Where(comment.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(comment.NumberGT(last.Number))
		}
		return q.Order(ent.Asc(comment.FieldNumber)).Limit(pageSize).All(ctx)
	}, func(c *ent.Comment) (err error) {
		rec := commentRecord{Number: c.Number, Body: c.Body, Version: c.Version, CreatedAt: utc(c.CreatedAt), EditedAt: utcp(c.EditedAt)}
		if rec.Task, err = x.task(c.TaskID); err != nil {
			return err
		}
		if rec.Author, err = x.member(c.AuthorID); err != nil {
			return err
		}
		return enc.Encode(rec)
	})
}

func (x *exporter) writeNotes(ctx context.Context, enc *json.Encoder) error {
	return pages(ctx, func(ctx context.Context, last *ent.ContextNote) ([]*ent.ContextNote, error) {
		q := x.tx.ContextNote.Query().Where(contextnote.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(contextnote.NumberGT(last.Number))
		}
		return q.Order(ent.Asc(contextnote.FieldNumber)).Limit(pageSize).All(ctx)
	}, func(n *ent.ContextNote) (err error) {
		rec := noteRecord{Number: n.Number, Body: n.Body, CreatedAt: utc(n.CreatedAt)}
		if rec.Board, err = x.board(n.BoardID); err != nil {
			return err
		}
		if rec.Author, err = x.member(n.AuthorID); err != nil {
			return err
		}
		return enc.Encode(rec)
	})
}

func (x *exporter) writeWork(ctx context.Context, enc *json.Encoder) error {
	key := []string{workitem.FieldState, workitem.FieldApprovedAt, workitem.FieldID}
	return pages(ctx, func(ctx context.Context, last *ent.WorkItem) ([]*ent.WorkItem, error) {
		q := x.tx.WorkItem.Query().Where(workitem.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(predicate.WorkItem(after(key, string(last.State), last.ApprovedAt, last.ID)))
		}
		return q.Order(ent.Asc(key...)).Limit(pageSize).All(ctx)
	}, func(w *ent.WorkItem) error {
		rec, err := x.workRecord(w)
		if err != nil {
			return err
		}
		return enc.Encode(rec)
	})
}

func (x *exporter) workRecord(w *ent.WorkItem) (rec workRecord, err error) {
	rec = workRecord{State: string(w.State), Plan: w.Plan, ApprovedAt: utc(w.ApprovedAt), LeaseMinutes: w.LeaseMinutes,
		MaxClaims: w.MaxClaims, Claims: w.Claims, Fence: w.Fence, LeaseExpiresAt: utcp(w.LeaseExpiresAt),
		LastReleaseReason: w.LastReleaseReason, CompletedAt: utcp(w.CompletedAt)}
	// The lease's secret stays behind, so no lease token works on the
	// imported item: its lease ends now, and it may be claimed again.
	if rec.LeaseExpiresAt != nil && rec.LeaseExpiresAt.After(x.at) {
		end := x.at
		rec.LeaseExpiresAt = &end
	}
	if w.TestStatus != nil {
		rec.TestStatus = string(*w.TestStatus)
	}
	if rec.Task, err = x.task(w.TaskID); err != nil {
		return rec, err
	}
	if rec.Board, err = x.board(w.BoardID); err != nil {
		return rec, err
	}
	if rec.ApprovedBy, err = x.member(w.ApprovedByID); err != nil {
		return rec, err
	}
	if w.HolderID != nil {
		rec.Holder, err = x.member(*w.HolderID)
	}
	return rec, err
}

func (x *exporter) writeActivity(ctx context.Context, enc *json.Encoder) error {
	key := []string{activity.FieldCreatedAt, activity.FieldID}
	return pages(ctx, func(ctx context.Context, last *ent.Activity) ([]*ent.Activity, error) {
		q := x.tx.Activity.Query().Where(activity.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(predicate.Activity(after(key, last.CreatedAt, last.ID)))
		}
		return q.Order(ent.Asc(key...)).Limit(pageSize).All(ctx)
	}, func(a *ent.Activity) (err error) {
		rec := activityRecord{ActorKind: string(a.ActorKind), Action: a.Action, Detail: a.Detail, Client: a.Client, CreatedAt: utc(a.CreatedAt)}
		if rec.Actor, err = x.member(a.ActorID); err != nil {
			return err
		}
		if a.TaskID != nil {
			if rec.Task, err = x.task(*a.TaskID); err != nil {
				return err
			}
		}
		return enc.Encode(rec)
	})
}

func (x *exporter) writeAudit(ctx context.Context, enc *json.Encoder) error {
	key := []string{auditevent.FieldOccurredAt, auditevent.FieldID}
	return pages(ctx, func(ctx context.Context, last *ent.AuditEvent) ([]*ent.AuditEvent, error) {
		q := x.tx.AuditEvent.Query().Where(auditevent.TenantID(x.tenant.ID))
		if last != nil {
			q.Where(predicate.AuditEvent(after(key, last.OccurredAt, last.ID)))
		}
		return q.Order(ent.Asc(key...)).Limit(pageSize).All(ctx)
	}, func(e *ent.AuditEvent) error {
		rec := auditRecord{OccurredAt: utc(e.OccurredAt), MemberHandle: e.MemberHandle, SponsorHandle: e.SponsorHandle,
			TokenID: e.TokenID, SessionLabel: e.SessionLabel, Method: e.Method, Tool: e.Tool, Targets: e.Targets,
			Outcome: e.Outcome, ErrorMessage: e.ErrorMessage, TraceID: e.TraceID, DurationMS: e.DurationMs}
		if e.MemberID != nil {
			rec.Member = x.members[*e.MemberID] // a call of a member since gone names no member
		}
		if e.MemberKind != nil {
			rec.MemberKind = string(*e.MemberKind)
		}
		return enc.Encode(rec)
	})
}
