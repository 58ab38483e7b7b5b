package board_test

import (
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// TestIdempotentWrites retries every write tool with the same key: the
// retry answers what the first call answered and writes nothing.
func TestIdempotentWrites(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.create(t, e.alice, "Existing task")
		for _, tc := range []struct {
			name string
			call func(key string, retry bool) (proto.Message, error)
		}{
			{"create", func(key string, _ bool) (proto.Message, error) {
				return e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Write the changelog", IdempotencyKey: key})
			}},
			{"update", func(key string, _ bool) (proto.Message, error) {
				return e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: "T-1", AddLabels: []string{"docs"}, ExpectedVersion: 1, IdempotencyKey: key})
			}},
			{"move", func(key string, _ bool) (proto.Message, error) {
				return e.svc.MoveTask(e.claude, &taskwirev1.MoveTaskRequest{Ref: "T-1", Lane: taskwirev1.Lane_LANE_DOING, IdempotencyKey: key})
			}},
			{"assign", func(key string, _ bool) (proto.Message, error) {
				return e.svc.AssignTask(e.claude, &taskwirev1.AssignTaskRequest{Ref: "T-1", Add: []string{"me"}, IdempotencyKey: key})
			}},
			{"flag", func(key string, _ bool) (proto.Message, error) {
				return e.svc.FlagTask(e.claude, &taskwirev1.FlagTaskRequest{Ref: "T-1", Flagged: true, Reason: "blocked", IdempotencyKey: key})
			}},
			{"delete", func(key string, retry bool) (proto.Message, error) {
				conf := map[bool]string{false: "c-del-1", true: "c-del-2"}[retry] // a retry is confirmed anew
				// A person's form nonces: an assistant confirms with decisions only.
				return e.svc.DeleteTask(e.bob, &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: conf, IdempotencyKey: key})
			}},
			{"restore", func(key string, retry bool) (proto.Message, error) {
				conf := map[bool]string{false: "c-res-1", true: "c-res-2"}[retry]
				return e.svc.RestoreTask(e.bob, &taskwirev1.RestoreTaskRequest{Ref: "T-1", Confirmation: conf, IdempotencyKey: key})
			}},
			{"import", func(key string, _ bool) (proto.Message, error) {
				return e.svc.ImportTasks(e.claude, &taskwirev1.ImportTasksRequest{Tasks: drafts(3), IdempotencyKey: key})
			}},
		} {
			key := "key-" + tc.name
			first, err := tc.call(key, false)
			if err != nil {
				t.Fatalf("%s with key = %v", tc.name, err)
			}
			writes := len(e.activities(t))
			again, err := tc.call(key, true)
			if err != nil {
				t.Fatalf("%s retried with the same key = %v", tc.name, err)
			}
			if !proto.Equal(first, again) {
				t.Errorf("%s retried = %v, want the first answer %v", tc.name, again, first)
			}
			if n := len(e.activities(t)); n != writes {
				t.Errorf("%s retried wrote %d more activities, want none", tc.name, n-writes)
			}
		}
		if got := e.row(t, "T-1"); got.Version != 7 || got.DeletedAt != nil {
			t.Errorf("T-1 = version %d, deleted %v; want version 7 (six changes, each once) and restored", got.Version, got.DeletedAt)
		}
		if n := e.taskCount(t); n != 5 {
			t.Errorf("tasks = %d, want 5 (one created and three imported, once each)", n)
		}
	})
}

// TestIdempotentConcurrentCreates retries one create from 8 goroutines at
// once: exactly one task is created and every caller gets its ref.
func TestIdempotentConcurrentCreates(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		const callers = 8
		refs := make([]string, callers)
		errs := make([]error, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				resp, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Only once", IdempotencyKey: "one"})
				if errs[i] = err; err == nil {
					refs[i] = resp.Task.Ref
				}
			})
		}
		wg.Wait()
		for i := range callers {
			if errs[i] != nil || refs[i] != "T-1" {
				t.Errorf("concurrent CreateTask #%d = %s, %v; want T-1", i, refs[i], errs[i])
			}
		}
		if n := e.taskCount(t); n != 1 {
			t.Errorf("tasks after %d concurrent creates with one key = %d, want 1", callers, n)
		}
	})
}

func TestIdempotencyKeyMisuse(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		if _, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "First", IdempotencyKey: "k"}); err != nil {
			t.Fatal(err)
		}
		_, err := e.svc.CreateTask(e.claude, &taskwirev1.CreateTaskRequest{Title: "Second", IdempotencyKey: "k"})
		wantErr(t, "CreateTask(other title, same key)", err, domainerr.Conflict, `idempotency_key "k" was used before`)
		_, err = e.svc.UpdateTask(e.claude, &taskwirev1.UpdateTaskRequest{Ref: "T-1", Title: proto.String("First"), IdempotencyKey: "k"})
		wantErr(t, "UpdateTask(same key as a create)", err, domainerr.Conflict, "another tool or other arguments")
		// Keys belong to a member: bob's "k" is his own.
		if _, err := e.svc.CreateTask(e.bob, &taskwirev1.CreateTaskRequest{Title: "Second", IdempotencyKey: "k"}); err != nil {
			t.Errorf("CreateTask(bob's k) = %v, want it created", err)
		}
		if n := e.taskCount(t); n != 2 {
			t.Errorf("tasks = %d, want 2", n)
		}
	})
}

// TestFailedWriteIsRetried shows a refused write records no key: the same
// call with the same key, once the cause is gone, writes.
func TestFailedWriteIsRetried(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		e.setWIP(t, "main", map[string]int{"doing": 1})
		e.createIn(t, e.alice, taskwirev1.Lane_LANE_DOING, "Busy")
		req := &taskwirev1.CreateTaskRequest{Title: "Next up", Lane: taskwirev1.Lane_LANE_DOING, IdempotencyKey: "k"}
		_, err := e.svc.CreateTask(e.claude, req)
		wantErr(t, "CreateTask(into full doing)", err, domainerr.Conflict, "WIP limit")
		e.setWIP(t, "main", map[string]int{"doing": 2})
		resp, err := e.svc.CreateTask(e.claude, req)
		if err != nil || resp.Task.Ref != "T-2" {
			t.Errorf("CreateTask(same key, room now) = %v, %v, want T-2 created", resp, err)
		}

		// A stale delete deletes nothing and leaves its confirmation unused.
		del := &taskwirev1.DeleteTaskRequest{Ref: "T-1", Confirmation: "c-1", ExpectedVersion: 5, IdempotencyKey: "d"}
		_, err = e.svc.DeleteTask(e.alice, del)
		wantErr(t, "DeleteTask(version 5 of 1)", err, domainerr.Conflict, "T-1 changed since version 5 (now 1)", "expected_version 1")
		if e.row(t, "T-1").DeletedAt != nil {
			t.Fatal("a stale delete deleted T-1")
		}
		del.ExpectedVersion = 1
		if _, err := e.svc.DeleteTask(e.alice, del); err != nil {
			t.Errorf("DeleteTask(version 1, the key and confirmation of the refused delete) = %v, want deleted", err)
		}
	})
}
