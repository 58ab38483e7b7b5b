package board

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/ent/comment"
	"github.com/taskwire/taskwire/ent/predicate"
	"github.com/taskwire/taskwire/ent/task"
	"github.com/taskwire/taskwire/services/domainerr"
)

// Page sizes of ListTasks.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

func (s *Service) getTask(ctx context.Context, a actor, req *taskwirev1.GetTaskRequest) (*taskwirev1.GetTaskResponse, error) {
	t, err := findTask(ctx, s.client, a, req.GetRef())
	if err != nil {
		return nil, err
	}
	var comments []*ent.Comment
	if req.GetIncludeComments() {
		comments, err = s.client.Comment.Query().
			Where(comment.TenantID(a.tenant.ID), comment.TaskID(t.ID)).
			Order(ent.Asc(comment.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
	}
	n, err := lookupNames(ctx, s.client, a, []*ent.Task{t}, comments)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.GetTaskResponse{Task: n.task(t)}
	for _, c := range comments {
		resp.Comments = append(resp.Comments, n.comment(c, t.Number))
	}
	return resp, nil
}

func (s *Service) listTasks(ctx context.Context, a actor, req *taskwirev1.ListTasksRequest) (*taskwirev1.ListTasksResponse, error) {
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return nil, domainerr.New(domainerr.Invalid, "limit %d is out of range: use 1 to %d, or leave it out for %d", limit, MaxLimit, DefaultLimit)
	}
	after, err := decodeCursor(req.GetCursor())
	if err != nil {
		return nil, err
	}
	where := []predicate.Task{task.TenantID(a.tenant.ID), task.NumberGT(after), task.DeletedAtIsNil()}
	if req.GetBoard() != "" {
		b, err := findBoard(ctx, s.client, a, req.GetBoard())
		if err != nil {
			return nil, err
		}
		where = append(where, task.BoardID(b.ID))
	}
	if lane, ok, err := laneFromProto(req.GetLane()); err != nil {
		return nil, err
	} else if ok {
		where = append(where, task.LaneEQ(lane))
	}
	tasks, err := s.client.Task.Query().Where(where...).
		Order(ent.Asc(task.FieldNumber)).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListTasksResponse{}
	if len(tasks) > limit {
		tasks = tasks[:limit]
		resp.NextCursor = encodeCursor(tasks[limit-1].Number)
	}
	resp.Tasks, err = taskProtos(ctx, s.client, a, tasks...)
	return resp, err
}

const cursorPrefix = "after:"

// encodeCursor returns the cursor of the page after task number n.
func encodeCursor(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(n)))
}

// decodeCursor returns the task number a cursor continues after; the empty
// cursor starts at the beginning.
func decodeCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		if s, ok := strings.CutPrefix(string(b), cursorPrefix); ok {
			if n, err := strconv.Atoi(s); err == nil && n > 0 {
				return n, nil
			}
		}
	}
	return 0, domainerr.New(domainerr.Invalid, "cursor %q is not valid: pass the next_cursor of the previous page unchanged, or leave cursor out to start from the first task", c)
}
