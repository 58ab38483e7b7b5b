package board

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	entboard "github.com/taskwire/taskwire/ent/board"
	"github.com/taskwire/taskwire/ent/member"
	"github.com/taskwire/taskwire/ent/task"
	"github.com/taskwire/taskwire/services/domainerr"
)

// Ref returns the ref of the task with number n, e.g. "T-12".
func Ref(n int) string { return "T-" + strconv.Itoa(n) }

var refRE = regexp.MustCompile(`^[Tt]-([1-9][0-9]{0,8})$`)

// parseRef returns the number of a ref like "T-12" (or "t-12").
func parseRef(ref string) (int, error) {
	m := refRE.FindStringSubmatch(strings.TrimSpace(ref))
	if m == nil {
		return 0, domainerr.New(domainerr.Invalid, "%q is not a task ref: refs look like \"T-12\"", ref)
	}
	return strconv.Atoi(m[1])
}

// findTask returns the task with ref in the caller's tenant, unless it is
// deleted.
func findTask(ctx context.Context, c *ent.Client, a actor, ref string) (*ent.Task, error) {
	t, err := findAnyTask(ctx, c, a, ref)
	if err == nil && t.DeletedAt != nil {
		return nil, domainerr.New(domainerr.NotFound,
			"%s was deleted: bring it back with tasks_restore if it is still needed", Ref(t.Number))
	}
	return t, err
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
		return nil, domainerr.Wrap(domainerr.NotFound, err,
			fmt.Sprintf("No task %s in tenant %s: find refs with tasks_list", Ref(n), a.tenant.Slug))
	}
	return t, err
}

// names maps the ids a task refers to onto the names the API shows.
type names struct {
	boards  map[int]string
	members map[int]*ent.Member
}

// lookupNames loads the board slugs and members that tasks and comments
// refer to, in two queries.
func lookupNames(ctx context.Context, c *ent.Client, a actor, tasks []*ent.Task, comments []*ent.Comment) (names, error) {
	var boardIDs, memberIDs []int
	for _, t := range tasks {
		boardIDs = append(boardIDs, t.BoardID)
		memberIDs = append(memberIDs, t.CreatedByID)
		memberIDs = append(memberIDs, t.AssigneeIds...)
	}
	for _, cm := range comments {
		memberIDs = append(memberIDs, cm.AuthorID)
	}
	n := names{boards: map[int]string{}, members: map[int]*ent.Member{}}
	if len(boardIDs) > 0 {
		bs, err := c.Board.Query().Where(entboard.TenantID(a.tenant.ID), entboard.IDIn(boardIDs...)).All(ctx)
		if err != nil {
			return n, err
		}
		for _, b := range bs {
			n.boards[b.ID] = b.Slug
		}
	}
	if len(memberIDs) > 0 {
		ms, err := c.Member.Query().Where(member.TenantID(a.tenant.ID), member.IDIn(memberIDs...)).All(ctx)
		if err != nil {
			return n, err
		}
		for _, m := range ms {
			n.members[m.ID] = m
		}
	}
	return n, nil
}

func (n names) handle(id int) string {
	if m, ok := n.members[id]; ok {
		return m.Handle
	}
	return ""
}

func (n names) task(t *ent.Task) *taskwirev1.Task {
	p := &taskwirev1.Task{
		Ref:       Ref(t.Number),
		Board:     n.boards[t.BoardID],
		Title:     t.Title,
		Note:      t.Note,
		Lane:      toProto(lanes, t.Lane),
		Kind:      toProto(kinds, t.Kind),
		Version:   int32(t.Version),
		CreatedAt: timestamppb.New(t.CreatedAt),
		UpdatedAt: timestamppb.New(t.UpdatedAt),
		CreatedBy: n.handle(t.CreatedByID),
	}
	if t.Size != nil {
		p.Size = toProto(sizes, *t.Size)
	}
	for _, id := range t.AssigneeIds {
		p.Assignees = append(p.Assignees, n.handle(id))
	}
	return p
}

func (n names) comment(c *ent.Comment, taskNumber int) *taskwirev1.Comment {
	p := &taskwirev1.Comment{
		Id:        int32(c.ID),
		Task:      Ref(taskNumber),
		Author:    n.handle(c.AuthorID),
		Body:      c.Body,
		CreatedAt: timestamppb.New(c.CreatedAt),
	}
	if m, ok := n.members[c.AuthorID]; ok {
		p.AuthorKind = memberKinds[m.Kind]
	}
	return p
}

// taskProtos converts tasks for the response, looking up their names.
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
