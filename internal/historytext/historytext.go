// Package historytext turns a task's history entries into the sentences
// a person reads ("moved T-3 from next to doing"), in one place for the
// console's History and the summary of the tools' history entries.
package historytext

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
)

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

// Sentence is the sentence of one activity on the task ref, after the
// actor's name: the console's History and the tools' history entries
// (their summary) say it the same way.
func Sentence(ref string, e *taskwirev1.HistoryEntry) string {
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
