package tests

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/ent/member"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/poll"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/internal/tenancy"
	"github.com/taskwire/taskwire/node"
	"github.com/taskwire/taskwire/node/nodetest"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestAssistantDeleteNeedsPerson: an assistant's tasks_delete is sent to
// the decision's page (a URL-mode elicitation); it runs only once a
// person of the tenant approved it through DecisionService, and a
// declined one tells the assistant why. Its own "yes" changes nothing,
// and the console hears of every decision and task change.
func TestAssistantDeleteNeedsPerson(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			ctx := context.Background()
			first := h.Sys.First()
			tenant, owner := first.Tenant.Slug, first.Owner
			bot := addBot(t, h)
			heard := listen(t, h, tenant)
			people := newDirectWorker(t, h)
			ownerCtx := people.as(t, h, tenant, owner)

			boss, _ := h.Client(t, h.Token, nil)
			nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Obsolete"})
			nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Keep"})

			// What the person does when the assistant's client shows the page.
			var mu sync.Mutex
			var pages []string
			decide := func(string) {} // nothing: the assistant's own answer
			botToken := nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, tenant, bot.ID, authz.AllScopes)
			cs, _ := h.Client(t, botToken, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					pages = append(pages, r.Params.URL)
					d := decide
					mu.Unlock()
					if r.Params.Mode != "url" {
						t.Errorf("elicitation mode = %q, want url", r.Params.Mode)
					}
					d(path.Base(r.Params.URL))
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			})
			setDecide := func(fn func(id string)) {
				mu.Lock()
				defer mu.Unlock()
				decide, pages = fn, nil
			}
			deleteCall := func(ref string) (*mcp.CallToolResult, error) {
				return cs.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_delete", Arguments: map[string]any{"ref": ref}})
			}
			decisions := taskwirev1.NewDecisionServiceClient(people.conn)

			// The assistant answers for itself: asked again and again, never run.
			if res, err := deleteCall("T-1"); err == nil {
				t.Fatalf("tasks_delete answered only by the assistant = %v, want the client to give up", nodetest.Text(res))
			}
			nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})
			mu.Lock()
			wantPrefix := strings.TrimSuffix(h.Sys.Config().PublicURL, "/") + "/t/" + tenant + "/decisions/"
			if len(pages) == 0 || !strings.HasPrefix(pages[0], wantPrefix) {
				t.Errorf("pages shown = %v, want the decision's page under %s", pages, wantPrefix)
			}
			pending := path.Base(pages[0])
			mu.Unlock()

			// A person declines: the assistant reads why, and the task stays.
			setDecide(func(id string) {
				if _, err := decisions.Decide(ownerCtx, &taskwirev1.DecideRequest{Id: id, Reason: "We still need it."}); err != nil {
					t.Errorf("Decide(decline %s) = %v", id, err)
				}
			})
			res, err := deleteCall("T-1")
			want := "Not done: " + owner.Handle + " declined: We still need it. Do not retry unless they ask you to."
			if err != nil || !res.IsError || nodetest.Text(res) != want {
				t.Fatalf("declined tasks_delete = %v, %v; want isError %q", res, err, want)
			}
			nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})

			// A person approves: the retry deletes, once.
			var approved string
			setDecide(func(id string) {
				approved = id
				if _, err := decisions.Decide(ownerCtx, &taskwirev1.DecideRequest{Id: id, Approve: true}); err != nil {
					t.Errorf("Decide(approve %s) = %v", id, err)
				}
			})
			deleted := nodetest.CallOK(t, cs, "tasks_delete", map[string]any{"ref": "T-2"})
			if deleted["task"].(map[string]any)["ref"] != "T-2" {
				t.Errorf("approved tasks_delete = %v, want T-2", deleted)
			}
			res, err = boss.CallTool(ctx, &mcp.CallToolParams{Name: "tasks_get", Arguments: map[string]any{"ref": "T-2"}})
			if err != nil || !res.IsError || !strings.Contains(nodetest.Text(res), "deleted") {
				t.Errorf("tasks_get(T-2) after the approved delete = %v, %v; want it deleted", res, err)
			}
			got, err := decisions.GetDecision(ownerCtx, &taskwirev1.GetDecisionRequest{Id: approved})
			if err != nil || got.Decision.State != taskwirev1.DecisionState_DECISION_STATE_USED || got.Decision.RequestedBy != "bot" {
				t.Errorf("GetDecision(%s) = %v, %v; want used, asked by bot", approved, got, err)
			}

			// The worker takes no confirmation from the assistant itself.
			botCtx := people.as(t, h, tenant, bot)
			_, err = taskwirev1.NewBoardServiceClient(people.conn).DeleteTask(botCtx, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "my-own-yes"})
			if status.Code(err) != codes.PermissionDenied || !strings.Contains(status.Convert(err).Message(), "console") {
				t.Errorf("DeleteTask with the assistant's own confirmation = %v, want PermissionDenied pointing to the console", err)
			}
			_, err = taskwirev1.NewBoardServiceClient(people.conn).DeleteTask(botCtx, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: approved})
			if status.Code(err) != codes.FailedPrecondition {
				t.Errorf("DeleteTask with a used approval = %v, want FailedPrecondition", err)
			}
			// An assistant cannot decide, not even its own.
			if _, err := decisions.Decide(botCtx, &taskwirev1.DecideRequest{Id: pending, Approve: true}); status.Code(err) != codes.PermissionDenied {
				t.Errorf("Decide by the assistant = %v, want PermissionDenied", err)
			}

			poll.Until(t, 10*time.Second, "the console hears of the decisions and the delete", func() bool {
				evs := heard()
				return slices.Contains(evs, events.Event{Kind: events.DecisionsChanged, Ref: pending}) &&
					slices.Contains(evs, events.Event{Kind: events.DecisionsChanged, Ref: approved}) &&
					slices.Contains(evs, events.Event{Kind: events.BoardChanged, Board: first.Board.Slug, Ref: "T-2", Member: bot.ID})
			})
		})
	}
}

