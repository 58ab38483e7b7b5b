package console

import (
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// The names people and URLs use for the board's enums: "backlog",
// "bug", "xl", "assistant", as the tools' JSON names them.

// laneName is a lane's name: "doing".
func laneName(l taskwirev1.Lane) string { return enumName(l.String(), "LANE_") }

// laneTitle is a lane's heading: "Doing".
func laneTitle(l taskwirev1.Lane) string {
	n := laneName(l)
	if n == "" {
		return ""
	}
	return strings.ToUpper(n[:1]) + n[1:]
}

// parseLane is the lane named s, LANE_UNSPECIFIED when none is.
func parseLane(s string) taskwirev1.Lane {
	return taskwirev1.Lane(taskwirev1.Lane_value["LANE_"+strings.ToUpper(s)])
}

// parseKind is the task kind named s, unspecified when none is.
func parseKind(s string) taskwirev1.TaskKind {
	return taskwirev1.TaskKind(taskwirev1.TaskKind_value["TASK_KIND_"+strings.ToUpper(s)])
}

func kindName(k taskwirev1.TaskKind) string { return enumName(k.String(), "TASK_KIND_") }
func sizeName(s taskwirev1.TaskSize) string { return enumName(s.String(), "TASK_SIZE_") }

// memberKind is "person" or "assistant", the words of data-kind.
func memberKind(k taskwirev1.MemberKind) string {
	if k == taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT {
		return "assistant"
	}
	return "person"
}

// enumName is an enum value's name without its prefix, in lower case;
// "" for the unspecified value.
func enumName(full, prefix string) string {
	n := strings.ToLower(strings.TrimPrefix(full, prefix))
	if n == "unspecified" {
		return ""
	}
	return n
}

// allLanes are the lanes a task can be moved to, in order.
var allLanes = []taskwirev1.Lane{
	taskwirev1.Lane_LANE_BACKLOG, taskwirev1.Lane_LANE_NEXT,
	taskwirev1.Lane_LANE_DOING, taskwirev1.Lane_LANE_DONE,
}

// allKinds are the task kinds, for the filter.
var allKinds = []string{"task", "bug", "feature", "chore"}

// linkKind says how a task relates to a linked one: "blocks".
func linkKind(k taskwirev1.LinkKind) string {
	return strings.ReplaceAll(enumName(k.String(), "LINK_KIND_"), "_", " ")
}
