package board_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// searchFixture seeds tasks whose words tasks_search should find, or not.
func searchFixture(t *testing.T, e *env) []*ent.Task {
	t.Helper()
	long := strings.Repeat("Plenty of unrelated words about budgets and meetings. ", 20)
	return seeder{t, e.client}.tasks(
		seedTask{title: "Fixing the login timeout", note: "Sessions expire after 30 seconds."},                                   // T-1
		seedTask{title: "Database migration", note: "Move the orders table."},                                                    // T-2
		seedTask{title: "Quarterly report", note: long + "One step is the migration of the archive. " + long, by: "bob"},         // T-3
		seedTask{board: "ops", title: "Login alerts", note: "Page someone when logins fail.", authors: []string{"alice", "bob"}}, // T-4
		seedTask{title: "Old login bug", lane: task.LaneDone},                                                                    // T-5
		seedTask{title: "Deleted login work", deleted: true},                                                                     // T-6
		seedTask{tenant: "globex", title: "Globex login timeout", note: "fixed timeouts"},                                        // globex T-1
	)
}

func TestSearchTasks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		searchFixture(t, e)
		for _, tc := range []struct {
			name   string
			caller context.Context
			req    *taskwirev1.SearchTasksRequest
			want   []string
			ranked bool // want is in rank order, not in ref order
		}{
			{"one word", e.alice, &taskwirev1.SearchTasksRequest{Query: "login"}, []string{"T-1", "T-4"}, false},
			{"stem of the title", e.alice, &taskwirev1.SearchTasksRequest{Query: "fixed"}, []string{"T-1"}, false},
			{"plural finds singular", e.alice, &taskwirev1.SearchTasksRequest{Query: "Timeouts"}, []string{"T-1"}, false},
			{"stem of the note", e.alice, &taskwirev1.SearchTasksRequest{Query: "expiring sessions"}, []string{"T-1"}, false},
			{"every word must match", e.alice, &taskwirev1.SearchTasksRequest{Query: "login database"}, nil, false},
			{"punctuation is no syntax", e.alice, &taskwirev1.SearchTasksRequest{Query: `"login"* -( :`}, []string{"T-1", "T-4"}, false},
			{"title match ranks first", e.alice, &taskwirev1.SearchTasksRequest{Query: "migration"}, []string{"T-2", "T-3"}, true},
			{"done lane too", e.alice, &taskwirev1.SearchTasksRequest{Query: "login", IncludeDone: true}, []string{"T-1", "T-4", "T-5"}, false},
			{"one board", e.alice, &taskwirev1.SearchTasksRequest{Query: "login", Board: "ops"}, []string{"T-4"}, false},
			{"nothing", e.alice, &taskwirev1.SearchTasksRequest{Query: "kubernetes"}, nil, false},
			{"globex finds its own", e.gina, &taskwirev1.SearchTasksRequest{Query: "login timeout"}, []string{"T-1"}, false},
		} {
			resp, err := e.svc.SearchTasks(tc.caller, tc.req)
			if err != nil {
				t.Errorf("SearchTasks(%s) = %v", tc.name, err)
				continue
			}
			var got []string
			for _, h := range resp.Items {
				got = append(got, h.Ref)
			}
			if !tc.ranked {
				slices.Sort(got)
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("SearchTasks(%s) = %v, want %v", tc.name, got, tc.want)
			}
		}

		for _, q := range []string{"", "   ", "!!! ?", "-*"} {
			_, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: q})
			wantErr(t, "SearchTasks("+q+")", err, domainerr.Invalid, "no words", "login timeout")
		}
		_, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: strings.Repeat("word ", 40)})
		wantErr(t, "SearchTasks(40 words)", err, domainerr.Invalid, "40 words")
		_, err = e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: "login", Board: "nope"})
		wantErr(t, "SearchTasks(board nope)", err, domainerr.NotFound, `"main", "ops"`)
	})
}

