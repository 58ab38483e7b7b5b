package board

import (
	"context"
	"math"
	"strconv"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// MaxCompletions caps the tasks CompleteRefs returns, as MCP caps the
// values of one completion.
const MaxCompletions = 100

var memberRoles = map[member.Role]taskwirev1.MemberRole{
	member.RoleOwner:  taskwirev1.MemberRole_MEMBER_ROLE_OWNER,
	member.RoleAdmin:  taskwirev1.MemberRole_MEMBER_ROLE_ADMIN,
	member.RoleMember: taskwirev1.MemberRole_MEMBER_ROLE_MEMBER,
	member.RoleViewer: taskwirev1.MemberRole_MEMBER_ROLE_VIEWER,
}

func (s *Service) getBoardContext(ctx context.Context, a actor, req *taskwirev1.GetBoardContextRequest) (*taskwirev1.GetBoardContextResponse, error) {
	b, err := findBoard(ctx, s.client, a, req.GetBoard())
	if err != nil {
		return nil, err
	}
	ms, err := s.client.Member.Query().Where(member.TenantID(a.tenant.ID), member.RemovedAtIsNil()).
		Order(ent.Asc(member.FieldHandle)).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.GetBoardContextResponse{
		Board: boardProto(b),
		Rules: b.Rules,
	}
	for _, m := range ms {
		resp.Members = append(resp.Members, &taskwirev1.Member{
			Handle: m.Handle, DisplayName: m.DisplayName, Kind: memberKinds[m.Kind], Role: memberRoles[m.Role],
		})
	}
	return resp, nil
}

func (s *Service) completeRefs(ctx context.Context, a actor, req *taskwirev1.CompleteRefsRequest) (*taskwirev1.CompleteRefsResponse, error) {
	match, ok := refPrefix(req.GetPrefix())
	if !ok {
		return &taskwirev1.CompleteRefsResponse{}, nil // no ref starts so
	}
	where := []predicate.Task{task.TenantID(a.tenant.ID), task.DeletedAtIsNil()}
	if match != nil {
		where = append(where, match)
	}
	total, err := s.client.Task.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, err
	}
	tasks, err := s.client.Task.Query().Where(where...).
		Order(ent.Asc(task.FieldNumber)).Limit(MaxCompletions).All(ctx)
	if err != nil {
		return nil, err
	}
	resp := &taskwirev1.CompleteRefsResponse{Total: int32(total)}
	for _, t := range tasks {
		resp.Tasks = append(resp.Tasks, &taskwirev1.TaskRef{Ref: Ref(t.Number), Title: t.Title})
	}
	return resp, nil
}

// refPrefix returns the predicate of the task numbers whose ref starts with
// prefix ("", "t", "T-" and "T-1" all qualify; nil means every task), or
// ok == false when no ref can start so. Numbers are matched as ranges, so
// that the query stays an indexed comparison on every backend: "T-1"
// is 1, 10–19, 100–199 and so on up to the longest number a ref has.
func refPrefix(prefix string) (p predicate.Task, ok bool) {
	prefix = strings.ToUpper(strings.TrimSpace(prefix))
	digits, found := strings.CutPrefix(prefix, "T-")
	if !found {
		return nil, prefix == "" || prefix == "T"
	}
	if digits == "" {
		return nil, true
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || digits[0] == '0' || len(digits) > maxRefDigits {
		return nil, false
	}
	var ranges []predicate.Task
	for width := len(digits); width <= maxRefDigits; width++ {
		scale := int(math.Pow10(width - len(digits)))
		lo, hi := n*scale, (n+1)*scale-1
		ranges = append(ranges, task.And(task.NumberGTE(lo), task.NumberLTE(hi)))
	}
	return task.Or(ranges...), true
}

// maxRefDigits is the longest number a ref may have (see refRE).
const maxRefDigits = 9
