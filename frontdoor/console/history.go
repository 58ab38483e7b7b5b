package console

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

// historyEntry is one line of a task's History: who, in words a person
// reads ("bot (assistant of alice, via Claude Code)"), and what they did,
// as a sentence ("moved T-3 from next to doing"). Both are text, escaped
// by the template: assistants write titles, reasons and labels, and
// clients name themselves.
type historyEntry struct {
	Who, Kind, Did string
	At             *timestamppb.Timestamp
}

// historyOf turns a task's activity into sentences; members gives each
// actor's kind and sponsor.
func historyOf(ref string, entries []*taskwirev1.HistoryEntry, members map[string]*taskwirev1.Member) []historyEntry {
	out := make([]historyEntry, 0, len(entries))
	for _, e := range entries {
		h := historyEntry{Who: e.GetActor(), Kind: "person", Did: didWhat(ref, e), At: e.GetAt()}
		var about []string
		if m := members[e.GetActor()]; m != nil {
			h.Kind = memberKind(m.GetKind())
			if s := m.GetSponsor(); s != "" {
				about = append(about, "assistant of "+s)
			}
		}
		if c := e.GetClient(); c != "" {
			about = append(about, "via "+c)
		}
		if len(about) > 0 {
			h.Who += " (" + strings.Join(about, ", ") + ")"
		}
		out = append(out, h)
	}
	return out
}

// details reads a history entry's details by name.
type details map[string]string

func detailsOf(e *taskwirev1.HistoryEntry) details {
	d := details{}
	for _, x := range e.GetDetail() {
		d[x.GetName()] = x.GetValue()
	}
	return d
}

// list is a detail holding a list (JSON, as the board writes it),
// joined with commas.
func (d details) list(name string) string {
	var items []string
	if err := json.Unmarshal([]byte(d[name]), &items); err != nil {
		return d[name]
	}
	return strings.Join(items, ", ")
}

// didWhat is the sentence of one activity on the task ref, after the
// actor's name.
func didWhat(ref string, e *taskwirev1.HistoryEntry) string {
	d := detailsOf(e)
	switch e.GetAction() {
	case "task.created":
		if d["import"] == "true" {
			return fmt.Sprintf("imported %s into %s", ref, d["lane"])
		}
		return fmt.Sprintf("created %s in %s", ref, d["lane"])
	case "task.updated":
		return updated(ref, d)
	case "task.moved":
		if d["from"] == d["to"] {
			return fmt.Sprintf("reordered %s within %s", ref, d["to"])
		}
		return fmt.Sprintf("moved %s from %s to %s", ref, d["from"], d["to"])
	case "task.assigned":
		return assigned(ref, d)
	case "task.flagged":
		return fmt.Sprintf("flagged %s: %s", ref, d["reason"])
	case "task.unflagged":
		return fmt.Sprintf("cleared the flag on %s", ref)
	case "comment.added":
		return fmt.Sprintf("commented on %s", ref)
	case "comment.edited":
		return fmt.Sprintf("edited a comment on %s", ref)
	case "task.deleted":
		return fmt.Sprintf("deleted %s", ref)
	case "task.restored":
		return fmt.Sprintf("restored %s", ref)
	}
	return workDid(ref, e.GetAction(), d)
}

// workDid is the sentence of the assistants' work queue's activity, and
// of any other, told as its action and details.
func workDid(ref, action string, d details) string {
	switch action {
	case "work.approved":
		return fmt.Sprintf("approved %s for assistants (a %s-minute lease, at most %s claims)", ref, d["lease_minutes"], d["max_claims"])
	case "work.claimed":
		return fmt.Sprintf("claimed %s to work on it", ref)
	case "work.released":
		return fmt.Sprintf("gave %s back: %s", ref, d["reason"])
	case "work.completed":
		return fmt.Sprintf("finished work on %s (tests %s)", ref, strings.ReplaceAll(d["test_status"], "_", " "))
	}
	s := action + " " + ref
	for _, x := range slices.Sorted(maps.Keys(d)) {
		s += fmt.Sprintf("; %s: %s", x, d[x])
	}
	return s
}

// updated is the sentence of a change of a task's fields.
func updated(ref string, d details) string {
	var changed []string
	_ = json.Unmarshal([]byte(d["changed"]), &changed)
	if len(changed) == 1 {
		switch changed[0] {
		case "title":
			return fmt.Sprintf("renamed %s to “%s”", ref, d["title"])
		case "note":
			return fmt.Sprintf("edited the note of %s", ref)
		}
	}
	var parts []string
	for _, c := range changed {
		switch c {
		case "title":
			parts = append(parts, fmt.Sprintf("title to “%s”", d["title"]))
		case "kind", "size":
			parts = append(parts, c+" to "+d[c])
		case "project":
			parts = append(parts, fmt.Sprintf("project to “%s”", d["project"]))
		case "labels", "links":
			parts = append(parts, c+" ("+addedRemoved(d, c)+")")
		default:
			parts = append(parts, c)
		}
	}
	return fmt.Sprintf("changed the %s of %s", joinAnd(parts), ref)
}

// addedRemoved tells what a change added to and removed from a list.
func addedRemoved(d details, name string) string {
	var s []string
	if v := d.list(name + "_added"); v != "" {
		s = append(s, "added "+v)
	}
	if v := d.list(name + "_removed"); v != "" {
		s = append(s, "removed "+v)
	}
	return strings.Join(s, "; ")
}

// assigned is the sentence of a change of a task's assignees.
func assigned(ref string, d details) string {
	add, remove := d.list("added"), d.list("removed")
	switch {
	case add != "" && remove != "":
		return fmt.Sprintf("assigned %s to %s and unassigned %s", add, ref, remove)
	case remove != "":
		return fmt.Sprintf("unassigned %s from %s", remove, ref)
	}
	return fmt.Sprintf("assigned %s to %s", add, ref)
}

// joinAnd joins "a", "b", "c" as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// members are the tenant's members by handle, read page by page.
func (c *Console) members(ctx context.Context) (map[string]*taskwirev1.Member, error) {
	out := map[string]*taskwirev1.Member{}
	req := &taskwirev1.ListMembersRequest{Limit: 100}
	for range 20 {
		resp, err := c.board.ListMembers(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, m := range resp.GetItems() {
			out[m.GetHandle()] = m
		}
		if req.Cursor = resp.GetNextCursor(); req.Cursor == "" {
			break
		}
	}
	return out, nil
}

// kindsOf is each member's kind ("person", "assistant") by handle.
func kindsOf(members map[string]*taskwirev1.Member) map[string]string {
	kinds := make(map[string]string, len(members))
	for h, m := range members {
		kinds[h] = memberKind(m.GetKind())
	}
	return kinds
}
