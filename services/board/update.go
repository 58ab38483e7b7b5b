package board

import (
	"context"
	"slices"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/idempotency"
)

// taskChange is a checked UpdateTaskRequest: nil and unset fields stay as
// they are.
type taskChange struct {
	title, note, project    *string
	kind                    *task.Kind
	size                    *task.Size
	addLabels, removeLabels []string
	addLinks, removeLinks   []linkSpec
}

func checkTaskChange(req *taskwirev1.UpdateTaskRequest) (taskChange, error) {
	var ch taskChange
	if _, err := parseRef(req.GetRef()); err != nil {
		return ch, err
	}
	if err := checkExpected(req.GetExpectedVersion()); err != nil {
		return ch, err
	}
	if req.Title != nil {
		t, err := checkTitle(*req.Title)
		if err != nil {
			return ch, err
		}
		ch.title = &t
	}
	if req.Note != nil {
		note, err := taskNote.check(*req.Note)
		if err != nil {
			return ch, err
		}
		ch.note = &note
	}
	if req.Project != nil {
		p, err := checkProject(*req.Project)
		if err != nil {
			return ch, err
		}
		ch.project = &p
	}
	if k, ok, err := kindFromProto(req.GetKind()); err != nil {
		return ch, err
	} else if ok {
		ch.kind = &k
	}
	if s, ok, err := sizeFromProto(req.GetSize()); err != nil {
		return ch, err
	} else if ok {
		ch.size = &s
	}
	var err error
	if ch.addLabels, err = checkLabels(req.GetAddLabels()); err != nil {
		return ch, err
	}
	if ch.removeLabels, err = checkLabels(req.GetRemoveLabels()); err != nil {
		return ch, err
	}
	if ch.addLinks, err = checkLinks("add_links", req.GetAddLinks()); err != nil {
		return ch, err
	}
	ch.removeLinks, err = checkLinks("remove_links", req.GetRemoveLinks())
	return ch, err
}

func (s *Service) updateTask(ctx context.Context, a actor, req *taskwirev1.UpdateTaskRequest) (*taskwirev1.UpdateTaskResponse, error) {
	ch, err := checkTaskChange(req)
	if err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, s.client, idemCaller(a), taskwirev1.BoardService_UpdateTask_FullMethodName, req,
		func(tx *ent.Tx) (*taskwirev1.UpdateTaskResponse, error) {
			_, t, err := changeTask(ctx, tx, a, req.GetRef(), req.GetExpectedVersion(), ActionTaskUpdated,
				func(t *ent.Task, u *ent.TaskUpdateOne) (map[string]any, error) { return ch.apply(ctx, tx, a, t, u) })
			if err != nil {
				return nil, err
			}
			p, err := taskProto(ctx, tx.Client(), a, t)
			return &taskwirev1.UpdateTaskResponse{Task: p}, err
		})
}

// apply sets on u what ch changes of t and returns the detail of the
// change, nil when ch changes nothing.
func (ch taskChange) apply(ctx context.Context, tx *ent.Tx, a actor, t *ent.Task, u *ent.TaskUpdateOne) (map[string]any, error) {
	var changed []string
	detail := map[string]any{}
	if ch.title != nil && *ch.title != t.Title {
		u.SetTitle(*ch.title)
		changed = append(changed, "title")
		detail["title"] = *ch.title
	}
	if ch.note != nil && *ch.note != t.Note {
		u.SetNote(*ch.note)
		changed = append(changed, "note")
	}
	if len(changed) > 0 {
		if authors, added := withAuthor(t, a); added {
			u.SetTextAuthorIds(authors)
		}
	}
	if ch.kind != nil && *ch.kind != t.Kind {
		b, err := boardOf(ctx, tx, a, t.BoardID)
		if err != nil {
			return nil, err
		}
		if err := checkTakes(b, *ch.kind); err != nil {
			return nil, err
		}
		u.SetKind(*ch.kind)
		changed = append(changed, "kind")
		detail["kind"] = string(*ch.kind)
	}
	if ch.size != nil && (t.Size == nil || *ch.size != *t.Size) {
		u.SetSize(*ch.size)
		changed = append(changed, "size")
		detail["size"] = string(*ch.size)
	}
	if ch.project != nil && *ch.project != t.Project {
		u.SetProject(*ch.project)
		changed = append(changed, "project")
		detail["project"] = *ch.project
	}
	labels, added, removed, err := ch.labels(t.Labels)
	if err != nil {
		return nil, err
	}
	if len(added)+len(removed) > 0 {
		u.SetLabels(labels)
		changed = append(changed, "labels")
		putList(detail, "labels_added", added)
		putList(detail, "labels_removed", removed)
	}
	linksAdded, linksRemoved, err := applyLinks(ctx, tx, a, t, ch.addLinks, ch.removeLinks)
	if err != nil {
		return nil, err
	}
	if len(linksAdded)+len(linksRemoved) > 0 {
		changed = append(changed, "links")
		putList(detail, "links_added", linksAdded)
		putList(detail, "links_removed", linksRemoved)
	}
	if changed == nil {
		return nil, nil
	}
	detail["changed"] = changed
	return detail, nil
}

// labels returns the labels a task with have ends up with, and which of
// them ch adds and removes; removing wins over adding the same label.
func (ch taskChange) labels(have []string) (out, added, removed []string, err error) {
	for _, l := range have {
		if slices.Contains(ch.removeLabels, l) {
			removed = append(removed, l)
		} else {
			out = append(out, l)
		}
	}
	for _, l := range ch.addLabels {
		if !slices.Contains(have, l) && !slices.Contains(ch.removeLabels, l) {
			out = append(out, l)
			added = append(added, l)
		}
	}
	if len(out) > MaxLabels {
		return nil, nil, nil, domainerr.New(domainerr.Invalid,
			"the task would have %d labels, more than %d: add fewer, or remove some with remove_labels", len(out), MaxLabels)
	}
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
	return out, added, removed, nil
}

// putList sets detail[name] to list unless it is empty.
func putList(detail map[string]any, name string, list []string) {
	if len(list) > 0 {
		detail[name] = list
	}
}
