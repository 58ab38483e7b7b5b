package board

import (
	"slices"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
)

// kindOrder is the order kinds are listed in: the order of the API's enum.
var kindOrder = []task.Kind{task.KindTask, task.KindBug, task.KindFeature, task.KindChore}

// boardKinds are the kinds of task b takes, in kindOrder: every kind when
// its column is empty.
func boardKinds(b *ent.Board) []task.Kind {
	if len(b.Kinds) == 0 {
		return slices.Clone(kindOrder)
	}
	var out []task.Kind
	for _, k := range kindOrder {
		if slices.Contains(b.Kinds, string(k)) {
			out = append(out, k)
		}
	}
	return out
}

// kindProtos is ks for an answer.
func kindProtos(ks []task.Kind) []taskwirev1.TaskKind {
	out := make([]taskwirev1.TaskKind, 0, len(ks))
	for _, k := range ks {
		out = append(out, toProto(kinds, k))
	}
	return out
}

// checkKinds is the kinds a request asks a board to take, in kindOrder
// with duplicates removed, as the board stores them: nil for every kind.
// An empty list gives nil and ok == false: the caller decides what it
// means.
func checkKinds(ks []taskwirev1.TaskKind) (stored []string, ok bool, err error) {
	if len(ks) == 0 {
		return nil, false, nil
	}
	var want []task.Kind
	for _, p := range ks {
		k, ok, err := kindFromProto(p)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, domainerr.New(domainerr.Invalid, "kinds holds an unspecified kind: list only task, bug, feature or chore")
		}
		want = append(want, k)
	}
	for _, k := range kindOrder {
		if slices.Contains(want, k) {
			stored = append(stored, string(k))
		}
	}
	if len(stored) == len(kindOrder) {
		stored = nil
	}
	return stored, true, nil
}

// checkTakes refuses a task of kind k on b when b does not take it.
func checkTakes(b *ent.Board, k task.Kind) error {
	takes := boardKinds(b)
	if slices.Contains(takes, k) {
		return nil
	}
	names := make([]string, len(takes))
	for i, t := range takes {
		names[i] = string(t)
	}
	pick := "pick one of those"
	if len(names) == 1 {
		pick = "use kind " + names[0]
	}
	return domainerr.New(domainerr.Invalid,
		"board %s takes only %s: %s, or ask an owner or admin to add %s in the board's settings (boards_update kinds)",
		b.Slug, andList(names), pick, k)
}

// andList is names joined as in a sentence: "bug, feature and chore".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