// TestAssistantWithoutURLElicitation: an assistant whose client offers
// forms only gets -32021 naming url mode; its form is never asked.
func TestAssistantWithoutURLElicitation(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	first := h.Sys.First()
	bot := addBot(t, h)
	boss, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Obsolete"})
	var asked atomic.Bool
	cs, _ := h.Client(t, nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, first.Tenant.Slug, bot.ID, authz.AllScopes), &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Store(true)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tasks_delete", Arguments: map[string]any{"ref": "T-1"}})
	if err == nil || !strings.Contains(err.Error(), "url mode") {
		t.Errorf("tasks_delete from a form-only assistant = %v, want -32021 naming url mode", err)
	}
	if asked.Load() {
		t.Error("the assistant's client was asked to answer a form")
	}
	nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})
}

// TestAssistantWorkApproveNeedsPerson: an assistant's work_approve
// proposes a plan a person approves or declines in the console; the
// approved retry puts the work in the queue as approved by that person,
// and work_next hands out the plan. The assistant's own answer approves
// nothing; a person's token approves directly, unasked.
func TestAssistantWorkApproveNeedsPerson(t *testing.T) {
	for _, s := range nodetest.Setups() {
		t.Run(s.Name, func(t *testing.T) {
			h := nodetest.Start(t, s)
			ctx := context.Background()
			first := h.Sys.First()
			tenant, owner := first.Tenant.Slug, first.Owner
			bot := addBot(t, h)
			people := newDirectWorker(t, h)
			ownerCtx := people.as(t, h, tenant, owner)
			decisions := taskwirev1.NewDecisionServiceClient(people.conn)
			boss, _ := h.Client(t, h.Token, nil)
			nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Fix the login redirect"})
			nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Rotate the keys"})

			// A person's own token approves directly: no question, no decision.
			direct := nodetest.CallOK(t, boss, "work_approve", map[string]any{"ref": "T-2", "plan": "Rotate them."})
			if by := direct["work"].(map[string]any)["approved_by"]; by != owner.Handle {
				t.Errorf("work_approve by a person: approved_by = %v, want %s", by, owner.Handle)
			}

			var mu sync.Mutex
			decide := func(string) {} // nothing: the assistant's own answer
			botToken := nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, tenant, bot.ID, authz.AllScopes)
			cs, _ := h.Client(t, botToken, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
					Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					d := decide
					mu.Unlock()
					d(path.Base(r.Params.URL))
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				},
			})
			setDecide := func(fn func(id string)) {
				mu.Lock()
				defer mu.Unlock()
				decide = fn
			}
			const plan = "Fix the redirect in auth/login.go. Do not touch sessions. Done when the login test passes."
			args := map[string]any{"ref": "T-1", "plan": plan, "lease_minutes": 45, "max_claims": 2}
			approveCall := func() (*mcp.CallToolResult, error) {
				return cs.CallTool(ctx, &mcp.CallToolParams{Name: "work_approve", Arguments: args})
			}
			workState := func() any {
				return nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1"})["task"].(map[string]any)["work_state"]
			}

			// The assistant answers for itself, even a form: asked again, never approved.
			if res, err := approveCall(); err == nil {
				t.Fatalf("work_approve answered only by the assistant = %v, want the client to give up", nodetest.Text(res))
			}
			if st := workState(); st != nil && st != "" {
				t.Fatalf("work state after the assistant's own answer = %v, want none", st)
			}

			setDecide(func(id string) {
				if _, err := decisions.Decide(ownerCtx, &taskwirev1.DecideRequest{Id: id, Reason: "Sessions need a look first."}); err != nil {
					t.Errorf("Decide(decline %s) = %v", id, err)
				}
			})
			res, err := approveCall()
			want := "Not done: " + owner.Handle + " declined: Sessions need a look first. Do not retry unless they ask you to."
			if err != nil || !res.IsError || nodetest.Text(res) != want {
				t.Fatalf("declined work_approve = %v, %v; want isError %q", res, err, want)
			}

			var asked *taskwirev1.Decision
			setDecide(func(id string) {
				got, err := decisions.GetDecision(ownerCtx, &taskwirev1.GetDecisionRequest{Id: id})
				if err != nil {
					t.Errorf("GetDecision(%s) = %v", id, err)
					return
				}
				asked = got.Decision
				if _, err := decisions.Decide(ownerCtx, &taskwirev1.DecideRequest{Id: id, Approve: true}); err != nil {
					t.Errorf("Decide(approve %s) = %v", id, err)
				}
			})
			work := nodetest.CallOK(t, cs, "work_approve", args)["work"].(map[string]any)
			if work["approved_by"] != owner.Handle || work["plan"] != plan || work["lease_minutes"] != 45.0 || work["max_claims"] != 2.0 {
				t.Errorf("approved work_approve = %v, want approved by %s with the plan, 45 minutes, 2 claims", work, owner.Handle)
			}
			if asked == nil || asked.Tool != "work_approve" || !strings.Contains(asked.ArgumentsJson, "auth/login.go") || asked.Question != "Let assistants work on T-1 with this plan and these limits?" {
				t.Errorf("decision the person saw = %v, want work_approve on T-1 with the plan", asked)
			}
			next := nodetest.CallOK(t, cs, "work_next", nil)
			if next["task"].(map[string]any)["ref"] != "T-2" {
				t.Errorf("work_next = %v, want T-2 first (approved first)", next["task"])
			}
			next = nodetest.CallOK(t, cs, "work_next", nil)
			if next["task"].(map[string]any)["ref"] != "T-1" || next["work"].(map[string]any)["plan"] != plan {
				t.Errorf("work_next = %v, want T-1 with the approved plan", next)
			}
			history := nodetest.CallOK(t, boss, "tasks_get", map[string]any{"ref": "T-1", "include_history": true})
			if h := fmt.Sprint(history["history"]); !strings.Contains(h, "approved_by") || !strings.Contains(h, owner.Handle) {
				t.Errorf("T-1's history = %s, want the approval by %s", h, owner.Handle)
			}
		})
	}
}

