package board_test

import (
	"context"
	"slices"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestWorkApproveByDecision: an assistant's work_approve approves work
// only with a person's decision on that very task, plan and limits, once,
// and the work is then approved by that person; a person approves
// directly.
func TestWorkApproveByDecision(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Fix the login redirect")
		e.create(t, e.alice, "Rotate the keys")
		const plan = "Fix the redirect in auth/login.go; do not touch the session code; done when the login test passes."
		args := `{"ref":"T-1","plan":"` + plan + `","lease_minutes":45}`
		approve := func(ctx context.Context, req *taskwirev1.ApproveWorkRequest) (*taskwirev1.Work, error) {
			resp, err := e.svc.ApproveWork(ctx, req)
			return resp.GetWork(), err
		}
		req := func(confirmation string) *taskwirev1.ApproveWorkRequest {
			return &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan, LeaseMinutes: 45, Confirmation: confirmation}
		}
		_, err := approve(e.claude, req(""))
		wantErr(t, "ApproveWork by an assistant without a decision", err, domainerr.PermissionDenied, "Only people", "alice", "T-1")
		_, err = approve(e.claude, req("form-nonce"))
		wantErr(t, "ApproveWork by an assistant with its own form answer", err, domainerr.PermissionDenied, "cannot approve it itself")
		_, err = approve(e.claude, req(e.decisionOn(t, e.claude, "work_approve", args, nil, nil)))
		wantErr(t, "ApproveWork with a pending decision", err, domainerr.PermissionDenied, "not decided")
		_, err = approve(e.claude, req(e.decisionOn(t, e.claude, "work_approve", args+" ", e.bob, no)))
		wantErr(t, "ApproveWork with a declined decision", err, domainerr.PermissionDenied, "declined")
		_, err = approve(e.claude, req(e.decision(t, e.claude, "tasks_delete", "T-1", e.bob, yes)))
		wantErr(t, "ApproveWork with a decision for another tool", err, domainerr.PermissionDenied, "another call")

		approved := e.decisionOn(t, e.claude, "work_approve", args, e.bob, yes)
		other := req(approved)
		other.Plan = "Rewrite the session code."
		_, err = approve(e.claude, other)
		wantErr(t, "ApproveWork with another plan than the approved one", err, domainerr.PermissionDenied, "another task, plan or limits")
		other = req(approved)
		other.MaxClaims = 9
		_, err = approve(e.claude, other)
		wantErr(t, "ApproveWork with other limits than the approved ones", err, domainerr.PermissionDenied, "another task, plan or limits")
		other = req(approved)
		other.Ref = "T-2"
		_, err = approve(e.claude, other)
		wantErr(t, "ApproveWork on another task than the approved one", err, domainerr.PermissionDenied, "another task, plan or limits")
		if n := len(e.workActions(t, "work.")); n != 0 {
			t.Fatalf("refused approvals wrote %d work activities, want none", n)
		}

		w, err := approve(e.claude, req(approved))
		if err != nil {
			t.Fatalf("ApproveWork with the approved decision = %v", err)
		}
		if w.ApprovedBy != "bob" || w.Plan != plan || w.LeaseMinutes != 45 || w.MaxClaims != 3 || w.State != "approved" {
			t.Errorf("work approved by decision = %v, want approved by bob with the plan, 45 minutes, 3 claims", w)
		}
		as := e.activities(t)
		last := as[len(as)-1]
		if last.Action != "work.approved" || last.Detail["approved_by"] != "bob" || last.Detail["decision"] != approved {
			t.Errorf("activity = %s %v, want work.approved with approved_by bob and decision %s", last.Action, last.Detail, approved)
		}
		_, err = approve(e.claude, req(approved))
		wantErr(t, "ApproveWork with a used decision", err, domainerr.Conflict, "already used")
		if got := e.workNext(t, e.claude); got.Task.GetRef() != "T-1" || got.Work.Plan != plan {
			t.Errorf("NextWork = %v, want T-1 with the approved plan", got.Work)
		}

		// A person approves directly; a confirmation changes nothing.
		w, err = approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-2", Plan: "Rotate them."})
		if err != nil || w.ApprovedBy != "alice" {
			t.Errorf("ApproveWork by a person = %v, %v, want approved by alice", w, err)
		}
	})
}

// TestListWorkToApprove: work whose claims ran out or that was released
// with a reason waits for a person, until they approve it again.
func TestListWorkToApprove(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for _, title := range []string{"Released", "Lapsed", "Exhausted", "Waiting"} {
			e.create(t, e.alice, title)
		}
		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: "One.", MaxClaims: 2})
		claim := e.workNext(t, e.claude)
		if _, err := e.svc.ReleaseWork(e.claude, &taskwirev1.ReleaseWorkRequest{Ref: "T-1", LeaseToken: claim.LeaseToken, Reason: "Needs the schema owner."}); err != nil {
			t.Fatal(err)
		}
		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-2", Plan: "Two.", MaxClaims: 1})
		e.workNext(t, e.claude) // T-1 again (oldest approval)
		e.workNext(t, e.claude) // T-2
		e.workLapse(t)
		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-3", Plan: "Three.", MaxClaims: 1})
		claim = e.workNext(t, e.claude)
		if _, err := e.svc.ReleaseWork(e.claude, &taskwirev1.ReleaseWorkRequest{Ref: "T-3", LeaseToken: claim.LeaseToken, Reason: "Out of scope."}); err != nil {
			t.Fatal(err)
		}
		e.workApprove(t, "T-4", "Four.")
		refs := func() []string {
			t.Helper()
			resp, err := e.svc.ListWorkToApprove(e.bob, &taskwirev1.ListWorkToApproveRequest{})
			if err != nil {
				t.Fatalf("ListWorkToApprove = %v", err)
			}
			var out []string
			for _, w := range resp.Items {
				out = append(out, w.Work.Ref+" "+w.Title+" "+w.Work.State+" "+w.Work.LastReleaseReason)
			}
			return out
		}
		// T-1 and T-2 lapsed at their last claim; T-1 keeps its release's reason.
		want := []string{"T-1 Released exhausted Needs the schema owner.", "T-2 Lapsed exhausted ", "T-3 Exhausted exhausted Out of scope."}
		if got := refs(); !slices.Equal(got, want) {
			t.Errorf("ListWorkToApprove = %q, want %q", got, want)
		}
		e.workApprove(t, "T-3", "Three, smaller.")
		e.workApprove(t, "T-1", "One, signed off.")
		if got := refs(); !slices.Equal(got, want[1:2]) {
			t.Errorf("ListWorkToApprove after approving again = %q, want %q", got, want[1:2])
		}
		// Released with claims left: back in the queue, and listed with its reason.
		claim = e.workNext(t, e.claude)
		if claim.Task.GetRef() != "T-4" {
			t.Fatalf("NextWork = %s, want T-4, the oldest approval", claim.Task.GetRef())
		}
		if _, err := e.svc.ReleaseWork(e.claude, &taskwirev1.ReleaseWorkRequest{Ref: "T-4", LeaseToken: claim.LeaseToken, Reason: "Blocked on review."}); err != nil {
			t.Fatal(err)
		}
		if got, want := refs(), []string{want[1], "T-4 Waiting approved Blocked on review."}; !slices.Equal(got, want) {
			t.Errorf("ListWorkToApprove after a release = %q, want %q", got, want)
		}
		_, err := e.svc.ListWorkToApprove(e.claude, &taskwirev1.ListWorkToApproveRequest{})
		wantErr(t, "ListWorkToApprove by an assistant", err, domainerr.PermissionDenied, "only people")
	})
}
