package board

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/ent"
	"github.com/taskwire/taskwire/ent/member"
	"github.com/taskwire/taskwire/ent/task"
	"github.com/taskwire/taskwire/services/domainerr"
)

// Limits on what a task holds, in characters.
const (
	MaxTitle     = 200
	MaxNote      = 20000
	MaxComment   = 20000
	MaxAssignees = 20
	MaxImport    = 1000
)

// draft is a checked task to create.
type draft struct {
	title     string
	note      string
	lane      task.Lane
	kind      task.Kind
	size      *task.Size
	assignees []string // handles, "me" resolved to the caller, no repeats
}

// checkDraft validates what a new task is made of, applying the defaults
// (backlog, task, no size) for unspecified enums.
func checkDraft(a actor, d *taskwirev1.TaskDraft) (draft, error) {
	title, err := checkTitle(d.GetTitle())
	if err != nil {
		return draft{}, err
	}
	if err := checkNote(d.GetNote()); err != nil {
		return draft{}, err
	}
	out := draft{title: title, note: d.GetNote(), lane: task.LaneBacklog, kind: task.KindTask}
	if l, ok, err := laneFromProto(d.GetLane()); err != nil {
		return draft{}, err
	} else if ok {
		out.lane = l
	}
	if k, ok, err := kindFromProto(d.GetKind()); err != nil {
		return draft{}, err
	} else if ok {
		out.kind = k
	}
	if s, ok, err := sizeFromProto(d.GetSize()); err != nil {
		return draft{}, err
	} else if ok {
		out.size = &s
	}
	out.assignees, err = checkAssignees(a, d.GetAssignees())
	return out, err
}

// checkTitle returns title trimmed, or why it cannot be one.
func checkTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	switch n := utf8.RuneCountInString(title); {
	case n == 0:
		return "", domainerr.New(domainerr.Invalid, "title is empty: give the task a one-line summary")
	case n > MaxTitle:
		return "", domainerr.New(domainerr.Invalid, "title is %d characters long, more than %d: shorten it and put details in the note", n, MaxTitle)
	case strings.ContainsAny(title, "\r\n"):
		return "", domainerr.New(domainerr.Invalid, "title has a line break: keep the title to one line and put details in the note")
	}
	return title, nil
}

func checkNote(note string) error {
	if n := utf8.RuneCountInString(note); n > MaxNote {
		return domainerr.New(domainerr.Invalid, "note is %d characters long, more than %d: shorten it", n, MaxNote)
	}
	return nil
}

func checkAssignees(a actor, handles []string) ([]string, error) {
	if len(handles) > MaxAssignees {
		return nil, domainerr.New(domainerr.Invalid, "%d assignees is more than %d: assign fewer members", len(handles), MaxAssignees)
	}
	var out []string
	for _, h := range handles {
		h = strings.TrimSpace(h)
		if h == "me" {
			h = a.member.Handle
		}
		if h == "" {
			return nil, domainerr.New(domainerr.Invalid, `an assignee is empty: use member handles, or "me" for yourself`)
		}
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out, nil
}

// memberIDs returns the ids of those of handles that are members of the
// caller's tenant; checkKnown tells about the others.
func memberIDs(ctx context.Context, c *ent.Client, a actor, handles []string) (map[string]int, error) {
	ids := map[string]int{}
	if len(handles) == 0 {
		return ids, nil
	}
	ms, err := c.Member.Query().Where(member.TenantID(a.tenant.ID), member.HandleIn(handles...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		ids[m.Handle] = m.ID
	}
	return ids, nil
}

// checkKnown returns an Invalid error naming the first of handles that is
// not in ids.
func checkKnown(a actor, ids map[string]int, handles []string) error {
	for _, h := range handles {
		if _, ok := ids[h]; !ok {
			return domainerr.New(domainerr.Invalid,
				`assignee %q is not a member of tenant %s: use a member handle, or "me" for yourself`, h, a.tenant.Slug)
		}
	}
	return nil
}

// assigneeIDs maps a draft's handles to member ids.
func (d draft) assigneeIDs(ids map[string]int) []int {
	out := make([]int, 0, len(d.assignees))
	for _, h := range d.assignees {
		out = append(out, ids[h])
	}
	return out
}

// atIndex prefixes the message of an Invalid error with the draft's index.
func atIndex(i int, err error) error {
	if domainerr.KindOf(err) != domainerr.Invalid {
		return err
	}
	return domainerr.Wrap(domainerr.Invalid, err, fmt.Sprintf("tasks[%d]: %s", i, domainerr.Message(err)))
}
