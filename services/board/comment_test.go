package board_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestAddComment(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Discuss")

		var added []*taskwirev1.Comment
		for _, tc := range []struct {
			who  string
			ctx  context.Context
			body string
		}{{"alice", e.alice, "What is the plan?"}, {"claude", e.claude, "I will draft it.\n\n- step 1"}} {
			resp, err := e.svc.AddComment(tc.ctx, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: tc.body})
			if err != nil {
				t.Fatalf("AddComment(%s) = %v", tc.who, err)
			}
			added = append(added, resp.Comment)
		}
		want := []*taskwirev1.Comment{
			{Task: "T-1", Author: "alice", AuthorKind: taskwirev1.MemberKind_MEMBER_KIND_HUMAN, Body: "What is the plan?", Version: 1, Trust: taskwirev1.Trust_TRUST_OWN},
			{Task: "T-1", Author: "claude", AuthorKind: taskwirev1.MemberKind_MEMBER_KIND_ASSISTANT, Body: "I will draft it.\n\n- step 1", Version: 1, Trust: taskwirev1.Trust_TRUST_OWN},
		}
		ignore := protocmp.IgnoreFields(&taskwirev1.Comment{}, "id", "created_at")
		if diff := cmp.Diff(want, added, protocmp.Transform(), ignore); diff != "" {
			t.Errorf("AddComment() (-want +got):\n%s", diff)
		}

		got, err := e.svc.GetTask(e.bob, &taskwirev1.GetTaskRequest{Ref: "T-1", IncludeComments: true})
		if err != nil {
			t.Fatal(err)
		}
		// To bob, who wrote neither, both comments are untrusted.
		for _, c := range added {
			c.Trust = taskwirev1.Trust_TRUST_UNTRUSTED
		}
		if diff := cmp.Diff(added, got.Comments, protocmp.Transform()); diff != "" {
			t.Errorf("GetTask(include_comments) comments (-added +got):\n%s", diff)
		}
		if got.Task.Version != 1 {
			t.Errorf("task version after comments = %d, want 1: comments do not change the task", got.Task.Version)
		}
		without, _ := e.svc.GetTask(e.bob, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if len(without.Comments) != 0 {
			t.Errorf("GetTask(without include_comments) = %d comments, want 0", len(without.Comments))
		}

		for _, tc := range []struct {
			name string
			req  *taskwirev1.AddCommentRequest
			kind domainerr.Kind
			part string
		}{
			{"empty", &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "  \n"}, domainerr.Invalid, "body is empty"},
			{"long", &taskwirev1.AddCommentRequest{Ref: "T-1", Body: strings.Repeat("x", 20001)}, domainerr.Invalid, "20000"},
			{"unknown task", &taskwirev1.AddCommentRequest{Ref: "T-5", Body: "hi"}, domainerr.NotFound, "No task T-5"},
			{"bad ref", &taskwirev1.AddCommentRequest{Ref: "five", Body: "hi"}, domainerr.Invalid, `"T-12"`},
		} {
			_, err := e.svc.AddComment(e.alice, tc.req)
			wantErr(t, "AddComment("+tc.name+")", err, tc.kind, tc.part)
		}

		as := e.activities(t)
		if got := actions(as); !equal(got, "task.created", "comment.added", "comment.added") {
			t.Fatalf("activity actions = %v, want created and two comments", got)
		}
		if as[2].ActorKind != "assistant" || as[2].TaskID == nil || as[0].TaskID == nil || *as[2].TaskID != *as[0].TaskID {
			t.Errorf("claude's comment activity = kind %s task %v, want assistant on the task of %v", as[2].ActorKind, as[2].TaskID, as[0].TaskID)
		}
	})
}
