package board

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/cursor"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store"
)

// ListNote is how many characters of a note tasks_list returns: enough to
// tell tasks apart, while a page of 100 tasks stays small.
const ListNote = 280

// listName names tasks_list's cursors.
const listName = "tasks"

func (s *Service) listTasks(ctx context.Context, a actor, req *taskwirev1.ListTasksRequest) (*taskwirev1.ListTasksResponse, error) {
	limit, err := cursor.Limit(req.GetLimit())
	if err != nil {
		return nil, err
	}
	keep, err := checkFields(req.GetFields())
	if err != nil {
		return nil, err
	}
	sort, err := checkSort(req.GetSort())
	if err != nil {
		return nil, err
	}
	where, digest, err := s.listFilters(ctx, a, req)
	if err != nil {
		return nil, err
	}
	query := cursor.Query(append(digest, "sort="+sort.String())...)
	pos, err := s.cursors.Open(req.GetCursor(), a.tenant.ID, listName, query, sortKeys[sort])
	if err != nil {
		return nil, err
	}
	if pos != nil {
		after, err := afterPosition(sort, pos)
		if err != nil {
			return nil, err
		}
		where = append(where, after)
	}
	tasks, err := s.client.Task.Query().Where(where...).Order(sortOrder(sort)...).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.ListTasksResponse{}
	if len(tasks) > limit {
		tasks = tasks[:limit]
		resp.NextCursor = s.cursors.Seal(a.tenant.ID, listName, query, positionOf(sort, tasks[limit-1])...)
	}
	if resp.Items, err = taskProtos(ctx, s.client, a, tasks...); err != nil {
		return nil, err
	}
	for _, p := range resp.Items {
		shortenNote(p)
		trimFields(p, keep)
	}
	return resp, nil
}

// listFilters resolves every filter of req into predicates, and returns
// with them the resolved values a cursor is bound to.
func (s *Service) listFilters(ctx context.Context, a actor, req *taskwirev1.ListTasksRequest) ([]predicate.Task, []string, error) {
	where := []predicate.Task{task.TenantID(a.tenant.ID), task.DeletedAtIsNil()}
	var digest []string
	add := func(p predicate.Task, name, value string) {
		where = append(where, p)
		digest = append(digest, name+"="+value)
	}
	if slug := strings.TrimSpace(req.GetBoard()); slug != "" {
		b, err := findBoard(ctx, s.client, a, slug)
		if err != nil {
			return nil, nil, err
		}
		add(task.BoardID(b.ID), "board", strconv.Itoa(b.ID))
	}
	if l, ok, err := laneFromProto(req.GetLane()); err != nil {
		return nil, nil, err
	} else if ok {
		add(task.LaneEQ(l), "lane", string(l))
	}
	if k, ok, err := kindFromProto(req.GetKind()); err != nil {
		return nil, nil, err
	} else if ok {
		add(task.KindEQ(k), "kind", string(k))
	}
	if h := strings.TrimSpace(req.GetAssignee()); h != "" {
		p, value, err := s.assigneeFilter(ctx, a, h)
		if err != nil {
			return nil, nil, err
		}
		add(p, "assignee", value)
	}
	if l := strings.ToLower(strings.TrimSpace(req.GetLabel())); l != "" {
		add(jsonContains(task.FieldLabels, l), "label", l)
	}
	if p := strings.TrimSpace(req.GetProject()); p != "" {
		add(task.Project(p), "project", p)
	}
	if ts := req.GetUpdatedSince(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return nil, nil, domainerr.New(domainerr.Invalid, "updated_since is not a valid time: give it in RFC 3339, e.g. \"2026-12-01T00:00:00Z\"")
		}
		since := ts.AsTime()
		add(task.UpdatedAtGTE(since), "updated_since", since.Format(time.RFC3339Nano))
	}
	if text := strings.TrimSpace(req.GetText()); text != "" {
		add(containsFold(text), "text", strings.ToLower(text))
	}
	if req.Flagged != nil {
		add(task.Flagged(req.GetFlagged()), "flagged", strconv.FormatBool(req.GetFlagged()))
	}
	return where, digest, nil
}

// assigneeFilter resolves the assignee filter: a handle, "me" or "none".
func (s *Service) assigneeFilter(ctx context.Context, a actor, handle string) (predicate.Task, string, error) {
	switch handle {
	case "none":
		return noAssignees, "none", nil
	case "me":
		return jsonContains(task.FieldAssigneeIds, a.member.ID), strconv.Itoa(a.member.ID), nil
	}
	ids, err := memberIDs(ctx, s.client, a, []string{handle})
	if err != nil {
		return nil, "", err
	}
	id, ok := ids[handle]
	if !ok {
		return nil, "", domainerr.New(domainerr.Invalid,
			`assignee %q is not a member of tenant %s: use a handle from members_list, "me" for yourself or "none" for unassigned tasks`, handle, a.tenant.Slug)
	}
	return jsonContains(task.FieldAssigneeIds, id), strconv.Itoa(id), nil
}

// jsonContains matches tasks whose JSON array column holds v.
func jsonContains(column string, v any) predicate.Task {
	return func(s *sql.Selector) {
		s.Where(sqljson.ValueContains(s.C(column), v))
	}
}

// noAssignees matches tasks assigned to nobody. A JSON null counts as
// empty; on PostgreSQL the CASE keeps jsonb_array_length off non-arrays,
// which it refuses.
func noAssignees(s *sql.Selector) {
	col := s.C(task.FieldAssigneeIds)
	if s.Dialect() == dialect.Postgres {
		s.Where(sql.ExprP("COALESCE(jsonb_array_length(CASE WHEN jsonb_typeof(" + col + ") = 'array' THEN " + col + " END), 0) = 0"))
		return
	}
	s.Where(sql.ExprP("json_array_length(" + col + ") = 0"))
}

