package board_test

import (
	"fmt"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// hiddenChars are one character of each class a person does not see as
// the model reads it, with the name the refusal gives it.
// What follows an escape character is plain text, which long text keeps.
var hiddenChars = []struct{ name, char, named, residue string }{
	{"C0 control", "\x07", "U+0007 BELL", ""},
	{"ANSI escape", "\x1b[31m", "U+001B ESCAPE", "[31m"},
	{"C1 control", "\u009b", "U+009B C1 CONTROL", ""},
	{"bidi override", "\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE", ""},
	{"bidi isolate", "\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE", ""},
	{"zero-width space", "\u200b", "U+200B ZERO WIDTH SPACE", ""},
	{"BOM", "\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE", ""},
	{"tag character", "\U000E0049", "U+E0049 TAG LATIN CAPITAL LETTER I", ""},
}

// One-line text refuses each class, naming the character, where it is
// and the field; nothing is written.
func TestOneLineTextRefusesHiddenCharacters(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		task := e.create(t, e.alice, "Existing")
		for _, h := range hiddenChars {
			bad := "ab" + h.char + "cd"
			where := "at character 3"
			_, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: bad})
			wantErr(t, "CreateTask(title with "+h.name+")", err, domainerr.Invalid, "title has "+h.named, where)
			// The sentence holds nothing the caller wrote, so the audit
			// log keeps it whole.
			if got, want := domainerr.Redacted(err), domainerr.Message(err); got != want {
				t.Errorf("Redacted(title with %s) = %q, want the whole sentence %q", h.name, got, want)
			}
			_, err = e.svc.UpdateTask(e.alice, &taskwirev1.UpdateTaskRequest{Ref: task.Ref, Title: &bad})
			wantErr(t, "UpdateTask(title with "+h.name+")", err, domainerr.Invalid, "title has "+h.named, where)
			_, err = e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "x", Labels: []string{"ok", bad}})
			wantErr(t, "CreateTask(label with "+h.name+")", err, domainerr.Invalid, "label has "+h.named, where)
			_, err = e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "x", Project: bad})
			wantErr(t, "CreateTask(project with "+h.name+")", err, domainerr.Invalid, "project has "+h.named, where)
			_, err = e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: []*taskwirev1.TaskDraft{{Title: "fine"}, {Title: bad}}})
			wantErr(t, "ImportTasks(title with "+h.name+")", err, domainerr.Invalid, "tasks[1]: title has "+h.named, where)
			_, err = e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Name: &bad})
			wantErr(t, "UpdateBoard(name with "+h.name+")", err, domainerr.Invalid, "name has "+h.named, where)
		}
		if n := e.taskCount(t); n != 1 {
			t.Errorf("tasks after refused writes = %d, want 1", n)
		}
	})
}

// Long text loses the hidden characters but keeps newlines and tabs; all
// text is stored in NFC.
func TestLongTextDropsHiddenCharacters(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, h := range hiddenChars {
			in := "Line one\r\n\tTwo" + h.char + " cafe\u0301"
			want := "Line one\n\tTwo" + h.residue + " café"
			created, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{
				Title: fmt.Sprintf("Cafe\u0301 %s", h.name), Note: in, AllowDuplicate: true,
			})
			if err != nil {
				t.Fatalf("CreateTask(note with %s) = %v", h.name, err)
			}
			if got := created.Task.GetNote(); got != want {
				t.Errorf("note with %s stored as %q, want %q", h.name, got, want)
			}
			if got, want := created.Task.GetTitle(), "Café "+h.name; got != want {
				t.Errorf("title stored as %q, want the NFC form %q", got, want)
			}
			com, err := e.svc.AddComment(e.alice, &taskwirev1.AddCommentRequest{Ref: created.Task.Ref, Body: in})
			if err != nil || com.Comment.GetBody() != want {
				t.Errorf("AddComment(body with %s) = %q, %v; want %q", h.name, com.GetComment().GetBody(), err, want)
			}
			edited, err := e.svc.EditComment(e.alice, &taskwirev1.EditCommentRequest{Id: com.GetComment().GetId(), Body: in + h.char[:len(h.char)-len(h.residue)]})
			if err != nil || edited.Comment.GetBody() != want || edited.Comment.GetVersion() != 1 {
				t.Errorf("EditComment(same text plus %s) = %v, %v; want it unchanged at version 1", h.name, edited, err)
			}
			note, err := e.svc.AddContextNote(e.alice, &taskwirev1.AddContextNoteRequest{Body: in})
			if err != nil || note.Note.GetBody() != want {
				t.Errorf("AddContextNote(body with %s) = %v, %v; want %q", h.name, note, err, want)
			}
			reason := "Blocked" + h.char + " on review"
			flagged, err := e.svc.FlagTask(e.alice, &taskwirev1.FlagTaskRequest{Ref: created.Task.Ref, Flagged: true, Reason: reason})
			if want := "Blocked" + h.residue + " on review"; err != nil || flagged.Task.GetFlagReason() != want {
				t.Errorf("FlagTask(reason with %s) = %v, %v; want reason %q", h.name, flagged, err, want)
			}
		}
		rules := "Be kind.\u200b\u202e\nNo secrets."
		resp, err := e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Rules: &rules})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Board.GetHasRules() {
			t.Errorf("UpdateBoard = %v, want rules set", resp)
		}
		got, err := e.svc.GetContext(e.alice, &taskwirev1.GetContextRequest{})
		if err != nil || got.GetRules() != "Be kind.\nNo secrets." {
			t.Errorf("rules stored as %q (%v), want the hidden characters removed", got.GetRules(), err)
		}
		// Text of nothing but hidden characters is empty.
		_, err = e.svc.AddComment(e.alice, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "\u200b\u2060"})
		wantErr(t, "AddComment(only zero-width characters)", err, domainerr.Invalid, "body is empty")
	})
}
