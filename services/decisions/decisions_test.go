package decisions_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/tenantscope"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/decisions"
)

const (
	pending  = taskwirev1.DecisionState_DECISION_STATE_PENDING
	approved = taskwirev1.DecisionState_DECISION_STATE_APPROVED
	declined = taskwirev1.DecisionState_DECISION_STATE_DECLINED
	expired  = taskwirev1.DecisionState_DECISION_STATE_EXPIRED
	used     = taskwirev1.DecisionState_DECISION_STATE_USED
)

func TestRequestDecision(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		d := e.ask(t, e.claude, "T-2")
		if d.State != pending || d.RequestedBy != "claude" || d.Sponsor != "alice" || d.Tool != "tasks_delete" || d.Question != "Delete task T-2?" {
			t.Errorf("RequestDecision = %v, want pending, asked by claude (sponsor alice) for tasks_delete", d)
		}
		if got := d.ExpireTime.AsTime().Sub(d.CreateTime.AsTime()); got != decisions.TTL {
			t.Errorf("RequestDecision expires after %v, want %v", got, decisions.TTL)
		}
		if got, want := e.pub.took(), []string{"acme decisions " + d.Id}; !slices.Equal(got, want) {
			t.Errorf("published %q, want %q", got, want)
		}
		// The same call again waits on the same decision, and tells no one.
		if again := e.ask(t, e.claude, "T-2"); again.Id != d.Id {
			t.Errorf("RequestDecision again = %s, want the pending %s", again.Id, d.Id)
		}
		if got := e.pub.took(); len(got) != 0 {
			t.Errorf("asking again published %q, want nothing", got)
		}
		// Other arguments, another member, or the first one expired: a new one.
		for name, ctx := range map[string]context.Context{"other args": e.claude, "other member": e.robo} {
			ref := "T-2"
			if name == "other args" {
				ref = "T-3"
			}
			if other := e.ask(t, ctx, ref); other.Id == d.Id {
				t.Errorf("RequestDecision(%s) = %s, want a new decision", name, other.Id)
			}
		}
		e.clock.advance(decisions.TTL)
		if fresh := e.ask(t, e.claude, "T-2"); fresh.Id == d.Id || fresh.State != pending {
			t.Errorf("RequestDecision after expiry = %s (%v), want a new pending one", fresh.Id, fresh.State)
		}
	})
}

// TestRequestDecisionFindsApproval: asking again after a person approved
// in the inbox returns the approval, until it is used.
func TestRequestDecisionFindsApproval(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		d := e.ask(t, e.claude, "T-2")
		e.decide(t, e.alice, d.Id, true, "")
		if again := e.ask(t, e.claude, "T-2"); again.Id != d.Id || again.State != approved {
			t.Errorf("RequestDecision after approval = %s (%v), want the approved %s", again.Id, again.State, d.Id)
		}
		err := store.WithTx(tenantscope.NewContext(context.Background(), e.acme.ID), c, func(tx *ent.Tx) error {
			_, err := decisions.Use(tenantscope.NewContext(context.Background(), e.acme.ID), tx, e.acme.ID, e.claudeID, "tasks_delete", d.Id, e.clock.now())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if fresh := e.ask(t, e.claude, "T-2"); fresh.Id == d.Id || fresh.State != pending {
			t.Errorf("RequestDecision after the approval was used = %s (%v), want a new pending one", fresh.Id, fresh.State)
		}
	})
}

func TestRequestDecisionInvalid(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		for name, mod := range map[string]func(*taskwirev1.RequestDecisionRequest){
			"unknown tool": func(r *taskwirev1.RequestDecisionRequest) { r.Tool = "tasks_nuke" },
			"no question":  func(r *taskwirev1.RequestDecisionRequest) { r.Question = "" },
			"no digest":    func(r *taskwirev1.RequestDecisionRequest) { r.Digest = "" },
			"bad JSON":     func(r *taskwirev1.RequestDecisionRequest) { r.ArgumentsJson = "{" },
			"long question": func(r *taskwirev1.RequestDecisionRequest) {
				r.Question = strings.Repeat("x", 501)
			},
		} {
			req := deleteRequest("T-1")
			mod(req)
			_, err := e.svc.RequestDecision(e.claude, req)
			wantErr(t, "RequestDecision("+name+")", err, domainerr.Invalid)
		}
		// A viewer could not delete anyway: no one is asked.
		_, err := e.svc.RequestDecision(e.vic, deleteRequest("T-1"))
		wantErr(t, "RequestDecision by a viewer", err, domainerr.PermissionDenied, "viewer")
	})
}

