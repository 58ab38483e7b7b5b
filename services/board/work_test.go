package board_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// workApprove has alice approve ref with plan and the default limits, or fails
// the test.
func (e *env) workApprove(t *testing.T, ref, plan string) *taskwirev1.Work {
	t.Helper()
	return e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: ref, Plan: plan})
}

func (e *env) workApproveWith(t *testing.T, req *taskwirev1.ApproveWorkRequest) *taskwirev1.Work {
	t.Helper()
	resp, err := e.svc.ApproveWork(e.alice, req)
	if err != nil {
		t.Fatalf("ApproveWork(%s) = %v", req.Ref, err)
	}
	return resp.Work
}

// workNext claims the next work for ctx's caller, or fails the test.
func (e *env) workNext(t *testing.T, ctx context.Context) *taskwirev1.NextWorkResponse {
	t.Helper()
	resp, err := e.svc.NextWork(ctx, &taskwirev1.NextWorkRequest{})
	if err != nil {
		t.Fatalf("NextWork = %v", err)
	}
	return resp
}

// workScope is a context for reading and writing acme's rows directly.
func (e *env) workScope() context.Context {
	return tenantscope.NewContext(context.Background(), e.acme.ID)
}

// workLapse lets the leases on refs (every lease when refs is empty) run out,
// as if their lease_minutes had gone by.
func (e *env) workLapse(t *testing.T, refs ...string) {
	t.Helper()
	u := e.client.WorkItem.Update().Where(workitem.TenantID(e.acme.ID), workitem.StateEQ(workitem.StateClaimed))
	if len(refs) > 0 {
		var numbers []int
		for _, r := range refs {
			numbers = append(numbers, refNumber(r))
		}
		u.Where(workitem.HasTaskWith(task.NumberIn(numbers...)))
	}
	if err := u.SetLeaseExpiresAt(time.Now().UTC().Add(-time.Second)).Exec(e.workScope()); err != nil {
		t.Fatalf("lapsing leases: %v", err)
	}
}

// workItem returns the stored work of ref.
func (e *env) workItem(t *testing.T, ref string) *ent.WorkItem {
	t.Helper()
	w, err := e.client.WorkItem.Query().
		Where(workitem.TenantID(e.acme.ID), workitem.HasTaskWith(task.Number(refNumber(ref)))).Only(e.workScope())
	if err != nil {
		t.Fatalf("work item of %s: %v", ref, err)
	}
	return w
}

// workComments returns the bodies of ref's comments by handle, oldest first.
func (e *env) workComments(t *testing.T, ref, handle string) []string {
	t.Helper()
	cs, err := e.client.Comment.Query().
		Where(comment.TenantID(e.acme.ID), comment.HasTaskWith(task.Number(refNumber(ref))),
			comment.HasAuthorWith(member.Handle(handle))).
		Order(ent.Asc(comment.FieldID)).All(e.workScope())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.Body)
	}
	return out
}

// workAssistants adds n assistants sponsored by alice to acme and returns
// their handles and each one's calls.
func (e *env) workAssistants(t *testing.T, n int) ([]string, []context.Context) {
	t.Helper()
	var handles []string
	var ctxs []context.Context
	for i := range n {
		h := fmt.Sprintf("bot%02d", i)
		m := addMember(t, e.client, "acme", tenancy.MemberSpec{Handle: h, Kind: member.KindAssistant, SponsorHandle: "alice"})
		handles = append(handles, h)
		ctxs = append(ctxs, callerContext("acme", m))
	}
	return handles, ctxs
}

// workActions returns the actions of acme's activity log that start with
// prefix, oldest first.
func (e *env) workActions(t *testing.T, prefix string) []string {
	t.Helper()
	var out []string
	for _, a := range e.activities(t) {
		if strings.HasPrefix(a.Action, prefix) {
			out = append(out, a.Action)
		}
	}
	return out
}

