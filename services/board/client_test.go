package board_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/ent"
	"github.com/taskwire/taskwire/internal/store/storetest"
)

// withLabel is ctx as the worker receives a call whose client gave its
// session the labels (none, one, or a repeated header).
func withLabel(ctx context.Context, labels ...string) context.Context {
	md := metadata.MD{}
	for _, l := range labels {
		md.Append(identity.MDSessionLabel, l)
	}
	return metadata.NewIncomingContext(ctx, md)
}

// asSession is ctx's caller signed in to the console.
func asSession(ctx context.Context) context.Context {
	c, _ := identity.FromContext(ctx)
	c.Kind = identity.KindSession
	return identity.NewContext(ctx, c)
}

// TestActivityNamesClient: every write's activity, and so the task's
// history, names the client the caller acted through, as its session
// label says, dropped when it holds what a page must not show; a console session
// names none, whatever its metadata says.
func TestActivityNamesClient(t *testing.T) {
	storetest.Run(t, func(t *testing.T, c *ent.Client) {
		e := newEnv(t, c)
		long := strings.Repeat("é", 150)
		for _, tc := range []struct {
			name string
			ctx  context.Context
			want string
		}{
			{"an assistant's label", withLabel(e.claude, "Claude Code"), "Claude Code"},
			{"a person's token", withLabel(e.alice, "laptop cli"), "laptop cli"},
			{"no label", e.claude, ""},
			{"a repeated label", withLabel(e.claude, "one", "two"), ""},
			{"control and format characters", withLabel(e.claude, "\tBad\x1b[31m\u202eClient\r\n  two\x00 "), ""},
			{"invalid UTF-8", withLabel(e.claude, "ok\xffay"), ""},
			{"a long label", withLabel(e.claude, long), long[:200]},
			{"markup, kept as text", withLabel(e.claude, "Hostile <b>Client</b>"), "Hostile <b>Client</b>"},
			{"a console session", withLabel(asSession(e.alice), "forged"), ""},
		} {
			task := e.create(t, tc.ctx, tc.name)
			if _, err := e.svc.MoveTask(tc.ctx, &taskwirev1.MoveTaskRequest{Ref: task.Ref, Lane: taskwirev1.Lane_LANE_DOING}); err != nil {
				t.Fatalf("MoveTask(%s) as %s = %v", task.Ref, tc.name, err)
			}
			got, err := e.svc.GetTask(e.bob, &taskwirev1.GetTaskRequest{Ref: task.Ref, IncludeHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.History) != 2 {
				t.Fatalf("GetTask(%s) history = %v, want created and moved", task.Ref, got.History)
			}
			for _, h := range got.History {
				if h.Client != tc.want {
					t.Errorf("%s: history %s client = %q, want %q", tc.name, h.Action, h.Client, tc.want)
				}
			}
		}
	})
}