func TestGetDecision(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		d := e.ask(t, e.claude, "T-2")
		for name, ctx := range map[string]context.Context{"claude": e.claude, "alice": e.alice, "vic": e.vic} {
			resp, err := e.svc.GetDecision(ctx, &taskwirev1.GetDecisionRequest{Id: d.Id})
			if err != nil || resp.Decision.Id != d.Id {
				t.Errorf("GetDecision as %s = %v, %v, want %s", name, resp, err, d.Id)
			}
		}
		// Another assistant, another tenant: as if it did not exist.
		for name, ctx := range map[string]context.Context{"robo": e.robo, "gina": e.gina} {
			_, err := e.svc.GetDecision(ctx, &taskwirev1.GetDecisionRequest{Id: d.Id})
			wantErr(t, "GetDecision as "+name, err, domainerr.NotFound, "no decision")
		}
	})
}

func TestListDecisions(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		first := e.ask(t, e.claude, "T-1")
		e.clock.advance(time.Minute)
		second := e.ask(t, e.robo, "T-2")
		e.decide(t, e.bob, first.Id, false, "not now")
		_, err := e.svc.ListDecisions(e.claude, &taskwirev1.ListDecisionsRequest{})
		wantErr(t, "ListDecisions as an assistant", err, domainerr.PermissionDenied, "only people")

		ids := func(state taskwirev1.DecisionState) []string {
			resp, err := e.svc.ListDecisions(e.vic, &taskwirev1.ListDecisionsRequest{State: state})
			if err != nil {
				t.Fatalf("ListDecisions(%v) = %v", state, err)
			}
			var out []string
			for _, d := range resp.Decisions {
				out = append(out, d.Id)
			}
			return out
		}
		for state, want := range map[taskwirev1.DecisionState][]string{
			taskwirev1.DecisionState_DECISION_STATE_UNSPECIFIED: {second.Id, first.Id}, // newest first
			pending:  {second.Id},
			declined: {first.Id},
			approved: nil,
		} {
			if got := ids(state); !slices.Equal(got, want) {
				t.Errorf("ListDecisions(%v) = %v, want %v", state, got, want)
			}
		}
		e.clock.advance(decisions.TTL)
		if got := ids(expired); !slices.Equal(got, []string{second.Id}) {
			t.Errorf("ListDecisions(expired) = %v, want %v", got, []string{second.Id})
		}
		if _, err := e.svc.ListDecisions(e.gina, &taskwirev1.ListDecisionsRequest{}); err != nil {
			t.Fatal(err)
		}
		if resp, _ := e.svc.ListDecisions(e.gina, &taskwirev1.ListDecisionsRequest{}); len(resp.Decisions) != 0 {
			t.Errorf("ListDecisions as globex = %d decisions, want none of acme's", len(resp.Decisions))
		}
	})
}

func TestDecide(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		d := e.ask(t, e.claude, "T-2")
		e.pub.took()
		refusals := []struct {
			name string
			ctx  context.Context
			req  *taskwirev1.DecideRequest
			kind domainerr.Kind
			part string
		}{
			{"an assistant", e.robo, &taskwirev1.DecideRequest{Id: d.Id, Approve: true}, domainerr.PermissionDenied, "only a person"},
			{"the requester", e.claude, &taskwirev1.DecideRequest{Id: d.Id, Approve: true}, domainerr.PermissionDenied, "only a person"},
			{"a viewer", e.vic, &taskwirev1.DecideRequest{Id: d.Id, Approve: true}, domainerr.PermissionDenied, "viewer"},
			{"another tenant", e.gina, &taskwirev1.DecideRequest{Id: d.Id, Approve: true}, domainerr.NotFound, "no decision"},
			{"a decline without reason", e.bob, &taskwirev1.DecideRequest{Id: d.Id}, domainerr.Invalid, "say why"},
			{"a long reason", e.bob, &taskwirev1.DecideRequest{Id: d.Id, Reason: strings.Repeat("n", 501)}, domainerr.Invalid, "500"},
		}
		for _, r := range refusals {
			_, err := e.svc.Decide(r.ctx, r.req)
			wantErr(t, "Decide by "+r.name, err, r.kind, r.part)
		}
		if got := e.pub.took(); len(got) != 0 {
			t.Errorf("refusals published %q, want nothing", got)
		}
		got := e.decide(t, e.bob, d.Id, true, "")
		if got.State != approved || got.DecidedBy != "bob" || got.DecideTime == nil {
			t.Errorf("Decide(approve) = %v, want approved by bob", got)
		}
		if got, want := e.pub.took(), []string{"acme decisions " + d.Id}; !slices.Equal(got, want) {
			t.Errorf("published %q, want %q", got, want)
		}
		_, err := e.svc.Decide(e.alice, &taskwirev1.DecideRequest{Id: d.Id, Reason: "no"})
		wantErr(t, "Decide again", err, domainerr.Conflict, "approved already")
	})
}

