package board_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestEditComment(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Discuss")
		mine := e.comment(t, e.alice, "T-1", "Ship on Monday.")
		id := mine.Id

		_, err := e.svc.EditComment(e.bob, &taskwirev1.EditCommentRequest{Id: id, Body: "Ship never."})
		wantErr(t, "EditComment(bob, alice's comment)", err, domainerr.PermissionDenied,
			fmt.Sprintf("You can edit only your own comments; comment #%d is alice's: add a new comment instead", id))

		got, err := e.svc.EditComment(e.alice, &taskwirev1.EditCommentRequest{Id: id, Body: "Ship on Tuesday.", ExpectedVersion: 1})
		if err != nil {
			t.Fatalf("EditComment(alice, version 1) = %v", err)
		}
		cm := got.Comment
		if cm.Body != "Ship on Tuesday." || cm.Version != 2 || cm.EditedAt == nil || cm.Trust != taskwirev1.Trust_TRUST_OWN || cm.Id != id || cm.Task != "T-1" {
			t.Errorf("EditComment() = %v, want the new text at version 2, edited, own", cm)
		}
		if !cm.EditedAt.AsTime().After(cm.CreatedAt.AsTime()) && !cm.EditedAt.AsTime().Equal(cm.CreatedAt.AsTime()) {
			t.Errorf("edited_at %v is before created_at %v", cm.EditedAt.AsTime(), cm.CreatedAt.AsTime())
		}
		list, err := e.svc.ListComments(e.bob, &taskwirev1.ListCommentsRequest{Ref: "T-1"})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("ListComments(T-1) = %v, %v, want the one comment", list, err)
		}
		ignoreTrust := protocmp.IgnoreFields(&taskwirev1.Comment{}, "trust")
		if diff := cmp.Diff(cm, list.Items[0], protocmp.Transform(), ignoreTrust); diff != "" || list.Items[0].Trust != taskwirev1.Trust_TRUST_UNTRUSTED {
			t.Errorf("ListComments(bob) after the edit: trust %v, (-edited +listed):\n%s", list.Items[0].Trust, diff)
		}

		_, err = e.svc.EditComment(e.alice, &taskwirev1.EditCommentRequest{Id: id, Body: "Ship on Friday.", ExpectedVersion: 1})
		wantErr(t, "EditComment(version 1 of 2)", err, domainerr.Conflict,
			fmt.Sprintf("Comment #%d changed since version 1: it is at version 2 now", id), "expected_version 2")

		// The same text again changes nothing.
		same, err := e.svc.EditComment(e.alice, &taskwirev1.EditCommentRequest{Id: id, Body: "Ship on Tuesday."})
		if err != nil || same.Comment.Version != 2 {
			t.Errorf("EditComment(same text) = %v, %v, want version 2 unchanged", same, err)
		}

		// A retry with the same key edits once.
		req := &taskwirev1.EditCommentRequest{Id: id, Body: "Ship on Wednesday.", ExpectedVersion: 2, IdempotencyKey: "edit-1"}
		first, err := e.svc.EditComment(e.alice, req)
		if err != nil {
			t.Fatal(err)
		}
		retry, err := e.svc.EditComment(e.alice, req)
		if diff := cmp.Diff(first, retry, protocmp.Transform()); err != nil || diff != "" || first.Comment.Version != 3 {
			t.Errorf("EditComment(retry) = %v; version %d; (-first +retry):\n%s", err, first.Comment.Version, diff)
		}

		as := e.activities(t)
		if got := actions(as); !equal(got, "task.created", "comment.added", "comment.edited", "comment.edited") {
			t.Fatalf("activity actions = %v, want two edits after the comment", got)
		}
		if ed := as[2]; ed.TaskID == nil || *ed.TaskID != *as[0].TaskID || ed.Detail["ref"] != "T-1" {
			t.Errorf("comment.edited activity = task %v detail %v, want on T-1", ed.TaskID, ed.Detail)
		}
	})
}

func TestEditCommentRefused(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Discuss")
		e.create(t, e.alice, "Drop")
		id := e.comment(t, e.claude, "T-1", "Looking into it.").Id
		gone := e.comment(t, e.claude, "T-2", "On the dropped task.").Id
		e.shape(t, shape{n: 2, deleted: true})

		for _, tc := range []struct {
			name  string
			req   *taskwirev1.EditCommentRequest
			kind  domainerr.Kind
			parts []string
		}{
			{"empty", &taskwirev1.EditCommentRequest{Id: id, Body: " "}, domainerr.Invalid, []string{"body is empty"}},
			{"long", &taskwirev1.EditCommentRequest{Id: id, Body: strings.Repeat("x", 20001)}, domainerr.Invalid, []string{"20000"}},
			{"no id", &taskwirev1.EditCommentRequest{Body: "x"}, domainerr.Invalid, []string{"comments_list"}},
			{"bad version", &taskwirev1.EditCommentRequest{Id: id, Body: "x", ExpectedVersion: -1}, domainerr.Invalid, []string{"expected_version -1"}},
			{"unknown", &taskwirev1.EditCommentRequest{Id: 999, Body: "x"}, domainerr.NotFound, []string{"No comment #999 in tenant acme"}},
			{"deleted task", &taskwirev1.EditCommentRequest{Id: gone, Body: "x"}, domainerr.NotFound, []string{"T-2, which was deleted", "tasks_restore"}},
		} {
			_, err := e.svc.EditComment(e.claude, tc.req)
			wantErr(t, "EditComment("+tc.name+")", err, tc.kind, tc.parts...)
		}
		// Another tenant learns nothing of acme's comments.
		_, err := e.svc.EditComment(e.gina, &taskwirev1.EditCommentRequest{Id: id, Body: "x"})
		wantErr(t, "EditComment(gina, acme's comment)", err, domainerr.NotFound, fmt.Sprintf("No comment #%d in tenant globex", id))

		list, err := e.svc.ListComments(e.alice, &taskwirev1.ListCommentsRequest{Ref: "T-1"})
		if err != nil || list.Items[0].Body != "Looking into it." || list.Items[0].Version != 1 {
			t.Errorf("ListComments(T-1) after refused edits = %v, %v, want the comment unchanged", list, err)
		}
	})
}