// TestAssistantWorkApproveFromInbox: an assistant whose client cannot
// show the page gets -32021 naming url mode; a person approves the
// proposal in the inbox, and the assistant's next call approves the work.
func TestAssistantWorkApproveFromInbox(t *testing.T) {
	h := nodetest.Start(t, nodetest.Setups()[0])
	first := h.Sys.First()
	bot := addBot(t, h)
	people := newDirectWorker(t, h)
	ownerCtx := people.as(t, h, first.Tenant.Slug, first.Owner)
	boss, _ := h.Client(t, h.Token, nil)
	nodetest.CallOK(t, boss, "tasks_create", map[string]any{"title": "Fix the login redirect"})
	cs, _ := h.Client(t, nodetest.RecordToken(t, h.Sys.DB, h.Sys.Issuer, first.Tenant.Slug, bot.ID, authz.AllScopes), nil)
	args := map[string]any{"ref": "T-1", "plan": "Fix the redirect."}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work_approve", Arguments: args})
	if err == nil || !strings.Contains(err.Error(), "url mode") {
		t.Fatalf("work_approve from an assistant without URL elicitation = %v, want -32021 naming url mode", err)
	}
	inbox, err := taskwirev1.NewDecisionServiceClient(people.conn).ListDecisions(ownerCtx, &taskwirev1.ListDecisionsRequest{State: taskwirev1.DecisionState_DECISION_STATE_PENDING})
	if err != nil || len(inbox.Decisions) != 1 || inbox.Decisions[0].Tool != "work_approve" {
		t.Fatalf("pending decisions = %v, %v; want the work_approve", inbox, err)
	}
	if _, err := taskwirev1.NewDecisionServiceClient(people.conn).Decide(ownerCtx, &taskwirev1.DecideRequest{Id: inbox.Decisions[0].Id, Approve: true}); err != nil {
		t.Fatal(err)
	}
	work := nodetest.CallOK(t, cs, "work_approve", args)["work"].(map[string]any)
	if work["approved_by"] != first.Owner.Handle || work["state"] != "approved" {
		t.Errorf("work_approve after the inbox approval = %v, want approved by %s", work, first.Owner.Handle)
	}
}