// TestDecideOwnRequest: a person who asked for a decision (through a
// token of their own) cannot decide it; another person can.
func TestDecideOwnRequest(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		d := e.ask(t, e.bob, "T-4")
		_, err := e.svc.Decide(e.bob, &taskwirev1.DecideRequest{Id: d.Id, Approve: true})
		wantErr(t, "Decide own request", err, domainerr.PermissionDenied, "yourself")
		if got := e.decide(t, e.alice, d.Id, false, "keep it"); got.State != declined || got.Reason != "keep it" {
			t.Errorf("Decide(decline) = %v, want declined with the reason", got)
		}
	})
}

func TestDecideExpired(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		d := e.ask(t, e.claude, "T-2")
		e.clock.advance(decisions.TTL)
		_, err := e.svc.Decide(e.alice, &taskwirev1.DecideRequest{Id: d.Id, Approve: true})
		wantErr(t, "Decide expired", err, domainerr.Conflict, "expired")
	})
}

// TestUse: an approved decision allows its call once, for the member who
// asked and the tool it names, until it expires.
func TestUse(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		use := func(member int, tool, id string) (*ent.Decision, error) {
			ctx := tenantscope.NewContext(context.Background(), e.acme.ID)
			var d *ent.Decision
			err := store.WithTx(ctx, c, func(tx *ent.Tx) error {
				var err error
				d, err = decisions.Use(ctx, tx, e.acme.ID, member, tool, id, e.clock.now())
				return err
			})
			return d, err
		}
		if d, err := use(e.claudeID, "tasks_delete", "not-a-decision"); d != nil || err != nil {
			t.Errorf("Use(unknown id) = %v, %v, want nil, nil", d, err)
		}
		pend := e.ask(t, e.claude, "T-1")
		_, err := use(e.claudeID, "tasks_delete", pend.Id)
		wantErr(t, "Use(pending)", err, domainerr.PermissionDenied, "not decided")

		no := e.ask(t, e.claude, "T-2")
		e.decide(t, e.alice, no.Id, false, "no")
		_, err = use(e.claudeID, "tasks_delete", no.Id)
		wantErr(t, "Use(declined)", err, domainerr.PermissionDenied, "declined")

		yes := e.ask(t, e.claude, "T-3")
		e.decide(t, e.alice, yes.Id, true, "")
		_, err = use(e.claudeID, "tasks_restore", yes.Id)
		wantErr(t, "Use(other tool)", err, domainerr.PermissionDenied, "another call")
		_, err = use(e.claudeID+1, "tasks_delete", yes.Id)
		wantErr(t, "Use(other member)", err, domainerr.PermissionDenied, "another call")
		d, err := use(e.claudeID, "tasks_delete", yes.Id)
		if err != nil || d == nil || d.Key != yes.Id || d.DecidedBy == nil || *d.DecidedBy != e.aliceID {
			t.Fatalf("Use(approved) = %v, %v, want decision %s decided by alice", d, err, yes.Id)
		}
		_, err = use(e.claudeID, "tasks_delete", yes.Id)
		wantErr(t, "Use(used)", err, domainerr.Conflict, "already used")
		got, _ := e.svc.GetDecision(e.claude, &taskwirev1.GetDecisionRequest{Id: yes.Id})
		if got.Decision.State != used {
			t.Errorf("GetDecision(used) = %v, want USED", got.Decision.State)
		}

		late := e.ask(t, e.claude, "T-5")
		e.decide(t, e.alice, late.Id, true, "")
		e.clock.advance(decisions.TTL)
		_, err = use(e.claudeID, "tasks_delete", late.Id)
		wantErr(t, "Use(expired)", err, domainerr.PermissionDenied, "expired")
	})
}
