package board

import (
	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// Lanes are the lanes of every board, in order.
var Lanes = []taskwirev1.Lane{
	taskwirev1.Lane_LANE_BACKLOG, taskwirev1.Lane_LANE_NEXT,
	taskwirev1.Lane_LANE_DOING, taskwirev1.Lane_LANE_DONE,
}

var (
	lanes = map[taskwirev1.Lane]task.Lane{
		taskwirev1.Lane_LANE_BACKLOG: task.LaneBacklog,
		taskwirev1.Lane_LANE_NEXT:    task.LaneNext,
		taskwirev1.Lane_LANE_DOING:   task.LaneDoing,
		taskwirev1.Lane_LANE_DONE:    task.LaneDone,
	}
	kinds = map[taskwirev1.TaskKind]task.Kind{
		taskwirev1.TaskKind_TASK_KIND_TASK:    task.KindTask,
		taskwirev1.TaskKind_TASK_KIND_BUG:     task.KindBug,
		taskwirev1.TaskKind_TASK_KIND_FEATURE: task.KindFeature,
		taskwirev1.TaskKind_TASK_KIND_CHORE:   task.KindChore,
	}
	sizes = map[taskwirev1.TaskSize]task.Size{
		taskwirev1.TaskSize_TASK_SIZE_XS: task.SizeXs,
		taskwirev1.TaskSize_TASK_SIZE_S:  task.SizeS,
		taskwirev1.TaskSize_TASK_SIZE_M:  task.SizeM,
		taskwirev1.TaskSize_TASK_SIZE_L:  task.SizeL,
		taskwirev1.TaskSize_TASK_SIZE_XL: task.SizeXl,
	}
	memberKinds = map[member.Kind]taskwirev1.MemberKind{
		member.KindHuman:     taskwirev1.MemberKind_MEMBER_KIND_HUMAN,
		member.KindAssistant: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT,
	}
)

// fromProto maps an enum value of the API to ent's. The zero value gives
// ok == false and no error: the caller decides what "unspecified" means.
func fromProto[P ~int32, E comparable](m map[P]E, v P, field, valid string) (e E, ok bool, err error) {
	if v == 0 {
		return e, false, nil
	}
	e, ok = m[v]
	if !ok {
		return e, false, domainerr.New(domainerr.Invalid, "%s %d is not valid: use one of %s", field, v, valid)
	}
	return e, true, nil
}

func laneFromProto(v taskwirev1.Lane) (task.Lane, bool, error) {
	return fromProto(lanes, v, "lane", "backlog, next, doing, done")
}

func kindFromProto(v taskwirev1.TaskKind) (task.Kind, bool, error) {
	return fromProto(kinds, v, "kind", "task, bug, feature, chore")
}

func sizeFromProto(v taskwirev1.TaskSize) (task.Size, bool, error) {
	return fromProto(sizes, v, "size", "xs, s, m, l, xl")
}

// toProto maps an ent enum value back; it is the inverse of fromProto.
func toProto[P ~int32, E comparable](m map[P]E, e E) P {
	for p, v := range m {
		if v == e {
			return p
		}
	}
	return 0
}
