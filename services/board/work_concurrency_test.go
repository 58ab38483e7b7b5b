package board_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/ent/workitem"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// claim is one successful work_next of a concurrent run.
type claim struct {
	ref, holder, token string
	claimer            int // index of the claimer
}

// claimAll has every claimer call work_next at once, each looping until
// the queue is empty, and returns what each claim returned. It fails the
// test on any error.
func claimAll(t *testing.T, e *env, handles []string, ctxs []context.Context) []claim {
	t.Helper()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		claims []claim
		errs   []error
	)
	for i, ctx := range ctxs {
		wg.Go(func() {
			for {
				resp, err := e.svc.NextWork(ctx, &taskwirev1.NextWorkRequest{})
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", handles[i], err))
				} else if resp.Task != nil {
					claims = append(claims, claim{ref: resp.Task.Ref, holder: resp.Work.Holder, token: resp.LeaseToken, claimer: i})
				}
				mu.Unlock()
				if err != nil || resp.Task == nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d concurrent work_next calls failed, first: %v", len(errs), errs[0])
	}
	return claims
}

// checkEachOnce fails the test unless claims took each of refs exactly
// once, each by the claimer it was returned to, and the database agrees:
// every item is held by the member whose claim returned it, at fence.
func checkEachOnce(t *testing.T, e *env, claims []claim, refs, handles []string, fence int) {
	t.Helper()
	byRef := map[string][]claim{}
	for _, c := range claims {
		byRef[c.ref] = append(byRef[c.ref], c)
		if c.holder != handles[c.claimer] {
			t.Errorf("%s returned to %s names %s as holder", c.ref, handles[c.claimer], c.holder)
		}
	}
	if len(claims) != len(refs) {
		t.Errorf("%d claims of %d approved tasks, want exactly one each", len(claims), len(refs))
	}
	holders := map[int]string{}
	ms := e.client.Member.Query().Where(member.TenantID(e.acme.ID)).AllX(e.workScope())
	for _, m := range ms {
		holders[m.ID] = m.Handle
	}
	for _, ref := range refs {
		cs := byRef[ref]
		if len(cs) != 1 {
			t.Errorf("%s was claimed %d times, want once", ref, len(cs))
			continue
		}
		w := e.workItem(t, ref)
		if w.State != workitem.StateClaimed || w.Fence != fence || w.Claims != fence || w.HolderID == nil || holders[*w.HolderID] != cs[0].holder {
			t.Errorf("stored work of %s = %s, fence %d, %d claims, holder %v; want claimed at fence %d by %s",
				ref, w.State, w.Fence, w.Claims, w.HolderID, fence, cs[0].holder)
		}
	}
}

// TestConcurrentClaims is the proof that two assistants never hold the
// same task: many assistants claim at once until the queue is empty, each
// approved task is claimed exactly once and no claim is lost; then every
// lease lapses, the tasks are claimed again at once, the fence rises and
// every first-round token is refused.
func TestConcurrentClaims(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		const tasks, claimers = 60, 24
		imported, err := e.svc.ImportTasks(e.alice, &taskwirev1.ImportTasksRequest{Tasks: drafts(tasks)})
		if err != nil {
			t.Fatal(err)
		}
		refs := imported.Refs
		for _, ref := range refs {
			e.workApprove(t, ref, "Do what the note says.")
		}
		handles, ctxs := e.workAssistants(t, claimers)

		first := claimAll(t, e, handles, ctxs)
		checkEachOnce(t, e, first, refs, handles, 1)
		if got := e.workActions(t, "work.claimed"); len(got) != tasks {
			t.Errorf("activity log has %d claims, want %d", len(got), tasks)
		}

		e.workLapse(t)
		second := claimAll(t, e, handles, ctxs)
		checkEachOnce(t, e, second, refs, handles, 2)
		for _, c := range first {
			_, err := e.svc.HeartbeatWork(ctxs[c.claimer], &taskwirev1.HeartbeatWorkRequest{Ref: c.ref, LeaseToken: c.token})
			wantErr(t, "HeartbeatWork(first-round token of "+c.ref+")", err, domainerr.Conflict, "another claim took it over")
		}
		for _, c := range second {
			if _, err := e.svc.HeartbeatWork(ctxs[c.claimer], &taskwirev1.HeartbeatWorkRequest{Ref: c.ref, LeaseToken: c.token}); err != nil {
				t.Errorf("HeartbeatWork(current lease on %s by %s) = %v", c.ref, handles[c.claimer], err)
			}
		}
	})
}