func TestWorkApproveClaimComplete(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Fix the login redirect")
		e.create(t, e.alice, "Write the install guide")
		if _, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "Ship release 1.0", Lane: taskwirev1.Lane_LANE_DONE}); err != nil {
			t.Fatal(err)
		}
		// The done lane is full; completing work still goes there.
		c.Board.Update().SetWipLimits(map[string]int{"done": 1}).ExecX(e.workScope())

		got := e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-2", Plan: "Write INSTALL.md; do not touch the code.", LeaseMinutes: 45, MaxClaims: 2})
		if got.State != "approved" || got.ApprovedBy != "alice" || got.PlanTrust != taskwirev1.Trust_TRUST_INSTRUCTION ||
			got.LeaseMinutes != 45 || got.MaxClaims != 2 || got.Claims != 0 || got.Holder != "" {
			t.Errorf("ApproveWork(T-2) = %v, want approved by alice, trusted plan, 45 minutes, 2 claims, none used", got)
		}
		if got := e.workApprove(t, "T-1", "Fix the redirect after login."); got.LeaseMinutes != 30 || got.MaxClaims != 3 {
			t.Errorf("ApproveWork(T-1) limits = %d minutes, %d claims, want the defaults 30 and 3", got.LeaseMinutes, got.MaxClaims)
		}

		before := time.Now()
		first := e.workNext(t, e.claude)
		after := time.Now()
		if first.Task.GetRef() != "T-2" || first.Task.WorkState != "claimed" || first.Task.Title != "Write the install guide" {
			t.Fatalf("NextWork task = %v, want T-2, the oldest approval, claimed", first.Task)
		}
		w := first.Work
		if w.State != "claimed" || w.Holder != "claude" || w.Claims != 1 || w.Plan != "Write INSTALL.md; do not touch the code." ||
			w.PlanTrust != taskwirev1.Trust_TRUST_INSTRUCTION || w.ApprovedBy != "alice" {
			t.Errorf("NextWork work = %v, want claimed by claude once, with alice's plan as instruction", w)
		}
		exp := w.LeaseExpiresAt.AsTime()
		if exp.Before(before.Add(45*time.Minute-time.Second)) || exp.After(after.Add(45*time.Minute+time.Second)) {
			t.Errorf("lease expires at %v, want 45 minutes after the claim (%v)", exp, before)
		}
		if !strings.HasPrefix(first.LeaseToken, "wl2.2.1.") {
			t.Errorf("lease token = %q, want a wl2. token naming task 2 (T-2) at fence 1", first.LeaseToken)
		}
		if second := e.workNext(t, e.claude); second.Task.GetRef() != "T-1" {
			t.Errorf("second NextWork = %v, want T-1", second.Task)
		}
		if none := e.workNext(t, e.bob); none.Task != nil || none.Work != nil || none.LeaseToken != "" {
			t.Errorf("NextWork with nothing waiting = %v, want an empty answer", none)
		}

		hb, err := e.svc.HeartbeatWork(e.claude, &taskwirev1.HeartbeatWorkRequest{Ref: "T-2", LeaseToken: first.LeaseToken})
		if err != nil {
			t.Fatalf("HeartbeatWork = %v", err)
		}
		if hb.Work.LeaseExpiresAt.AsTime().Before(exp) {
			t.Errorf("heartbeat moved the expiry from %v back to %v", exp, hb.Work.LeaseExpiresAt.AsTime())
		}

		done, err := e.svc.CompleteWork(e.claude, &taskwirev1.CompleteWorkRequest{
			Ref: "T-2", LeaseToken: first.LeaseToken, TestStatus: taskwirev1.TestStatus_TEST_STATUS_PASSED,
			Notes: "Wrote INSTALL.md with the three install paths.",
		})
		if err != nil {
			t.Fatalf("CompleteWork = %v", err)
		}
		if tk := done.Task; tk.Lane != taskwirev1.Lane_LANE_DONE || tk.Version != first.Task.Version+1 || tk.Position != 1 || tk.WorkState != "completed" {
			t.Errorf("completed task = lane %v, version %d, position %d, work %q; want done, version %d, position 1 (below T-3), completed",
				tk.Lane, tk.Version, tk.Position, tk.WorkState, first.Task.Version+1)
		}
		if w := done.Work; w.State != "completed" || w.TestStatus != taskwirev1.TestStatus_TEST_STATUS_PASSED || w.Holder != "" || w.LeaseExpiresAt != nil {
			t.Errorf("completed work = %v, want completed, tests passed, no holder or lease", w)
		}
		if got := e.workComments(t, "T-2", "claude"); !slices.Equal(got, []string{"Wrote INSTALL.md with the three install paths."}) {
			t.Errorf("claude's comments on T-2 = %q, want the completion notes", got)
		}
		want := []string{"work.approved", "work.approved", "work.claimed", "work.claimed", "work.completed"}
		if got := e.workActions(t, "work."); !slices.Equal(got, want) {
			t.Errorf("work activity = %v, want %v", got, want)
		}
		_, err = e.svc.HeartbeatWork(e.claude, &taskwirev1.HeartbeatWorkRequest{Ref: "T-2", LeaseToken: first.LeaseToken})
		wantErr(t, "HeartbeatWork(after completion)", err, domainerr.Conflict, "completed")
	})
}

func TestWorkApproveRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Rotate the signing keys")
		e.create(t, e.alice, "Old chore")
		if _, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "Finished thing", Lane: taskwirev1.Lane_LANE_DONE}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: "T-2", Confirmation: "confirmed-1"}); err != nil {
			t.Fatal(err)
		}
		approve := func(ctx context.Context, req *taskwirev1.ApproveWorkRequest) error {
			_, err := e.svc.ApproveWork(ctx, req)
			return err
		}
		plan := "Rotate the keys with the admin API."
		wantErr(t, "ApproveWork(by an assistant)", approve(e.claude, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan}),
			domainerr.PermissionDenied, "Only people can approve work for assistants", "ask alice to approve your plan for T-1")
		wantErr(t, "ApproveWork(deleted)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-2", Plan: plan}), domainerr.NotFound, "T-2")
		wantErr(t, "ApproveWork(done)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-3", Plan: plan}), domainerr.Conflict, "done lane")
		wantErr(t, "ApproveWork(unknown)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-99", Plan: plan}), domainerr.NotFound, "T-99")
		wantErr(t, "ApproveWork(other tenant)", approve(e.gina, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan}), domainerr.NotFound)
		wantErr(t, "ApproveWork(no plan)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: "  "}), domainerr.Invalid, "plan")
		wantErr(t, "ApproveWork(long plan)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: strings.Repeat("x", 10001)}),
			domainerr.Invalid, "10001")
		wantErr(t, "ApproveWork(lease 241)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan, LeaseMinutes: 241}),
			domainerr.Invalid, "lease_minutes")
		wantErr(t, "ApproveWork(21 claims)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan, MaxClaims: 21}),
			domainerr.Invalid, "max_claims")
		wantErr(t, "ApproveWork(stale version)", approve(e.alice, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan, ExpectedVersion: 7}),
			domainerr.Conflict, "version 7")
		if n := len(e.workActions(t, "work.")); n != 0 {
			t.Errorf("refused approvals wrote %d work activities, want none", n)
		}

		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: plan, ExpectedVersion: 1})
		e.workNext(t, e.claude)
		wantErr(t, "ApproveWork(while held)", approve(e.bob, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: "Another plan"}),
			domainerr.Conflict, "being worked on")
		if got := e.workItem(t, "T-1"); got.Plan != plan || got.State != workitem.StateClaimed {
			t.Errorf("work of T-1 after a refused approval = %q, %s, want the first plan, still claimed", got.Plan, got.State)
		}
	})
}

func TestWorkReleaseAndApproveAgain(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Migrate the billing tables")
		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: "Write the migration.", MaxClaims: 2})
		claim := e.workNext(t, e.claude)
		_, err := e.svc.ReleaseWork(e.claude, &taskwirev1.ReleaseWorkRequest{Ref: "T-1", LeaseToken: claim.LeaseToken, Reason: " "})
		wantErr(t, "ReleaseWork(no reason)", err, domainerr.Invalid, "reason")
		rel, err := e.svc.ReleaseWork(e.claude, &taskwirev1.ReleaseWorkRequest{
			Ref: "T-1", LeaseToken: claim.LeaseToken, Reason: "Needs a person: the schema owner must sign off."})
		if err != nil {
			t.Fatalf("ReleaseWork = %v", err)
		}
		if w := rel.Work; w.State != "approved" || w.Holder != "" || w.LastReleaseReason != "Needs a person: the schema owner must sign off." || w.Claims != 1 {
			t.Errorf("released work = %v, want approved again, no holder, the reason kept, 1 claim used", w)
		}
		if got := e.workComments(t, "T-1", "claude"); !slices.Equal(got, []string{"Needs a person: the schema owner must sign off."}) {
			t.Errorf("claude's comments = %q, want the release reason", got)
		}
		_, err = e.svc.HeartbeatWork(e.claude, &taskwirev1.HeartbeatWorkRequest{Ref: "T-1", LeaseToken: claim.LeaseToken})
		wantErr(t, "HeartbeatWork(after release)", err, domainerr.Conflict, "has ended")

		// A person changes the plan; the next claim gets the new one.
		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: "Write the migration; the owner signed off.", MaxClaims: 2})
		again := e.workNext(t, e.bob)
		if again.Work.Plan != "Write the migration; the owner signed off." || again.Work.Claims != 2 || again.Work.Holder != "bob" {
			t.Errorf("claim after approving again = %v, want the new plan, the second of 2 claims, held by bob", again.Work)
		}
		// Released at its last claim: exhausted, out of the queue.
		rel, err = e.svc.ReleaseWork(e.bob, &taskwirev1.ReleaseWorkRequest{Ref: "T-1", LeaseToken: again.LeaseToken, Reason: "Out of scope for me."})
		if err != nil {
			t.Fatalf("ReleaseWork(last claim) = %v", err)
		}
		if rel.Work.State != "exhausted" {
			t.Errorf("work released at max_claims = %q, want exhausted", rel.Work.State)
		}
		if none := e.workNext(t, e.claude); none.Task != nil {
			t.Errorf("NextWork with only exhausted work = %v, want none", none.Task.Ref)
		}
		// Approving exhausted work starts its claims again.
		if w := e.workApprove(t, "T-1", "Try once more."); w.State != "approved" || w.Claims != 0 {
			t.Errorf("approving exhausted work = %s with %d claims, want approved with 0", w.State, w.Claims)
		}
		if got := e.workNext(t, e.claude); got.Task.GetRef() != "T-1" || got.Work.Claims != 1 {
			t.Errorf("NextWork after approving again = %v, want T-1 at its first claim", got.Work)
		}
		want := []string{"work.approved", "work.claimed", "work.released", "work.approved", "work.claimed", "work.released", "work.approved", "work.claimed"}
		if got := e.workActions(t, "work."); !slices.Equal(got, want) {
			t.Errorf("work activity = %v, want %v", got, want)
		}
	})
}

