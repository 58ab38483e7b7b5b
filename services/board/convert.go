package board

import (
	"context"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/workitem"
)

// Ref returns the ref of the task with number n, e.g. "T-12".
func Ref(n int) string { return "T-" + strconv.Itoa(n) }

// parseRef returns the number of a ref like "T-12" (or "t-12"): T, a dash
// and 1 to 9 digits without leading zero, spaces around allowed.
func parseRef(ref string) (int, error) {
	s := strings.TrimSpace(ref)
	if len(s) > 2 && (s[0] == 'T' || s[0] == 't') && s[1] == '-' && s[2] != '0' && len(s) <= 2+9 {
		n := 0
		for _, c := range []byte(s[2:]) {
			if c < '0' || c > '9' {
				n = 0
				break
			}
			n = n*10 + int(c-'0')
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, domainerr.New(domainerr.Invalid, "%q is not a task ref: refs look like \"T-12\"", ref)
}

// findTask returns the task with ref in the caller's tenant, unless it is
// deleted.
func findTask(ctx context.Context, c *ent.Client, a actor, ref string) (*ent.Task, error) {
	t, err := findAnyTask(ctx, c, a, ref)
	if err != nil {
		return nil, err
	}
	return t, live(t)
}

// live refuses a deleted task as not found, saying how to bring it back.
func live(t *ent.Task) error {
	if t.DeletedAt != nil {
		return domainerr.New(domainerr.NotFound,
			"%s was deleted: bring it back with tasks_restore if it is still needed", Ref(t.Number))
	}
	return nil
}

// findAnyTask returns the task with ref in the caller's tenant, deleted or
// not.
func findAnyTask(ctx context.Context, c *ent.Client, a actor, ref string) (*ent.Task, error) {
	n, err := parseRef(ref)
	if err != nil {
		return nil, err
	}
	t, err := c.Task.Query().Where(task.TenantID(a.tenant.ID), task.Number(n)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, noTask(a, n)
	}
	return t, err
}

// noTask says the caller's tenant has no task number n, and how to find refs.
func noTask(a actor, n int) error {
	return domainerr.New(domainerr.NotFound, "No task %s in tenant %s: find refs with tasks_list", Ref(n), a.tenant.Slug)
}

// names maps the ids tasks and comments refer to onto what the API shows,
// for one caller.
type names struct {
	boards  map[int]string
	members map[int]*ent.Member // handle and kind loaded, nothing else
	work    map[int]string      // task id → state of its WorkItem
	me      int                 // the caller's member id, for trust
}

// lookupNames loads the board slugs, members and work states that tasks and
// comments refer to: one query each, whatever the number of tasks.
func lookupNames(ctx context.Context, c *ent.Client, a actor, tasks []*ent.Task, comments []*ent.Comment) (names, error) {
	n, err := lookupPeople(ctx, c, a, tasks, comments)
	if err != nil {
		return n, err
	}
	taskIDs := make([]int, len(tasks))
	for i, t := range tasks {
		taskIDs[i] = t.ID
	}
	if len(taskIDs) > 0 {
		ws, err := c.WorkItem.Query().
			Where(workitem.TenantID(a.tenant.ID), workitem.TaskIDIn(taskIDs...)).
			Select(workitem.FieldTaskID, workitem.FieldState).All(ctx)
		if err != nil {
			return n, err
		}
		for _, w := range ws {
			n.work[w.TaskID] = string(w.State)
		}
	}
	return n, nil
}

// lookupPeople loads the board slugs and members that tasks and comments
// refer to, leaving their work states to the caller.
func lookupPeople(ctx context.Context, c *ent.Client, a actor, tasks []*ent.Task, comments []*ent.Comment) (names, error) {
	var boardIDs, memberIDs []int
	for _, t := range tasks {
		boardIDs = append(boardIDs, t.BoardID)
		memberIDs = append(memberIDs, t.CreatedByID)
		memberIDs = append(memberIDs, t.AssigneeIds...)
		memberIDs = append(memberIDs, t.TextAuthorIds...)
	}
	for _, cm := range comments {
		memberIDs = append(memberIDs, cm.AuthorID)
	}
	n := names{boards: map[int]string{}, members: map[int]*ent.Member{}, work: map[int]string{}, me: a.member.ID}
	if err := a.names.addBoards(ctx, c, a, n, boardIDs); err != nil {
		return n, err
	}
	return n, n.addMembers(ctx, c, a, memberIDs)
}

// addMembers loads those of ids that n does not know yet, in one query
// for those the worker does not remember either.
func (n names) addMembers(ctx context.Context, c *ent.Client, a actor, ids []int) error {
	return a.names.addMembers(ctx, c, a, n, ids)
}

// uniq returns ids without repeats, in their first order.
func uniq(ids []int) []int {
	seen := make(map[int]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func (n names) handle(id int) string {
	if m, ok := n.members[id]; ok {
		return m.Handle
	}
	return ""
}

// textAuthors returns the members who wrote t's title and note; a task
// that never recorded them was written by its creator.
func textAuthors(t *ent.Task) []int {
	if len(t.TextAuthorIds) == 0 {
		return []int{t.CreatedByID}
	}
	return t.TextAuthorIds
}

// textTrust is the trust of text written by authors, for the member me:
// own only when me wrote it alone, so an assistant never takes another
// member's words for its own person's instructions.
func textTrust(me int, authors []int) taskwirev1.Trust {
	for _, id := range authors {
		if id != me {
			return taskwirev1.Trust_TRUST_UNTRUSTED
		}
	}
	if len(authors) == 0 {
		return taskwirev1.Trust_TRUST_UNTRUSTED
	}
	return taskwirev1.Trust_TRUST_OWN
}

func (n names) task(t *ent.Task) *taskwirev1.Task {
	authors := textAuthors(t)
	p := &taskwirev1.Task{
		Ref:        Ref(t.Number),
		Board:      n.boards[t.BoardID],
		Title:      t.Title,
		Note:       t.Note,
		Lane:       toProto(lanes, t.Lane),
		Kind:       toProto(kinds, t.Kind),
		Version:    int32(t.Version),
		CreatedAt:  timestamppb.New(t.CreatedAt),
		UpdatedAt:  timestamppb.New(t.UpdatedAt),
		CreatedBy:  n.handle(t.CreatedByID),
		Labels:     t.Labels,
		Project:    t.Project,
		Position:   int32(t.Position),
		Flagged:    t.Flagged,
		FlagReason: t.FlagReason,
		Trust:      textTrust(n.me, authors),
		WorkState:  n.work[t.ID],
	}
	if t.Size != nil {
		p.Size = toProto(sizes, *t.Size)
	}
	for _, id := range t.AssigneeIds {
		p.Assignees = append(p.Assignees, n.handle(id))
	}
	for _, id := range authors {
		p.WrittenBy = append(p.WrittenBy, n.handle(id))
	}
	return p
}

func (n names) comment(c *ent.Comment, taskNumber int) *taskwirev1.Comment {
	p := &taskwirev1.Comment{
		Id:        int32(c.Number),
		Task:      Ref(taskNumber),
		Author:    n.handle(c.AuthorID),
		Body:      c.Body,
		CreatedAt: timestamppb.New(c.CreatedAt),
		Version:   int32(c.Version),
		Trust:     textTrust(n.me, []int{c.AuthorID}),
	}
	if c.EditedAt != nil {
		p.EditedAt = timestamppb.New(*c.EditedAt)
	}
	if m, ok := n.members[c.AuthorID]; ok {
		p.AuthorKind = memberKinds[m.Kind]
	}
	return p
}

// taskProtos converts tasks for a's response, looking up what they refer
// to in a fixed number of queries.
func taskProtos(ctx context.Context, c *ent.Client, a actor, tasks ...*ent.Task) ([]*taskwirev1.Task, error) {
	n, err := lookupNames(ctx, c, a, tasks, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*taskwirev1.Task, len(tasks))
	for i, t := range tasks {
		out[i] = n.task(t)
	}
	return out, nil
}

// taskProto is taskProtos for one task.
func taskProto(ctx context.Context, c *ent.Client, a actor, t *ent.Task) (*taskwirev1.Task, error) {
	ps, err := taskProtos(ctx, c, a, t)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}
