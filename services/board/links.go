package board

import (
	"context"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/tasklink"
)

// linkNames names the kinds of link as the API spells them.
var linkNames = map[taskwirev1.LinkKind]string{
	taskwirev1.LinkKind_LINK_KIND_BLOCKS:     "blocks",
	taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY: "blocked_by",
	taskwirev1.LinkKind_LINK_KIND_RELATES_TO: "relates_to",
	taskwirev1.LinkKind_LINK_KIND_DUPLICATES: "duplicates",
}

// linkSpec is a checked link of a request: how the task relates to the
// task with number.
type linkSpec struct {
	kind   taskwirev1.LinkKind
	number int
}

func (l linkSpec) String() string { return linkNames[l.kind] + " " + Ref(l.number) }

// checkLinks validates the links of a request's field before anything is
// read.
func checkLinks(field string, in []*taskwirev1.Link) ([]linkSpec, error) {
	out := make([]linkSpec, 0, len(in))
	for i, l := range in {
		if _, ok := linkNames[l.GetKind()]; !ok {
			return nil, domainerr.New(domainerr.Invalid,
				"%s[%d] has no valid kind: use blocks, blocked_by, relates_to or duplicates", field, i)
		}
		n, err := parseRef(l.GetRef())
		if err != nil {
			return nil, domainerr.Prefix(err, "%s[%d]: ", domainerr.Safe(field), i)
		}
		out = append(out, linkSpec{kind: l.GetKind(), number: n})
	}
	return out, nil
}

// linkRow returns the stored relation between task and other: "blocked by"
// is stored as the other task's "blocks", so each relation has one row.
func linkRow(l linkSpec, task, other int) (from, to int, kind tasklink.Kind) {
	switch l.kind {
	case taskwirev1.LinkKind_LINK_KIND_BLOCKED_BY:
		return other, task, tasklink.KindBlocks
	case taskwirev1.LinkKind_LINK_KIND_RELATES_TO:
		return task, other, tasklink.KindRelatesTo
	case taskwirev1.LinkKind_LINK_KIND_DUPLICATES:
		return task, other, tasklink.KindDuplicates
	}
	return task, other, tasklink.KindBlocks
}

// linkWhere selects the row of l between task and other; "relates to" goes
// both ways, so either direction matches.
func linkWhere(a actor, l linkSpec, task, other int) predicate.TaskLink {
	from, to, kind := linkRow(l, task, other)
	dir := tasklink.And(tasklink.FromTaskID(from), tasklink.ToTaskID(to))
	if kind == tasklink.KindRelatesTo {
		dir = tasklink.Or(dir, tasklink.And(tasklink.FromTaskID(to), tasklink.ToTaskID(from)))
	}
	return tasklink.And(tasklink.TenantID(a.tenant.ID), tasklink.KindEQ(kind), dir)
}

// addLink links t as l says, unless it is linked so already; it reports
// whether it added a row. The other task must be in the tenant, not
// deleted, and not t.
func addLink(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, l linkSpec) (bool, error) {
	other, err := findTask(ctx, tx.Client(), a, Ref(l.number))
	if err != nil {
		return false, err
	}
	if other.ID == t.ID {
		return false, domainerr.New(domainerr.Invalid, "%s cannot be linked to itself: link it to another task", Ref(t.Number))
	}
	exists, err := tx.TaskLink.Query().Where(linkWhere(a, l, t.ID, other.ID)).Exist(ctx)
	if err != nil || exists {
		return false, err
	}
	from, to, kind := linkRow(l, t.ID, other.ID)
	err = tx.TaskLink.Create().SetTenantID(a.tenant.ID).SetFromTaskID(from).SetToTaskID(to).
		SetKind(kind).SetCreatedByID(a.member.ID).Exec(ctx)
	return err == nil, err
}

// removeLink removes the link l of t, if there is one; it reports whether
// it removed a row. The other task may be deleted: a link to it can still
// go.
func removeLink(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, l linkSpec) (bool, error) {
	other, err := findAnyTask(ctx, tx.Client(), a, Ref(l.number))
	if err != nil {
		return false, err
	}
	n, err := tx.TaskLink.Delete().Where(linkWhere(a, l, t.ID, other.ID)).Exec(ctx)
	return n > 0, err
}

// applyLinks adds and removes links of t and returns what changed, as
// "blocks T-3" and the like, for the activity log.
func applyLinks(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, add, remove []linkSpec) (added, removed []string, err error) {
	for _, l := range remove {
		ok, err := removeLink(ctx, tx, a, t, l)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			removed = append(removed, l.String())
		}
	}
	for _, l := range add {
		ok, err := addLink(ctx, tx, a, t, l)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			added = append(added, l.String())
		}
	}
	return added, removed, nil
}