// TestWorkLeaseLapse shows fencing: a lease that runs out sends the task
// back to the queue, and once another claim took it the old token is
// refused for every operation.
func TestWorkLeaseLapse(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Upgrade the database driver")
		e.workApproveWith(t, &taskwirev1.ApproveWorkRequest{Ref: "T-1", Plan: "Upgrade and run the tests.", MaxClaims: 2})
		old := e.workNext(t, e.claude)
		e.workLapse(t, "T-1")

		_, err := e.svc.HeartbeatWork(e.claude, &taskwirev1.HeartbeatWorkRequest{Ref: "T-1", LeaseToken: old.LeaseToken})
		wantErr(t, "HeartbeatWork(expired)", err, domainerr.Conflict, "Your lease on T-1 expired at ", "went back to the queue")

		taken := e.workNext(t, e.bob)
		if taken.Task.GetRef() != "T-1" || taken.Work.Claims != 2 || taken.Work.Holder != "bob" {
			t.Fatalf("NextWork after the lapse = %v, want T-1 again, held by bob at its second claim", taken.Work)
		}
		stale := "Your lease on T-1 is no longer valid: another claim took it over; stop working on it and call work_next"
		_, err = e.svc.HeartbeatWork(e.claude, &taskwirev1.HeartbeatWorkRequest{Ref: "T-1", LeaseToken: old.LeaseToken})
		wantErr(t, "HeartbeatWork(stale)", err, domainerr.Conflict, stale)
		_, err = e.svc.ReleaseWork(e.claude, &taskwirev1.ReleaseWorkRequest{Ref: "T-1", LeaseToken: old.LeaseToken, Reason: "giving up"})
		wantErr(t, "ReleaseWork(stale)", err, domainerr.Conflict, stale)
		_, err = e.svc.CompleteWork(e.claude, &taskwirev1.CompleteWorkRequest{Ref: "T-1", LeaseToken: old.LeaseToken,
			TestStatus: taskwirev1.TestStatus_TEST_STATUS_PASSED, Notes: "done"})
		wantErr(t, "CompleteWork(stale)", err, domainerr.Conflict, stale)
		if w := e.workItem(t, "T-1"); w.Fence != 2 || w.State != workitem.StateClaimed {
			t.Errorf("work after refused stale calls = fence %d, %s; want fence 2, still claimed by bob", w.Fence, w.State)
		}
		if _, err := e.svc.HeartbeatWork(e.bob, &taskwirev1.HeartbeatWorkRequest{Ref: "T-1", LeaseToken: taken.LeaseToken}); err != nil {
			t.Errorf("HeartbeatWork(current lease) = %v", err)
		}

		// The second lease lapses too: that was the last claim allowed.
		e.workLapse(t, "T-1")
		if none := e.workNext(t, e.claude); none.Task != nil {
			t.Errorf("NextWork after the last claim lapsed = %v, want none", none.Task.Ref)
		}
		if w := e.workItem(t, "T-1"); w.State != workitem.StateExhausted || w.HolderID != nil {
			t.Errorf("work lapsed at max_claims = %s, holder %v; want exhausted, no holder", w.State, w.HolderID)
		}
		_, err = e.svc.HeartbeatWork(e.bob, &taskwirev1.HeartbeatWorkRequest{Ref: "T-1", LeaseToken: taken.LeaseToken})
		wantErr(t, "HeartbeatWork(exhausted)", err, domainerr.Conflict, "limit of 2", "approve it again")
	})
}

func TestWorkLeaseTokenRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Tidy the logging")
		e.create(t, e.alice, "Speed up the search")
		e.create(t, e.alice, "Not approved")
		e.workApprove(t, "T-1", "Use slog everywhere.")
		e.workApprove(t, "T-2", "Add an index.")
		one := e.workNext(t, e.claude)
		two := e.workNext(t, e.claude)
		heartbeat := func(ctx context.Context, ref, token string) error {
			_, err := e.svc.HeartbeatWork(ctx, &taskwirev1.HeartbeatWorkRequest{Ref: ref, LeaseToken: token})
			return err
		}
		for _, bad := range []string{"", "garbage", "wl1.x.y.z", "wl3" + strings.TrimPrefix(one.LeaseToken, "wl2"), one.LeaseToken[:len(one.LeaseToken)-2]} {
			wantErr(t, fmt.Sprintf("HeartbeatWork(%q)", bad), heartbeat(e.claude, "T-1", bad), domainerr.Invalid, "lease_token")
		}
		wantErr(t, "HeartbeatWork(T-2's token on T-1)", heartbeat(e.claude, "T-1", two.LeaseToken), domainerr.Invalid, "not issued for T-1")
		forged := one.LeaseToken[:len(one.LeaseToken)-4] + "AAAA"
		if forged == one.LeaseToken {
			forged = one.LeaseToken[:len(one.LeaseToken)-4] + "BBBB"
		}
		wantErr(t, "HeartbeatWork(forged secret)", heartbeat(e.claude, "T-1", forged), domainerr.PermissionDenied, "does not match")
		wantErr(t, "HeartbeatWork(another member)", heartbeat(e.bob, "T-1", one.LeaseToken), domainerr.PermissionDenied, "another member")
		wantErr(t, "HeartbeatWork(not approved)", heartbeat(e.claude, "T-3", one.LeaseToken), domainerr.NotFound, "not approved work")
		wantErr(t, "HeartbeatWork(other tenant)", heartbeat(e.gina, "T-1", one.LeaseToken), domainerr.NotFound)
		_, err := e.svc.CompleteWork(e.claude, &taskwirev1.CompleteWorkRequest{Ref: "T-1", LeaseToken: one.LeaseToken, Notes: "done"})
		wantErr(t, "CompleteWork(no test status)", err, domainerr.Invalid, "test_status")
		if err := heartbeat(e.claude, "T-1", one.LeaseToken); err != nil {
			t.Errorf("HeartbeatWork(the real token) after the refusals = %v", err)
		}
		// A lease taken before the upgrade has a wl1 token, naming the work
		// item by id: it still works, for its own work item only.
		secret := one.LeaseToken[strings.LastIndex(one.LeaseToken, ".")+1:]
		item := c.WorkItem.Query().Where(workitem.TenantID(e.acme.ID)).Order(ent.Asc(workitem.FieldID)).
			FirstX(tenantscope.NewContext(context.Background(), e.acme.ID)).ID
		if err := heartbeat(e.claude, "T-1", fmt.Sprintf("wl1.%d.1.%s", item, secret)); err != nil {
			t.Errorf("HeartbeatWork(a wl1 token of the lease) = %v, want it accepted", err)
		}
		wantErr(t, "HeartbeatWork(a wl1 token of another item)", heartbeat(e.claude, "T-1", fmt.Sprintf("wl1.%d.1.%s", item+1, secret)),
			domainerr.Invalid, "not issued for T-1")
	})
}