func TestSearchTasksHits(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		searchFixture(t, e)
		resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: "login"})
		if err != nil || len(resp.Items) != 2 {
			t.Fatalf("SearchTasks(login) = %v, %v, want 2 hits", resp, err)
		}
		own, shared := resp.Items[0], resp.Items[1]
		if own.Ref != "T-1" {
			own, shared = shared, own
		}
		if own.Ref != "T-1" || own.Board != "main" || own.Title != "Fixing the login timeout" || own.Lane != taskwirev1.Lane_LANE_BACKLOG ||
			own.Trust != taskwirev1.Trust_TRUST_OWN {
			t.Errorf("SearchTasks(login) hit T-1 = %v, want alice's own T-1 on main", own)
		}
		if shared.Ref != "T-4" || shared.Board != "ops" || shared.Trust != taskwirev1.Trust_TRUST_UNTRUSTED {
			t.Errorf("SearchTasks(login) hit T-4 = %v, want T-4 on ops, untrusted (bob wrote part of it)", shared)
		}
		if !strings.Contains(strings.ToLower(own.Snippet), "**login**") {
			t.Errorf("SearchTasks(login) T-1 snippet = %q, want login in bold", own.Snippet)
		}

		resp, err = e.svc.SearchTasks(e.bob, &taskwirev1.SearchTasksRequest{Query: "archive migration"})
		if err != nil || len(resp.Items) != 1 {
			t.Fatalf("SearchTasks(archive migration) = %v, %v, want T-3", resp, err)
		}
		hit := resp.Items[0]
		if hit.Trust != taskwirev1.Trust_TRUST_OWN {
			t.Errorf("SearchTasks(archive migration) as bob: trust %v, want own", hit.Trust)
		}
		low := strings.ToLower(hit.Snippet)
		if !strings.Contains(low, "**migration**") || !strings.Contains(low, "**archive**") || len(hit.Snippet) > 400 {
			t.Errorf("SearchTasks(archive migration).snippet = %q, want a short passage with both words in bold", hit.Snippet)
		}
	})
}

func TestSearchTasksFollowsChanges(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		tasks := searchFixture(t, e)
		ctx, _ := seeder{t, c}.ctx("acme")
		c.Task.UpdateOne(tasks[1]).SetTitle("Schema upgrade").SetNote("Rename columns.").ExecX(ctx)
		c.Task.DeleteOne(tasks[4]).ExecX(ctx)
		for q, want := range map[string][]string{
			"migration": {"T-3"}, // T-2 no longer says it
			"rename":    {"T-2"},
			"old bug":   nil,
		} {
			resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: q, IncludeDone: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range resp.Items {
				got = append(got, h.Ref)
			}
			if !cmp.Equal(got, want) {
				t.Errorf("SearchTasks(%s) after changes = %v, want %v", q, got, want)
			}
		}
	})
}

func TestSearchTasksPages(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		s := seeder{t, e.client}
		for range 7 {
			s.task(seedTask{title: "Deploy checklist", note: "deploy"})
		}
		s.task(seedTask{tenant: "globex", title: "Deploy"})
		req := &taskwirev1.SearchTasksRequest{Query: "deploy", Limit: 3}
		var all []string
		var pages int
		for {
			resp, err := e.svc.SearchTasks(e.alice, req)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, h := range resp.Items {
				all = append(all, h.Ref)
			}
			if resp.NextCursor == "" || pages > 5 {
				break
			}
			req = proto.Clone(req).(*taskwirev1.SearchTasksRequest)
			req.Cursor = resp.NextCursor
		}
		want := []string{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "T-7"}
		if pages != 3 || !cmp.Equal(all, want) {
			t.Errorf("SearchTasks(deploy) in pages of 3 = %v in %d pages, want %v in 3", all, pages, want)
		}

		first, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: "deploy", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		next := first.NextCursor
		for _, tc := range []struct {
			name   string
			caller context.Context
			req    *taskwirev1.SearchTasksRequest
		}{
			{"other query", e.alice, &taskwirev1.SearchTasksRequest{Query: "checklist", Cursor: next}},
			{"with done", e.alice, &taskwirev1.SearchTasksRequest{Query: "deploy", IncludeDone: true, Cursor: next}},
			{"other board", e.alice, &taskwirev1.SearchTasksRequest{Query: "deploy", Board: "main", Cursor: next}},
			{"other tenant", e.gina, &taskwirev1.SearchTasksRequest{Query: "deploy", Cursor: next}},
			{"tampered", e.alice, &taskwirev1.SearchTasksRequest{Query: "deploy", Cursor: tamperCursor(next)}},
		} {
			_, err := e.svc.SearchTasks(tc.caller, tc.req)
			wantErr(t, "SearchTasks("+tc.name+")", err, domainerr.Invalid, "next_cursor")
		}
		_, err = e.svc.ListTasks(e.alice, &taskwirev1.ListTasksRequest{Cursor: next})
		wantErr(t, "ListTasks(a search cursor)", err, domainerr.Invalid, "next_cursor")
		// Words, not spelling, make the query: the same words go on.
		resp, err := e.svc.SearchTasks(e.alice, &taskwirev1.SearchTasksRequest{Query: " DEPLOY! ", Limit: 3, Cursor: next})
		if err != nil || len(resp.Items) != 3 || resp.Items[0].Ref != "T-4" {
			t.Errorf("SearchTasks(DEPLOY!, next page) = %v, %v, want T-4 to T-6", resp, err)
		}
	})
}
