package board_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// comment adds a comment to ref or fails the test.
func (e *env) comment(t *testing.T, ctx context.Context, ref, body string) *taskwirev1.Comment {
	t.Helper()
	resp, err := e.svc.AddComment(ctx, &taskwirev1.AddCommentRequest{Ref: ref, Body: body})
	if err != nil {
		t.Fatalf("AddComment(%s, %q) = %v", ref, body, err)
	}
	return resp.Comment
}

func TestListComments(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Discuss")
		e.create(t, e.alice, "Elsewhere")
		var want []string
		for i := range 7 {
			who, ctx := "alice", e.alice
			if i%2 == 1 {
				who, ctx = "claude", e.claude
			}
			e.comment(t, ctx, "T-1", fmt.Sprintf("%s %d", who, i))
			want = append(want, fmt.Sprintf("%s %d", who, i))
			e.comment(t, e.bob, "T-2", "noise")
		}
		var got []*taskwirev1.Comment
		bodies := walkPages(t, 3, func(cursor string) ([]*taskwirev1.Comment, string, error) {
			resp, err := e.svc.ListComments(e.claude, &taskwirev1.ListCommentsRequest{Ref: "t-1", Limit: 3, Cursor: cursor})
			got = append(got, resp.GetItems()...)
			return resp.GetItems(), resp.GetNextCursor(), err
		}, (*taskwirev1.Comment).GetBody)
		if diff := cmp.Diff(want, bodies); diff != "" {
			t.Fatalf("ListComments(T-1, limit 3), all pages (-want +got):\n%s", diff)
		}
		for i, cm := range got {
			wantTrust := taskwirev1.Trust_TRUST_UNTRUSTED // alice's, read by claude
			if cm.Author == "claude" {
				wantTrust = taskwirev1.Trust_TRUST_OWN
			}
			if cm.Trust != wantTrust || cm.Task != "T-1" || cm.Version != 1 || cm.EditedAt != nil || cm.CreatedAt == nil {
				t.Errorf("comment %d = %v, want trust %v on T-1 at version 1, not edited", i, cm, wantTrust)
			}
			if i > 0 && cm.Id <= got[i-1].Id {
				t.Errorf("comment %d has id %d after %d, want oldest first", i, cm.Id, got[i-1].Id)
			}
		}

		first, err := e.svc.ListComments(e.claude, &taskwirev1.ListCommentsRequest{Ref: "T-1", Limit: 3})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("ListComments(T-1, limit 3) = %v, %v, want a next_cursor", first, err)
		}
		for _, tc := range []struct {
			name string
			ctx  context.Context
			req  *taskwirev1.ListCommentsRequest
		}{
			{"another task's", e.claude, &taskwirev1.ListCommentsRequest{Ref: "T-2", Limit: 3, Cursor: first.NextCursor}},
			{"tampered", e.claude, &taskwirev1.ListCommentsRequest{Ref: "T-1", Limit: 3, Cursor: tamperCursor(first.NextCursor)}},
			{"made up", e.claude, &taskwirev1.ListCommentsRequest{Ref: "T-1", Limit: 3, Cursor: strconv.Itoa(int(first.Items[2].Id))}},
		} {
			_, err := e.svc.ListComments(tc.ctx, tc.req)
			wantErr(t, "ListComments("+tc.name+" cursor)", err, domainerr.Invalid, "cursor is not valid")
		}

		e.create(t, e.gina, "Globex's own")
		_, err = e.svc.ListComments(e.gina, &taskwirev1.ListCommentsRequest{Ref: "T-1", Limit: 3, Cursor: first.NextCursor})
		wantErr(t, "ListComments(acme's cursor in globex)", err, domainerr.Invalid, "cursor is not valid")
		none, err := e.svc.ListComments(e.gina, &taskwirev1.ListCommentsRequest{Ref: "T-1"})
		if err != nil || len(none.Items) != 0 {
			t.Errorf("ListComments(gina, her T-1) = %v, %v, want no comments", none, err)
		}
		_, err = e.svc.ListComments(e.gina, &taskwirev1.ListCommentsRequest{Ref: "T-2"})
		wantErr(t, "ListComments(gina, T-2)", err, domainerr.NotFound, "No task T-2 in tenant globex")

		e.shape(t, shape{n: 1, deleted: true})
		_, err = e.svc.ListComments(e.bob, &taskwirev1.ListCommentsRequest{Ref: "T-1"})
		wantErr(t, "ListComments(deleted T-1)", err, domainerr.NotFound, "T-1 was deleted", "tasks_restore")
	})
}

func TestAddCommentIdempotent(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Discuss")
		req := &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "Started on it.", IdempotencyKey: "progress-1"}
		first, err := e.svc.AddComment(e.claude, req)
		if err != nil {
			t.Fatal(err)
		}
		if cm := first.Comment; cm.Trust != taskwirev1.Trust_TRUST_OWN || cm.Version != 1 || cm.Author != "claude" {
			t.Errorf("AddComment() = %v, want claude's own comment at version 1", cm)
		}
		retry, err := e.svc.AddComment(e.claude, req)
		if err != nil || retry.Comment.Id != first.Comment.Id {
			t.Errorf("AddComment(retry) = %v, %v, want comment #%d again", retry, err, first.Comment.Id)
		}
		// Keys are per member: bob's same key is a comment of his own.
		if bobs, err := e.svc.AddComment(e.bob, req); err != nil || bobs.Comment.Id == first.Comment.Id {
			t.Errorf("AddComment(bob, claude's key) = %v, %v, want a new comment", bobs, err)
		}
		_, err = e.svc.AddComment(e.claude, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "Other text", IdempotencyKey: "progress-1"})
		wantErr(t, "AddComment(same key, other body)", err, domainerr.Conflict, "progress-1")

		list, err := e.svc.ListComments(e.alice, &taskwirev1.ListCommentsRequest{Ref: "T-1"})
		if err != nil || len(list.Items) != 2 {
			t.Errorf("ListComments(T-1) = %v, %v, want claude's comment once and bob's", list, err)
		}
		if got := actions(e.activities(t)); !equal(got, "task.created", "comment.added", "comment.added") {
			t.Errorf("activity actions = %v, want one comment.added each for claude and bob", got)
		}
	})
}