func TestWorkRetriesWithIdempotencyKeys(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "First piece")
		e.create(t, e.alice, "Second piece")
		for _, ref := range []string{"T-1", "T-2"} {
			req := &taskwirev1.ApproveWorkRequest{Ref: ref, Plan: "Do it.", IdempotencyKey: "approve-" + ref}
			e.workApproveWith(t, req)
			e.workApproveWith(t, req)
		}
		nextReq := &taskwirev1.NextWorkRequest{IdempotencyKey: "claim-1"}
		first, err := e.svc.NextWork(e.claude, nextReq)
		if err != nil {
			t.Fatal(err)
		}
		retry, err := e.svc.NextWork(e.claude, nextReq)
		if err != nil {
			t.Fatal(err)
		}
		if retry.Task.GetRef() != first.Task.GetRef() || retry.LeaseToken != first.LeaseToken {
			t.Errorf("retried NextWork = %s %q, want the first claim %s %q", retry.Task.GetRef(), retry.LeaseToken, first.Task.GetRef(), first.LeaseToken)
		}
		if w := e.workItem(t, "T-2"); w.Claims != 0 {
			t.Errorf("T-2 after a retried claim has %d claims, want 0: the retry claimed a second task", w.Claims)
		}
		complete := &taskwirev1.CompleteWorkRequest{Ref: "T-1", LeaseToken: first.LeaseToken,
			TestStatus: taskwirev1.TestStatus_TEST_STATUS_NOT_RUN, Notes: "Done; no tests cover this.", IdempotencyKey: "complete-1"}
		a, err := e.svc.CompleteWork(e.claude, complete)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.svc.CompleteWork(e.claude, complete)
		if err != nil {
			t.Fatalf("retried CompleteWork = %v, want the first result", err)
		}
		if a.Task.Version != b.Task.Version {
			t.Errorf("retried CompleteWork version = %d, want %d", b.Task.Version, a.Task.Version)
		}
		second := e.workNext(t, e.claude)
		release := &taskwirev1.ReleaseWorkRequest{Ref: "T-2", LeaseToken: second.LeaseToken, Reason: "Blocked on T-1's review.", IdempotencyKey: "release-2"}
		for range 2 {
			if _, err := e.svc.ReleaseWork(e.claude, release); err != nil {
				t.Fatalf("ReleaseWork(retried) = %v", err)
			}
		}
		if got := len(e.workComments(t, "T-1", "claude")) + len(e.workComments(t, "T-2", "claude")); got != 2 {
			t.Errorf("comments after retried completion and release = %d, want 2", got)
		}
		want := []string{"work.approved", "work.approved", "work.claimed", "work.completed", "work.claimed", "work.released"}
		if got := e.workActions(t, "work."); !slices.Equal(got, want) {
			t.Errorf("work activity after retries = %v, want %v", got, want)
		}
	})
}

// TestWorkNextSkips shows which approved work is not handed out: work on
// another board than asked, and work whose task was deleted or finished
// by other means.
func TestWorkNextSkips(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Deleted later")
		e.create(t, e.alice, "Moved to done by hand")
		if _, err := e.svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Board: "ops", Title: "Renew the certificates"}); err != nil {
			t.Fatal(err)
		}
		e.create(t, e.alice, "Still open on main")
		for _, ref := range []string{"T-1", "T-2", "T-3", "T-4"} {
			e.workApprove(t, ref, "Do it.")
		}
		if _, err := e.svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "confirmed-1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.MoveTask(e.alice, &taskwirev1.MoveTaskRequest{Ref: "T-2", Lane: taskwirev1.Lane_LANE_DONE}); err != nil {
			t.Fatal(err)
		}
		ops, err := e.svc.NextWork(e.claude, &taskwirev1.NextWorkRequest{Board: "ops"})
		if err != nil || ops.Task.GetRef() != "T-3" || ops.Task.Board != "ops" {
			t.Errorf("NextWork(board ops) = %v, %v, want T-3 on ops", ops.GetTask(), err)
		}
		if none, err := e.svc.NextWork(e.claude, &taskwirev1.NextWorkRequest{Board: "ops"}); err != nil || none.Task != nil {
			t.Errorf("NextWork(board ops) again = %v, %v, want none", none.GetTask(), err)
		}
		_, err = e.svc.NextWork(e.claude, &taskwirev1.NextWorkRequest{Board: "nope"})
		wantErr(t, "NextWork(unknown board)", err, domainerr.NotFound, "nope")
		if got := e.workNext(t, e.claude); got.Task.GetRef() != "T-4" {
			t.Errorf("NextWork = %v, want T-4: T-1 is deleted and T-2 done", got.Task)
		}
		if none := e.workNext(t, e.claude); none.Task != nil {
			t.Errorf("NextWork with only deleted and done work = %v, want none", none.Task.Ref)
		}
	})
}
