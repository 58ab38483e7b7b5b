package board

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/predicate"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/safetext"
)

// Limits on what a task holds, in characters.
const (
	MaxTitle     = 200
	MaxNote      = 20000
	MaxComment   = 20000
	MaxAssignees = 20
	// An import's drafts are fewer and their notes shorter than
	// tasks_create allows, so that the largest import its inputSchema
	// admits fits in the front door's 4 MiB body limit even with every
	// character 4 bytes long (docs/protocol.md shows the sum).
	MaxImport     = 200
	MaxImportNote = 3000
	MaxLabels     = 10 // labels on one task
	MaxLabel      = 40
	MaxProject    = 60
)

// draft is a checked task to create.
type draft struct {
	title     string
	note      string
	lane      task.Lane
	kind      task.Kind
	size      *task.Size
	assignees []string // handles, "me" resolved to the caller, no repeats
	labels    []string // normalized, sorted, no repeats
	project   string
}

// checkDraft validates what a new task is made of, applying the defaults
// (backlog, task, no size) for unspecified enums.
func checkDraft(a actor, d *taskwirev1.TaskDraft, lim noteLimit) (draft, error) {
	title, err := checkTitle(d.GetTitle())
	if err != nil {
		return draft{}, err
	}
	note, err := lim.check(d.GetNote())
	if err != nil {
		return draft{}, err
	}
	out := draft{title: title, note: note, lane: task.LaneBacklog, kind: task.KindTask}
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
	if out.labels, err = checkLabels(d.GetLabels()); err != nil {
		return draft{}, err
	}
	if len(out.labels) > MaxLabels {
		return draft{}, tooManyLabels(len(out.labels))
	}
	if out.project, err = checkProject(d.GetProject()); err != nil {
		return draft{}, err
	}
	out.assignees, err = checkAssignees(a, d.GetAssignees())
	return out, err
}

// checkLabels returns labels normalized (trimmed, lowercase), sorted and
// without repeats, or why one of them cannot be a label. It does not count
// them: an update checks the count of the labels the task ends up with.
func checkLabels(labels []string) ([]string, error) {
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		norm, err := line("label", l)
		if err != nil {
			return nil, err
		}
		norm = strings.ToLower(norm)
		n := utf8.RuneCountInString(norm)
		valid := n >= 1 && n <= MaxLabel && strings.IndexFunc(norm, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
		}) < 0
		if !valid {
			return nil, domainerr.New(domainerr.Invalid,
				`label %q is not valid: use 1 to %d letters, digits, "-" or "_", e.g. "backend" or "needs-review"`, l, MaxLabel)
		}
		out = append(out, norm)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func tooManyLabels(n int) error {
	return domainerr.New(domainerr.Invalid, "%d labels is more than %d: keep the %d that matter most", n, MaxLabels, MaxLabels)
}

// checkProject returns project trimmed and in NFC (line), or why it
// cannot be one.
func checkProject(project string) (string, error) {
	project, err := line("project", project)
	if err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(project); n > MaxProject {
		return "", domainerr.New(domainerr.Invalid, "project is %d characters long, more than %d: use a shorter name", n, MaxProject)
	}
	return project, nil
}

// checkTitle returns title trimmed and in NFC (line), or why it cannot be
// one.
func checkTitle(title string) (string, error) {
	title, err := line("title", title, "put details in the note")
	if err != nil {
		return "", err
	}
	switch n := utf8.RuneCountInString(title); {
	case n == 0:
		return "", domainerr.New(domainerr.Invalid, "title is empty: give the task a one-line summary")
	case n > MaxTitle:
		return "", domainerr.New(domainerr.Invalid, "title is %d characters long, more than %d: shorten it and put details in the note", n, MaxTitle)
	}
	return title, nil
}

// noteLimit is how long a task's note may be where it is written, and
// what to do about a longer one.
type noteLimit struct {
	max   int
	where string // "" or where the tighter limit holds, e.g. " in an import"
	fix   string
}

// The note limits of a task written alone (tasks_create, tasks_update) and
// of an import's drafts.
var (
	taskNote   = noteLimit{max: MaxNote, fix: "shorten it"}
	importNote = noteLimit{max: MaxImportNote, where: " in an import",
		fix: "shorten it, or import the task without it and set the note with tasks_update"}
)

// check returns note without hidden characters and in NFC (block), or why
// it cannot be one.
func (l noteLimit) check(note string) (string, error) {
	note = safetext.Block(note)
	if n := utf8.RuneCountInString(note); n > l.max {
		return "", domainerr.New(domainerr.Invalid, "note is %d characters long, more than %d%s: %s", n, l.max, domainerr.Safe(l.where), domainerr.Safe(l.fix))
	}
	return note, nil
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
// caller's tenant and not removed; checkKnown tells about the others.
func memberIDs(ctx context.Context, c *ent.Client, a actor, handles []string) (map[string]int, error) {
	return idsOfHandles(ctx, c, a, handles, member.RemovedAtIsNil())
}

// anyMemberIDs is memberIDs including removed members.
func anyMemberIDs(ctx context.Context, c *ent.Client, a actor, handles []string) (map[string]int, error) {
	return idsOfHandles(ctx, c, a, handles)
}

// idsOfHandles returns the ids of those of handles that are members of the
// caller's tenant matching where.
func idsOfHandles(ctx context.Context, c *ent.Client, a actor, handles []string, where ...predicate.Member) (map[string]int, error) {
	ids := map[string]int{}
	if len(handles) == 0 {
		return ids, nil
	}
	where = append(where, member.TenantID(a.tenant.ID), member.HandleIn(handles...))
	ms, err := c.Member.Query().Where(where...).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		ids[m.Handle] = m.ID
	}
	return ids, nil
}

// checkKnown returns an Invalid error naming those of handles that are not
// in ids, nil when all are.
func checkKnown(a actor, ids map[string]int, handles []string) error {
	var unknown []string
	for _, h := range handles {
		if _, ok := ids[h]; !ok {
			unknown = append(unknown, strconv.Quote(h))
		}
	}
	switch len(unknown) {
	case 0:
		return nil
	case 1:
		return domainerr.New(domainerr.Invalid,
			`assignee %s is not a member of tenant %s (or was removed): use a handle from members_list, or "me" for yourself`,
			unknown[0], a.tenant.Slug)
	}
	return domainerr.New(domainerr.Invalid,
		`assignees %s are not members of tenant %s (or were removed): use handles from members_list, or "me" for yourself`,
		strings.Join(unknown, ", "), a.tenant.Slug)
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
	return domainerr.Prefix(err, "tasks[%d]: ", i)
}
