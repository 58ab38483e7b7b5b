package board_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

func TestAssignTask(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Review the plan")
		assign := func(req *taskwirev1.AssignTaskRequest) *taskwirev1.Task {
			t.Helper()
			resp, err := e.svc.AssignTask(e.claude, req)
			if err != nil {
				t.Fatalf("AssignTask(%v) = %v", req, err)
			}
			return resp.Task
		}

		got := assign(&taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"me", "bob", " bob "}, ExpectedVersion: 1})
		if !slices.Equal(got.Assignees, []string{"claude", "bob"}) || got.Version != 2 {
			t.Errorf("AssignTask(add me, bob) = %v version %d, want [claude bob] version 2", got.Assignees, got.Version)
		}
		// Adding who is there and removing who is not changes nothing.
		got = assign(&taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"bob"}, Remove: []string{"alice"}})
		if got.Version != 2 {
			t.Errorf("AssignTask(no change) version = %d, want 2 unchanged", got.Version)
		}
		got = assign(&taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"alice"}, Remove: []string{"me"}})
		if !slices.Equal(got.Assignees, []string{"bob", "alice"}) || got.Version != 3 {
			t.Errorf("AssignTask(add alice, remove me) = %v version %d, want [bob alice] version 3", got.Assignees, got.Version)
		}

		_, err := e.svc.AssignTask(e.claude, &taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"zed", "gina"}})
		wantErr(t, "AssignTask(zed, gina of globex)", err, domainerr.Invalid, `"zed", "gina" are not members of tenant acme`, "members_list")
		_, err = e.svc.AssignTask(e.claude, &taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"claude"}, ExpectedVersion: 2})
		wantErr(t, "AssignTask(version 2 of 3)", err, domainerr.Conflict, "T-1 changed since version 2 (now 3)", "expected_version 3")
		_, err = e.svc.AssignTask(e.claude, &taskwirev1.AssignTaskRequest{Ref: "T-1"})
		wantErr(t, "AssignTask(nothing)", err, domainerr.Invalid, "nothing to change")

		// A removed member cannot be assigned, but can be unassigned.
		c.Member.Update().Where(member.TenantID(e.acme.ID), member.Handle("bob")).SetRemovedAt(time.Now()).ExecX(e.scoped())
		_, err = e.svc.AssignTask(e.claude, &taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"bob", "claude"}})
		wantErr(t, "AssignTask(removed bob)", err, domainerr.Invalid, `assignee "bob" is not a member of tenant acme (or was removed)`)
		got = assign(&taskwirev1.AssignTaskRequest{Ref: "T-1", Remove: []string{"bob"}})
		if !slices.Equal(got.Assignees, []string{"alice"}) {
			t.Errorf("AssignTask(remove removed bob) = %v, want [alice]", got.Assignees)
		}

		as := e.activities(t)
		if got := actions(as); !equal(got, "task.created", "task.assigned", "task.assigned", "task.assigned") {
			t.Errorf("activity actions = %v, want created and three assignments (none for no-ops or refusals)", got)
		}
		if d := as[2].Detail; !slices.Equal(toStrings(d["added"]), []string{"alice"}) || !slices.Equal(toStrings(d["removed"]), []string{"claude"}) {
			t.Errorf("task.assigned detail = %v, want added [alice] removed [claude]", d)
		}
	})
}

func TestFlagTask(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Migrate the database")

		_, err := e.svc.FlagTask(e.claude, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: true, Reason: "  "})
		wantErr(t, "FlagTask(no reason)", err, domainerr.Invalid, "reason is empty")
		_, err = e.svc.FlagTask(e.claude, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: true, Reason: strings.Repeat("x", 501)})
		wantErr(t, "FlagTask(501 characters)", err, domainerr.Invalid, "more than 500")

		resp, err := e.svc.FlagTask(e.claude, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: true, Reason: " Waiting for the DBA ", ExpectedVersion: 1})
		if err != nil {
			t.Fatalf("FlagTask(flag) = %v", err)
		}
		if got := resp.Task; !got.Flagged || got.FlagReason != "Waiting for the DBA" || got.Version != 2 {
			t.Errorf("FlagTask(flag) = %v %q version %d, want flagged, the trimmed reason, version 2", got.Flagged, got.FlagReason, got.Version)
		}
		resp, err = e.svc.FlagTask(e.claude, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: true, Reason: "Waiting for the DBA"})
		if err != nil || resp.Task.Version != 2 {
			t.Errorf("FlagTask(same flag) = %v, %v, want version 2 unchanged", resp, err)
		}
		_, err = e.svc.FlagTask(e.claude, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: false, ExpectedVersion: 1})
		wantErr(t, "FlagTask(clear, version 1 of 2)", err, domainerr.Conflict, "now 2")

		resp, err = e.svc.FlagTask(e.bob, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: false, Reason: "ignored"})
		if err != nil {
			t.Fatalf("FlagTask(clear) = %v", err)
		}
		if got := resp.Task; got.Flagged || got.FlagReason != "" || got.Version != 3 {
			t.Errorf("FlagTask(clear) = %v %q version %d, want unflagged, no reason, version 3", got.Flagged, got.FlagReason, got.Version)
		}
		as := e.activities(t)
		if got := actions(as); !equal(got, "task.created", "task.flagged", "task.unflagged") {
			t.Errorf("activity actions = %v, want created, flagged, unflagged", got)
		}
		if d := as[1].Detail; d["reason"] != "Waiting for the DBA" {
			t.Errorf("task.flagged detail = %v, want the reason", d)
		}
	})
}
