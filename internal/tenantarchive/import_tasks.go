package tenantarchive

import (
	"context"
	"slices"

	"github.com/taskwire/taskwire/internal/archive"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/schema"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
)

// titleChunk is how many tasks' title tokens one insert writes: at most
// some 100 words a title (200 characters), 2,000 rows.
const titleChunk = 20

// loadTasks creates the tasks with their numbers, so their refs stay,
// and their title tokens, as the Task's hook writes them for any new
// task, but for a batch of tasks at a time.
func (im *importer) loadTasks(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.TaskCreate) error {
		tasks, err := im.tx.Task.CreateBulk(creates...).Save(schema.IndexTitlesLater(ctx))
		if err != nil {
			return err
		}
		for _, t := range tasks {
			im.tasks[t.Number] = t.ID
		}
		for chunk := range slices.Chunk(tasks, titleChunk) {
			if err := schema.IndexTitles(ctx, im.tx.Client(), chunk...); err != nil {
				return err
			}
		}
		return nil
	})
	// A ref listed twice is refused by the (tenant_id, number) index.
	n, err := records(r, TasksEntry, func(_ int, rec *taskRecord) error {
		number, err := parseRef(rec.Ref)
		if err != nil {
			return domainerr.New(domainerr.Invalid, "%v", err)
		}
		im.seqs.task = max(im.seqs.task, number)
		c, err := im.taskCreate(number, rec)
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

func (im *importer) taskCreate(number int, rec *taskRecord) (*ent.TaskCreate, error) {
	boardID, err := im.board(rec.Board)
	if err != nil {
		return nil, err
	}
	by, err := im.member(rec.CreatedBy)
	if err != nil {
		return nil, err
	}
	assignees, err := im.memberIDs(rec.Assignees)
	if err != nil {
		return nil, err
	}
	authors, err := im.memberIDs(rec.TextAuthors)
	if err != nil {
		return nil, err
	}
	labels := rec.Labels
	if labels == nil {
		labels = []string{}
	}
	c := im.tx.Task.Create().SetTenantID(im.tenant.ID).SetBoardID(boardID).SetNumber(number).
		SetTitle(rec.Title).SetNote(rec.Note).SetLane(task.Lane(rec.Lane)).SetKind(task.Kind(rec.Kind)).
		SetAssigneeIds(assignees).SetLabels(labels).SetProject(rec.Project).SetPosition(rec.Position).
		SetFlagged(rec.Flagged).SetFlagReason(rec.FlagReason).SetTextAuthorIds(authors).
		SetVersion(rec.Version).SetCreatedByID(by).SetCreatedAt(rec.CreatedAt).SetUpdatedAt(rec.UpdatedAt).
		SetNillableDeletedAt(rec.DeletedAt)
	if rec.Size != "" {
		c.SetSize(task.Size(rec.Size))
	}
	return c, nil
}

func (im *importer) loadLinks(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.TaskLinkCreate) error {
		return im.tx.TaskLink.CreateBulk(creates...).Exec(ctx)
	})
	n, err := records(r, LinksEntry, func(_ int, rec *linkRecord) error {
		from, err := im.task(rec.From)
		if err != nil {
			return err
		}
		to, err := im.task(rec.To)
		if err != nil {
			return err
		}
		by, err := im.member(rec.CreatedBy)
		if err != nil {
			return err
		}
		return b.add(ctx, im.tx.TaskLink.Create().SetTenantID(im.tenant.ID).SetFromTaskID(from).SetToTaskID(to).
			SetKind(tasklink.Kind(rec.Kind)).SetCreatedByID(by).SetCreatedAt(rec.CreatedAt))
	})
	if err != nil {
		return 0, err
	}
	return n, b.flush(ctx)
}

// loadComments creates the comments with their numbers, which the
// history names them by.
func (im *importer) loadComments(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.CommentCreate) error {
		return im.tx.Comment.CreateBulk(creates...).Exec(ctx)
	})
	n, err := records(r, CommentsEntry, func(_ int, rec *commentRecord) error {
		if rec.Number <= 0 {
			return domainerr.New(domainerr.Invalid, "comment number %d is not a positive number", rec.Number)
		}
		taskID, err := im.task(rec.Task)
		if err != nil {
			return err
		}
		author, err := im.member(rec.Author)
		if err != nil {
			return err
		}
		im.seqs.comment = max(im.seqs.comment, rec.Number)
		return b.add(ctx, im.tx.Comment.Create().SetTenantID(im.tenant.ID).SetNumber(rec.Number).SetTaskID(taskID).
			SetAuthorID(author).SetBody(rec.Body).SetVersion(rec.Version).SetCreatedAt(rec.CreatedAt).
			SetNillableEditedAt(rec.EditedAt))
	})
	if err != nil {
		return 0, err
	}
	return n, b.flush(ctx)
}

func (im *importer) loadNotes(ctx context.Context, r *archive.Reader) (int64, error) {
	b := newBatch(func(ctx context.Context, creates []*ent.ContextNoteCreate) error {
		return im.tx.ContextNote.CreateBulk(creates...).Exec(ctx)
	})
	n, err := records(r, ContextNotesEntry, func(_ int, rec *noteRecord) error {
		if rec.Number <= 0 {
			return domainerr.New(domainerr.Invalid, "context note number %d is not a positive number", rec.Number)
		}
		boardID, err := im.board(rec.Board)
		if err != nil {
			return err
		}
		author, err := im.member(rec.Author)
		if err != nil {
			return err
		}
		im.seqs.note = max(im.seqs.note, rec.Number)
		return b.add(ctx, im.tx.ContextNote.Create().SetTenantID(im.tenant.ID).SetNumber(rec.Number).SetBoardID(boardID).
			SetAuthorID(author).SetBody(rec.Body).SetCreatedAt(rec.CreatedAt))
	})
	if err != nil {
		return 0, err
	}
	return n, b.flush(ctx)
}
