package board_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/store/storetest"
	"github.com/taskwire/taskwire/services/board"
	"github.com/taskwire/taskwire/services/decisions"
)

// decision has asker ask for a decision on tool with ref and, unless
// approve is nil, has decider decide it; it returns the decision's id.
func (e *env) decision(t *testing.T, asker context.Context, tool, ref string, decider context.Context, approve *bool) string {
	t.Helper()
	return e.decisionOn(t, asker, tool, `{"ref":"`+ref+`"}`, decider, approve)
}

// decisionOn is decision for a call with the arguments args (JSON).
func (e *env) decisionOn(t *testing.T, asker context.Context, tool, args string, decider context.Context, approve *bool) string {
	t.Helper()
	svc, err := decisions.New(decisions.Config{Client: e.client, Logger: storetest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := svc.RequestDecision(asker, &taskwirev1.RequestDecisionRequest{
		Tool: tool, Question: "Allow " + tool + "?", ArgumentsJson: args, Digest: fmt.Sprintf("%x", sha256.Sum256([]byte(tool+args))),
	})
	if err != nil {
		t.Fatalf("RequestDecision(%s %s) = %v", tool, args, err)
	}
	if approve != nil {
		if _, err := svc.Decide(decider, &taskwirev1.DecideRequest{Id: resp.Decision.Id, Approve: *approve, Reason: "because"}); err != nil {
			t.Fatalf("Decide(%s) = %v", resp.Decision.Id, err)
		}
	}
	return resp.Decision.Id
}

var yes, no = new(true), new(false)

// TestAssistantCannotConfirmItself: an assistant's confirmation must be a
// decision a person approved for it and this tool; it allows one change.
func TestAssistantCannotConfirmItself(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Keep")
		e.create(t, e.alice, "Drop")
		del := func(ctx context.Context, ref, confirmation string) error {
			_, err := e.svc.DeleteTask(ctx, &taskwirev1.DeleteTaskRequest{Ref: ref, Confirmation: confirmation})
			return err
		}
		// The nonce of a form the assistant answered itself.
		err := del(e.claude, "T-2", "form-nonce")
		wantErr(t, "DeleteTask by an assistant with a form nonce", err, domainerr.PermissionDenied, "a person", "console")

		pending := e.decision(t, e.claude, "tasks_delete", "T-2", nil, nil)
		wantErr(t, "DeleteTask with a pending decision", del(e.claude, "T-2", pending), domainerr.PermissionDenied, "not decided")
		declined := e.decision(t, e.claude, "tasks_delete", "T-1", e.bob, no)
		wantErr(t, "DeleteTask with a declined decision", del(e.claude, "T-2", declined), domainerr.PermissionDenied, "declined")
		restore := e.decision(t, e.claude, "tasks_restore", "T-2", e.bob, yes)
		wantErr(t, "DeleteTask with a decision for another tool", del(e.claude, "T-2", restore), domainerr.PermissionDenied, "another call")
		approved := e.decision(t, e.claude, "tasks_delete", "T-2", e.bob, yes)
		wantErr(t, "DeleteTask with another member's decision", del(e.bob, "T-2", approved), domainerr.PermissionDenied, "another call")
		if n := e.taskCount(t); n != 2 {
			t.Fatalf("tasks after refused deletes = %d, want 2", n)
		}

		if err := del(e.claude, "T-2", approved); err != nil {
			t.Fatalf("DeleteTask with an approved decision = %v", err)
		}
		if n := e.taskCount(t); n != 1 {
			t.Errorf("tasks after the approved delete = %d, want 1", n)
		}
		wantErr(t, "DeleteTask with a used decision", del(e.claude, "T-1", approved), domainerr.Conflict, "already used")
		if n := e.taskCount(t); n != 1 {
			t.Errorf("a used decision deleted a task: %d listed, want 1", n)
		}
		// The approval for tasks_restore allows the restore, once.
		if _, err := e.svc.RestoreTask(e.claude, &taskwirev1.RestoreTaskRequest{Ref: "T-2", Confirmation: restore}); err != nil {
			t.Fatalf("RestoreTask with an approved decision = %v", err)
		}
	})
}

// TestPersonConfirmations: a person confirms with a form nonce, as before,
// or with a decision another person approved.
func TestPersonConfirmations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "One")
		e.create(t, e.alice, "Two")
		if _, err := e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "nonce-1"}); err != nil {
			t.Fatalf("DeleteTask by a person with a form nonce = %v", err)
		}
		id := e.decision(t, e.bob, "tasks_delete", "T-2", e.alice, yes)
		if _, err := e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-2", Confirmation: id}); err != nil {
			t.Fatalf("DeleteTask by a person with an approved decision = %v", err)
		}
	})
}

