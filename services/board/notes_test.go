package board_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
)

// note adds a context note or fails the test.
func (e *env) note(t *testing.T, ctx context.Context, boardSlug, body string) *taskwirev1.ContextNote {
	t.Helper()
	resp, err := e.svc.AddContextNote(ctx, &taskwirev1.AddContextNoteRequest{Board: boardSlug, Body: body})
	if err != nil {
		t.Fatalf("AddContextNote(%q) = %v", body, err)
	}
	return resp.Note
}

func TestGetContext(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		if _, err := e.svc.UpdateBoard(e.alice, &taskwirev1.UpdateBoardRequest{Rules: proto.String("Size every bug.")}); err != nil {
			t.Fatal(err)
		}
		main := &taskwirev1.Board{Slug: "main", Name: "Main", Lanes: board.Lanes, IsDefault: true, Kinds: everyKind, Version: 2} // the rules bumped it
		empty, err := e.svc.GetContext(e.bob, &taskwirev1.GetContextRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want := &taskwirev1.GetContextResponse{Board: main, Rules: "Size every bug.", RulesTrust: taskwirev1.Trust_TRUST_INSTRUCTION}
		if diff := cmp.Diff(want, empty, protocmp.Transform()); diff != "" {
			t.Errorf("GetContext() before any note (-want +got):\n%s", diff)
		}

		e.note(t, e.alice, "", "Releases are frozen on Fridays.")
		e.note(t, e.claude, "main", "I run the linters before pushing.")
		e.note(t, e.bob, "ops", "The pager rota is in the wiki.")

		got, err := e.svc.GetContext(e.claude, &taskwirev1.GetContextRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want.Items = []*taskwirev1.ContextNote{
			{Board: "main", Author: "claude", Body: "I run the linters before pushing.", Trust: taskwirev1.Trust_TRUST_OWN},
			{Board: "main", Author: "alice", Body: "Releases are frozen on Fridays.", Trust: taskwirev1.Trust_TRUST_UNTRUSTED},
		}
		ignore := protocmp.IgnoreFields(&taskwirev1.ContextNote{}, "id", "created_at")
		if diff := cmp.Diff(want, got, protocmp.Transform(), ignore); diff != "" {
			t.Errorf("GetContext(claude) (-want +got):\n%s", diff)
		}
		if got.Items[0].Id <= got.Items[1].Id || got.Items[0].CreatedAt == nil {
			t.Errorf("GetContext() notes %v, want newest (highest id) first, with created_at", got.Items)
		}
		// The same notes read by alice: now hers is own and claude's is not.
		byAlice, err := e.svc.GetContext(e.alice, &taskwirev1.GetContextRequest{Board: "main"})
		if err != nil || byAlice.Items[0].Trust != taskwirev1.Trust_TRUST_UNTRUSTED || byAlice.Items[1].Trust != taskwirev1.Trust_TRUST_OWN {
			t.Errorf("GetContext(alice) = %v, %v, want claude's note untrusted and alice's own", byAlice.GetItems(), err)
		}

		ops, err := e.svc.GetContext(e.claude, &taskwirev1.GetContextRequest{Board: "ops"})
		if err != nil || ops.Rules != "" || ops.RulesTrust != taskwirev1.Trust_TRUST_INSTRUCTION || len(ops.Items) != 1 || ops.Items[0].Author != "bob" {
			t.Errorf("GetContext(ops) = %v, %v, want no rules and bob's note alone", ops, err)
		}
		globex, err := e.svc.GetContext(e.gina, &taskwirev1.GetContextRequest{})
		if err != nil || globex.Rules != "" || len(globex.Items) != 0 {
			t.Errorf("GetContext(gina) = %v, %v, want globex's main with nothing on it", globex, err)
		}
	})
}