// addBot adds the assistant bot, sponsored by the first tenant's owner.
func addBot(t *testing.T, h *nodetest.Harness) *ent.Member {
	t.Helper()
	first := h.Sys.First()
	bot, err := tenancy.AddMember(context.Background(), h.Sys.DB, first.Tenant.Slug, tenancy.MemberSpec{
		Handle: "bot", Name: "Bot", Kind: member.KindAssistant, SponsorHandle: first.Owner.Handle})
	if err != nil {
		t.Fatal(err)
	}
	return bot
}

// directWorker is a second worker node over the system's database and
// NATS, whose internal key the test knows: the test calls it as a
// person would through the console, by gRPC.
type directWorker struct {
	conn *grpc.ClientConn
}

func newDirectWorker(t *testing.T, h *nodetest.Harness) *directWorker {
	t.Helper()
	const key = "direct-worker-key"
	w, err := node.NewWorker(node.WorkerConfig{DB: h.Sys.DB, NATS: h.Sys.NATS(), InternalKey: key, Listen: "127.0.0.1:0", Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(func() { w.Stop(context.Background()) })
	conn, err := grpc.NewClient(w.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithPerRPCCredentials(identity.InternalKey(key)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &directWorker{conn: conn}
}

// as is a context whose calls act as m, with a token of its own.
func (*directWorker) as(t *testing.T, h *nodetest.Harness, tenant string, m *ent.Member) context.Context {
	t.Helper()
	store, err := tokens.New(tokens.Config{Client: h.Sys.DB, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	_, info, err := store.Create(context.Background(), h.Sys.Issuer, tokens.CreateRequest{Tenant: tenant, Member: m.ID, Scopes: authz.AllScopes, Label: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	return identity.AppendToOutgoing(context.Background(), identity.Caller{
		Tenant: tenant, Member: m.ID, Scopes: info.Scopes, TokenID: info.ID, Expires: info.ExpiresAt})
}

// listen returns what the tenant's events have told so far.
func listen(t *testing.T, h *nodetest.Harness, tenant string) func() []events.Event {
	t.Helper()
	bus, err := events.New(h.Sys.NATS())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var evs []events.Event
	stop, err := bus.Subscribe(tenant, func(ev events.Event) {
		mu.Lock()
		defer mu.Unlock()
		evs = append(evs, ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return func() []events.Event {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(evs)
	}
}