// TestExpiredDecision: an approval not used within decisions.TTL of the
// question is refused.
func TestExpiredDecision(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Old")
		past := time.Now().Add(-decisions.TTL - time.Minute)
		svc, err := decisions.New(decisions.Config{Client: c, Logger: storetest.Logger(), Now: func() time.Time { return past }})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := svc.RequestDecision(e.claude, &taskwirev1.RequestDecisionRequest{Tool: "tasks_delete", Question: "Delete T-1?", ArgumentsJson: "{}", Digest: "d"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Decide(e.alice, &taskwirev1.DecideRequest{Id: resp.Decision.Id, Approve: true}); err != nil {
			t.Fatal(err)
		}
		_, err = e.svc.DeleteTask(e.claude, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: resp.Decision.Id})
		wantErr(t, "DeleteTask with an expired approval", err, domainerr.PermissionDenied, "expired")
	})
}

// TestBoardChanged: every committed task write and comment is announced,
// naming the board, the task and who wrote; refused writes are not.
func TestBoardChanged(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		pub := &published{}
		svc, err := board.New(board.Config{Client: c, Events: pub})
		if err != nil {
			t.Fatal(err)
		}
		e.svc = svc
		aliceID := memberID(t, e.alice)
		want := func(call string, evs ...string) {
			t.Helper()
			if got := pub.took(); !slices.Equal(got, evs) {
				t.Errorf("after %s published %q, want %q", call, got, evs)
			}
		}
		ev := func(board, ref string, member int) string {
			return fmt.Sprintf("%v", events.Event{Kind: events.BoardChanged, Board: board, Ref: ref, Member: member})
		}
		e.create(t, e.alice, "First")
		want("CreateTask", "acme "+ev("main", "T-1", aliceID))
		if _, err := svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "Ops", Board: "ops"}); err != nil {
			t.Fatal(err)
		}
		want("CreateTask(ops)", "acme "+ev("ops", "T-2", aliceID))
		if _, err := svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DOING}); err != nil {
			t.Fatal(err)
		}
		want("MoveTask", "acme "+ev("main", "T-1", memberID(t, e.bob)))
		if _, err := svc.AddComment(e.claude, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "On it"}); err != nil {
			t.Fatal(err)
		}
		want("AddComment", "acme "+ev("main", "T-1", memberID(t, e.claude)))
		if _, err := svc.DeleteTask(e.alice, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "n-1"}); err != nil {
			t.Fatal(err)
		}
		want("DeleteTask", "acme "+ev("main", "T-1", aliceID))
		_, err = svc.MoveTask(e.bob, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DONE})
		wantErr(t, "MoveTask(deleted)", err, domainerr.NotFound)
		want("a refused MoveTask")
		if _, err := svc.ListTasks(e.bob, &taskwirev1.ListTasksRequest{}); err != nil {
			t.Fatal(err)
		}
		want("ListTasks")
		imp := &taskwirev1.ImportTasksRequest{}
		for i := range 25 {
			imp.Tasks = append(imp.Tasks, &taskwirev1.TaskDraft{Title: fmt.Sprintf("Imported %d", i)})
		}
		if _, err := svc.ImportTasks(e.alice, imp); err != nil {
			t.Fatal(err)
		}
		want("ImportTasks of 25", "acme "+ev("main", "", aliceID))
	})
}

// TestBoardChangedFailure: a publish that fails leaves the write done.
func TestBoardChangedFailure(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		svc, err := board.New(board.Config{Client: c, Events: &published{fail: true}, Logger: storetest.Logger()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.CreateTask(e.alice, &taskwirev1.CreateTaskRequest{Title: "Stored"}); err != nil {
			t.Fatalf("CreateTask with a failing publisher = %v, want the task created", err)
		}
		if n := e.taskCount(t); n != 1 {
			t.Errorf("tasks = %d, want 1", n)
		}
	})
}

// memberID is the member ctx calls as.
func memberID(t *testing.T, ctx context.Context) int {
	t.Helper()
	c, ok := identity.FromContext(ctx)
	if !ok {
		t.Fatal("no caller in the context")
	}
	return c.Member
}

// published is a Publisher that keeps the events it was told.
type published struct {
	fail bool
	mu   sync.Mutex
	evs  []string
}

func (p *published) Publish(tenant string, ev events.Event) error {
	if p.fail {
		return context.DeadlineExceeded
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.evs = append(p.evs, tenant+" "+fmt.Sprintf("%v", ev))
	return nil
}

func (p *published) took() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.evs
	p.evs = nil
	return out
}
