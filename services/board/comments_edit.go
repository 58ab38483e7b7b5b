package board

import (
	"context"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/idempotency"
)

// ActionCommentEdited is recorded, on the comment's task, when its author
// edits a comment.
const ActionCommentEdited = "comment.edited"

// EditComment changes the text of one of the caller's own comments.
func (s *Service) EditComment(ctx context.Context, req *taskwirev1.EditCommentRequest) (*taskwirev1.EditCommentResponse, error) {
	return call(ctx, s, req, s.editComment)
}

func (s *Service) editComment(ctx context.Context, a actor, req *taskwirev1.EditCommentRequest) (*taskwirev1.EditCommentResponse, error) {
	if req.GetId() < 1 {
		return nil, domainerr.New(domainerr.Invalid, "id %d is not a comment id: find comment ids with comments_list", req.GetId())
	}
	body, err := checkCommentBody(req.GetBody())
	if err != nil {
		return nil, err
	}
	expected := int(req.GetExpectedVersion())
	if expected < 0 {
		return nil, domainerr.New(domainerr.Invalid, "expected_version %d is not valid: pass the version you last read (1 or more), or leave it out", expected)
	}
	return idempotency.Do(ctx, s.client, idempotency.Caller{TenantID: a.tenant.ID, MemberID: a.member.ID},
		taskwirev1.BoardService_EditComment_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.EditCommentResponse, error) {
			c, t, err := findComment(ctx, tx.Client(), a, int(req.GetId()))
			if err != nil {
				return nil, err
			}
			if c.AuthorID != a.member.ID {
				author, err := tx.Member.Query().Where(member.TenantID(a.tenant.ID), member.ID(c.AuthorID)).Only(ctx)
				if err != nil {
					return nil, err
				}
				return nil, domainerr.New(domainerr.PermissionDenied,
					"You can edit only your own comments; comment #%d is %s's: add a new comment instead", c.Number, author.Handle)
			}
			if expected != 0 && expected != c.Version {
				return nil, commentConflict(c, expected)
			}
			if body != c.Body {
				if c, err = reword(ctx, tx, a, c, t, body); err != nil {
					return nil, err
				}
			}
			n := names{members: map[int]*ent.Member{a.member.ID: a.member}, me: a.member.ID}
			return &taskwirev1.EditCommentResponse{Comment: n.comment(c, t.Number)}, nil
		})
}

// findComment returns the comment numbered id in the caller's tenant
// (what callers know as its id) and its task, unless the task is deleted.
func findComment(ctx context.Context, c *ent.Client, a actor, id int) (*ent.Comment, *ent.Task, error) {
	cm, err := c.Comment.Query().Where(comment.TenantID(a.tenant.ID), comment.Number(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, domainerr.Wrap(domainerr.NotFound, err,
			"No comment #%d in tenant %s: find comment ids with comments_list", id, a.tenant.Slug)
	}
	if err != nil {
		return nil, nil, err
	}
	t, err := c.Task.Query().Where(task.TenantID(a.tenant.ID), task.ID(cm.TaskID)).Only(ctx)
	if err != nil {
		return nil, nil, err
	}
	if t.DeletedAt != nil {
		return nil, nil, domainerr.New(domainerr.NotFound,
			"Comment #%d is on %s, which was deleted: bring the task back with tasks_restore if it is still needed", id, Ref(t.Number))
	}
	return cm, t, nil
}

// reword sets c's body, marks it edited and bumps its version, unless it
// changed since it was read, and records the edit on task t.
func reword(ctx context.Context, tx *ent.Tx, a actor, c *ent.Comment, t *ent.Task, body string) (*ent.Comment, error) {
	edited, err := tx.Comment.UpdateOneID(c.ID).
		Where(comment.TenantID(a.tenant.ID), comment.Version(c.Version)).
		SetBody(body).SetEditedAt(time.Now().UTC().Truncate(time.Microsecond)).AddVersion(1).
		Save(ctx)
	if ent.IsNotFound(err) { // edited between our read and write
		return nil, commentConflict(c, c.Version)
	}
	if err != nil {
		return nil, err
	}
	detail := map[string]any{"ref": Ref(t.Number), "comment": c.Number, "version": edited.Version}
	return edited, record(ctx, tx, a, ActionCommentEdited, t, detail)
}

// commentConflict reports that c is no longer at version want.
func commentConflict(c *ent.Comment, want int) error {
	if c.Version != want {
		return domainerr.New(domainerr.Conflict,
			"Comment #%d changed since version %d: it is at version %d now; read it again with comments_list and retry with expected_version %d",
			c.Number, want, c.Version, c.Version)
	}
	return domainerr.New(domainerr.Conflict,
		"Comment #%d was edited by another call at the same time: read it again with comments_list, then retry", c.Number)
}