func TestGetContextPages(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		var want []string
		for i := range 8 {
			body := fmt.Sprintf("Note %d", i)
			e.note(t, e.bob, "", body)
			want = append([]string{body}, want...)
		}
		e.note(t, e.bob, "ops", "Elsewhere")
		got := walkPages(t, 3, func(cursor string) ([]*taskwirev1.ContextNote, string, error) {
			resp, err := e.svc.GetContext(e.alice, &taskwirev1.GetContextRequest{Limit: 3, Cursor: cursor})
			return resp.GetItems(), resp.GetNextCursor(), err
		}, (*taskwirev1.ContextNote).GetBody)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GetContext(limit 3), all pages (-want +got):\n%s", diff)
		}

		first, err := e.svc.GetContext(e.alice, &taskwirev1.GetContextRequest{Limit: 3})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("GetContext(limit 3) = %v, %v, want a next_cursor", first, err)
		}
		for _, tc := range []struct {
			name string
			ctx  context.Context
			req  *taskwirev1.GetContextRequest
		}{
			{"another board's", e.alice, &taskwirev1.GetContextRequest{Board: "ops", Limit: 3, Cursor: first.NextCursor}},
			{"another tenant's", e.gina, &taskwirev1.GetContextRequest{Limit: 3, Cursor: first.NextCursor}},
			{"tampered", e.alice, &taskwirev1.GetContextRequest{Limit: 3, Cursor: tamperCursor(first.NextCursor)}},
		} {
			_, err := e.svc.GetContext(tc.ctx, tc.req)
			wantErr(t, "GetContext("+tc.name+" cursor)", err, domainerr.Invalid, "cursor is not valid")
		}
	})
}

func TestAddContextNote(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, tc := range []struct {
			name string
			req  *taskwirev1.AddContextNoteRequest
			kind domainerr.Kind
			part string
		}{
			{"empty", &taskwirev1.AddContextNoteRequest{Body: " \n"}, domainerr.Invalid, "body is empty"},
			{"long", &taskwirev1.AddContextNoteRequest{Body: strings.Repeat("é", board.MaxContextNote+1)}, domainerr.Invalid, "5001 characters"},
			{"unknown board", &taskwirev1.AddContextNoteRequest{Board: "nope", Body: "hi"}, domainerr.NotFound, `No board "nope"`},
		} {
			_, err := e.svc.AddContextNote(e.bob, tc.req)
			wantErr(t, "AddContextNote("+tc.name+")", err, tc.kind, tc.part)
		}
		if _, err := e.svc.AddContextNote(e.bob, &taskwirev1.AddContextNoteRequest{Body: strings.Repeat("é", board.MaxContextNote)}); err != nil {
			t.Errorf("AddContextNote(%d characters) = %v, want it added", board.MaxContextNote, err)
		}

		req := &taskwirev1.AddContextNoteRequest{Board: "ops", Body: "We page on-call for sev1 only.", IdempotencyKey: "note-1"}
		first, err := e.svc.AddContextNote(e.claude, req)
		if err != nil {
			t.Fatal(err)
		}
		retry, err := e.svc.AddContextNote(e.claude, req)
		if diff := cmp.Diff(first, retry, protocmp.Transform()); err != nil || diff != "" {
			t.Errorf("AddContextNote(retry) = %v; (-first +retry):\n%s", err, diff)
		}
		if first.Note.Trust != taskwirev1.Trust_TRUST_OWN || first.Note.Author != "claude" || first.Note.Board != "ops" {
			t.Errorf("AddContextNote() = %v, want claude's own note on ops", first.Note)
		}
		ops, _ := e.svc.GetContext(e.alice, &taskwirev1.GetContextRequest{Board: "ops"})
		if len(ops.GetItems()) != 1 {
			t.Errorf("notes on ops after a retried add = %d, want 1", len(ops.GetItems()))
		}
		as := e.activities(t)
		if got := actions(as); !equal(got, "context.added", "context.added") {
			t.Fatalf("activity actions = %v, want two notes added", got)
		}
		if a := as[1]; a.TaskID != nil || a.ActorKind != "assistant" || a.Detail["board"] != "ops" {
			t.Errorf("claude's context.added = task %v kind %s detail %v, want no task, assistant, board ops", a.TaskID, a.ActorKind, a.Detail)
		}
	})
}