// containsFold matches tasks whose title or note contains text, ignoring
// case in all of Unicode on both databases: SQLite's lower() folds only
// ASCII, so there store.LowerFunc stands in for it. No LIKE pattern is
// built, so "%" and "_" in text match themselves.
func containsFold(text string) predicate.Task {
	needle := strings.ToLower(text)
	return func(s *sql.Selector) {
		find, lower := "instr", store.LowerFunc
		if s.Dialect() == dialect.Postgres {
			find, lower = "strpos", "lower"
		}
		in := func(column string) *sql.Predicate {
			return sql.P(func(b *sql.Builder) {
				b.WriteString(find + "(" + lower + "(" + s.C(column) + "), ").Arg(needle).WriteString(") > 0")
			})
		}
		s.Where(sql.Or(in(task.FieldTitle), in(task.FieldNote)))
	}
}

// shortenNote cuts a listed task's note to ListNote characters.
func shortenNote(p *taskwirev1.Task) {
	if utf8.RuneCountInString(p.Note) <= ListNote {
		return
	}
	p.Note = string([]rune(p.Note)[:ListNote])
	p.NoteTruncated = true
}

// sortOrder is the ORDER BY of each sort; every one ends in a unique
// column, so pages never overlap.
func sortOrder(sort taskwirev1.TaskSort) []task.OrderOption {
	switch sort {
	case taskwirev1.TaskSort_TASK_SORT_UPDATED:
		return []task.OrderOption{task.ByUpdatedAt(sql.OrderDesc()), task.ByID(sql.OrderDesc())}
	case taskwirev1.TaskSort_TASK_SORT_POSITION:
		return []task.OrderOption{laneOrder, task.ByPosition(), task.ByNumber()}
	}
	return []task.OrderOption{task.ByNumber()}
}

// laneOrder orders by lane as on the board, not alphabetically.
func laneOrder(s *sql.Selector) {
	col := s.C(task.FieldLane)
	s.OrderExpr(sql.Expr("CASE " + col + " WHEN 'backlog' THEN 0 WHEN 'next' THEN 1 WHEN 'doing' THEN 2 ELSE 3 END"))
}

// boardLanes are the ent lanes in board order.
var boardLanes = []task.Lane{task.LaneBacklog, task.LaneNext, task.LaneDoing, task.LaneDone}

// sortKeys is how many values a cursor of each sort holds.
var sortKeys = map[taskwirev1.TaskSort]int{
	taskwirev1.TaskSort_TASK_SORT_REF:      1,
	taskwirev1.TaskSort_TASK_SORT_UPDATED:  2,
	taskwirev1.TaskSort_TASK_SORT_POSITION: 3,
}

// checkSort applies the default sort and refuses unknown ones.
func checkSort(sort taskwirev1.TaskSort) (taskwirev1.TaskSort, error) {
	if sort == taskwirev1.TaskSort_TASK_SORT_UNSPECIFIED {
		return taskwirev1.TaskSort_TASK_SORT_REF, nil
	}
	if _, ok := sortKeys[sort]; !ok {
		return 0, domainerr.New(domainerr.Invalid, "sort %d is not valid: use ref, updated or position", sort)
	}
	return sort, nil
}

// positionOf is the cursor position of t in sort.
func positionOf(sort taskwirev1.TaskSort, t *ent.Task) []string {
	switch sort {
	case taskwirev1.TaskSort_TASK_SORT_UPDATED:
		return []string{t.UpdatedAt.UTC().Format(time.RFC3339Nano), strconv.Itoa(t.ID)}
	case taskwirev1.TaskSort_TASK_SORT_POSITION:
		return []string{string(t.Lane), strconv.Itoa(t.Position), strconv.Itoa(t.Number)}
	}
	return []string{strconv.Itoa(t.Number)}
}

// afterPosition matches the tasks that come after pos in sort.
func afterPosition(sort taskwirev1.TaskSort, pos []string) (predicate.Task, error) {
	bad := domainerr.New(domainerr.Invalid, "cursor is not valid here: leave cursor out to start from the first page")
	switch sort {
	case taskwirev1.TaskSort_TASK_SORT_UPDATED:
		at, err1 := time.Parse(time.RFC3339Nano, pos[0])
		id, err2 := strconv.Atoi(pos[1])
		if err1 != nil || err2 != nil {
			return nil, bad
		}
		return task.Or(task.UpdatedAtLT(at), task.And(task.UpdatedAtEQ(at), task.IDLT(id))), nil
	case taskwirev1.TaskSort_TASK_SORT_POSITION:
		lane := -1
		for i, l := range boardLanes {
			if string(l) == pos[0] {
				lane = i
			}
		}
		p, err1 := strconv.Atoi(pos[1])
		n, err2 := strconv.Atoi(pos[2])
		if lane < 0 || err1 != nil || err2 != nil {
			return nil, bad
		}
		same := task.And(task.LaneEQ(boardLanes[lane]),
			task.Or(task.PositionGT(p), task.And(task.PositionEQ(p), task.NumberGT(n))))
		if later := boardLanes[lane+1:]; len(later) > 0 {
			return task.Or(task.LaneIn(later...), same), nil
		}
		return same, nil
	}
	n, err := strconv.Atoi(pos[0])
	if err != nil {
		return nil, bad
	}
	return task.NumberGT(n), nil
}
