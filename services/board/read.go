package board

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/activity"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
	"github.com/taskwire/taskwire/internal/historytext"
)

// What tasks_get returns at most of a task's comments and history: enough
// to catch up, bounded so that one answer stays small.
const (
	NewestComments = 20
	NewestHistory  = 50
)

func (s *Service) getTask(ctx context.Context, a actor, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
	t, work, err := readTask(ctx, s.client, a, req.GetRef())
	if err != nil {
		return nil, err
	}
	if err := live(t); err != nil {
		return nil, err
	}
	var comments []*ent.Comment
	var count int
	if req.GetIncludeComments() {
		if comments, count, err = s.newestComments(ctx, a, t); err != nil {
			return nil, err
		}
	}
	n, err := lookupPeople(ctx, s.client, a, []*ent.Task{t}, comments)
	if err != nil {
		return nil, err
	}
	if work != "" {
		n.work[t.ID] = work
	}
	resp := &taskwirev1.GetTaskResponse{Task: n.task(t)}
	if req.GetIncludeComments() {
		resp.CommentCount = int32(count)
		for _, c := range comments {
			resp.Comments = append(resp.Comments, n.comment(c, t.Number))
		}
	}
	if req.GetIncludeHistory() {
		if resp.History, err = s.history(ctx, a, n, t); err != nil {
			return nil, err
		}
	}
	if req.GetIncludeLinks() {
		if resp.Links, err = s.links(ctx, a, t); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// newestComments returns t's NewestComments newest comments, oldest of them
// first, and how many it has in all.
func (s *Service) newestComments(ctx context.Context, a actor, t *ent.Task) ([]*ent.Comment, int, error) {
	q := s.client.Comment.Query().Where(comment.TenantID(a.tenant.ID), comment.TaskID(t.ID))
	count, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	cs, err := q.Order(ent.Desc(comment.FieldID)).Limit(NewestComments).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(cs)
	return cs, count, nil
}

// history returns the newest NewestHistory entries of t's activity log,
// newest first.
func (s *Service) history(ctx context.Context, a actor, n names, t *ent.Task) ([]*taskwirev1.HistoryEntry, error) {
	as, err := s.client.Activity.Query().
		Where(activity.TenantID(a.tenant.ID), activity.TaskID(t.ID)).
		Order(ent.Desc(activity.FieldCreatedAt), ent.Desc(activity.FieldID)).
		Limit(NewestHistory).All(ctx)
	if err != nil {
		return nil, err
	}
	actors := make([]int, len(as))
	for i, e := range as {
		actors[i] = e.ActorID
	}
	if err := n.addMembers(ctx, s.client, a, actors); err != nil {
		return nil, err
	}
	out := make([]*taskwirev1.HistoryEntry, len(as))
	for i, e := range as {
		out[i] = &taskwirev1.HistoryEntry{
			Action: e.Action,
			Actor:  n.handle(e.ActorID),
			At:     timestamppb.New(e.CreatedAt),
			Detail: details(e.Detail),
			Client: e.Client,
		}
		out[i].Summary = historytext.Sentence(Ref(t.Number), out[i])
	}
	return out, nil
}

// details turns an activity's detail into name/value pairs sorted by name,
// so that every entry reads the same way whatever its action.
func details(m map[string]any) []*taskwirev1.Detail {
	out := make([]*taskwirev1.Detail, 0, len(m))
	for k, v := range m {
		out = append(out, &taskwirev1.Detail{Name: k, Value: detailValue(v)})
	}
	slices.SortFunc(out, func(x, y *taskwirev1.Detail) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// detailValue writes one detail value as text: strings as they are,
// numbers without exponent or trailing zeros, anything else as JSON.
func detailValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// links returns t's links both ways, as seen from t: a "blocks" stored from
// another task to t shows as blocked_by. Links to deleted tasks are left
// out.
func (s *Service) links(ctx context.Context, a actor, t *ent.Task) ([]*taskwirev1.Link, error) {
	ls, err := s.client.TaskLink.Query().
		Where(tasklink.TenantID(a.tenant.ID), tasklink.Or(tasklink.FromTaskID(t.ID), tasklink.ToTaskID(t.ID))).
		All(ctx)
	if err != nil {
		return nil, err
	}
	others := make([]int, 0, len(ls))
	for _, l := range ls {
		others = append(others, otherEnd(l, t.ID))
	}
	ts, err := s.client.Task.Query().
		Where(task.TenantID(a.tenant.ID), task.IDIn(uniq(others)...), task.DeletedAtIsNil()).
		All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int]*ent.Task, len(ts))
	for _, o := range ts {
		byID[o.ID] = o
	}
	out := make([]*taskwirev1.Link, 0, len(ls))
	for _, l := range ls {
		o, ok := byID[otherEnd(l, t.ID)]
		if !ok {
			continue
		}
		out = append(out, &taskwirev1.Link{Kind: linkKind(l, t.ID), Ref: Ref(o.Number), Title: o.Title})
	}
	slices.SortFunc(out, func(x, y *taskwirev1.Link) int {
		if x.Kind != y.Kind {
			return int(x.Kind - y.Kind)
		}
		nx, _ := parseRef(x.Ref)
		ny, _ := parseRef(y.Ref)
		return nx - ny
	})
	return out, nil
}

// otherEnd is the id of the task at the other end of l from id.
func otherEnd(l *ent.TaskLink, id int) int {
	if l.FromTaskID == id {
		return l.ToTaskID
	}
	return l.FromTaskID
}

// linkKind is how l reads from the task id.
func linkKind(l *ent.TaskLink, id int) taskwirev1.LinkKind {
	switch l.Kind {
	case tasklink.KindBlocks:
		if l.FromTaskID == id {
			return taskwirev1.LinkKind_LINK_KIND_BLOCKS
		}
		return taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY
	case tasklink.KindDuplicates:
		return taskwirev1.LinkKind_LINK_KIND_DUPLICATES
	}
	return taskwirev1.LinkKind_LINK_KIND_RELATES_TO
}
