package worker

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

func TestHealthNeedsNoIdentity(t *testing.T) {
	w := startWorker(t, nil)
	hc := healthpb.NewHealthClient(w.conn)
	for _, svc := range []string{"", "taskwire.v1.BoardService"} {
		resp, err := hc.Check(context.Background(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			t.Fatalf("Check(%q) = %v, want SERVING", svc, err)
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("Check(%q) = %v, want SERVING", svc, resp.GetStatus())
		}
	}
}

func TestIdentityRequired(t *testing.T) {
	w := startWorker(t, nil)
	for name, ctx := range map[string]context.Context{
		"no metadata": context.Background(),
		"no tenant":   identity.AppendToOutgoing(context.Background(), identity.Caller{Member: 7, Scopes: []string{"read"}}),
		"bad member":  metadata.AppendToOutgoingContext(context.Background(), identity.MDTenant, "acme", identity.MDMember, "seven"),
		"zero member": identity.AppendToOutgoing(context.Background(), identity.Caller{Tenant: "acme", Scopes: []string{"read"}}),
	} {
		_, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if got := status.Code(err); got != codes.Unauthenticated {
			t.Errorf("%s: GetTask code = %v, want Unauthenticated", name, got)
		}
	}
}

func TestScopes(t *testing.T) {
	w := startWorker(t, nil)
	create := func(ctx context.Context) error {
		_, err := w.client.CreateTask(ctx, &taskwirev1.CreateTaskRequest{Title: "x"})
		return err
	}
	comment := func(ctx context.Context) error {
		_, err := w.client.AddComment(ctx, &taskwirev1.AddCommentRequest{Ref: "T-1", Body: "x"})
		return err
	}
	read := func(ctx context.Context) error {
		_, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		return err
	}
	tests := []struct {
		name   string
		call   func(context.Context) error
		scopes []string
		want   string // "" for allowed
	}{
		{"read may not create", create, []string{"read"},
			"This token lacks the write scope needed by tasks_create; ask an admin for a token with write."},
		{"comment may not create", create, []string{"read", "comment"},
			"This token lacks the write scope needed by tasks_create; ask an admin for a token with write."},
		{"read may not comment", comment, []string{"read"},
			"This token lacks the comment scope needed by comments_add; ask an admin for a token with comment."},
		{"no scopes may not read", read, nil,
			"This token lacks the read scope needed by tasks_get; ask an admin for a token with read."},
		{"write may create", create, []string{"write"}, ""},
		{"write implies comment", comment, []string{"write"}, ""},
		{"comment implies read", read, []string{"comment"}, ""},
	}
	for _, tc := range tests {
		err := tc.call(asCaller(tc.scopes...))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: got %v, want success", tc.name, err)
			}
			continue
		}
		st := status.Convert(err)
		if st.Code() != codes.PermissionDenied || st.Message() != tc.want {
			t.Errorf("%s: got %v %q, want PermissionDenied %q", tc.name, st.Code(), st.Message(), tc.want)
		}
	}
}

func TestInternalKeyRequired(t *testing.T) {
	w := startWorker(t, func(c *Config) { c.InternalKey = "front-door-secret" })
	caller := asCaller("read")
	for name, ctx := range map[string]context.Context{
		"no key":    caller,
		"wrong key": metadata.AppendToOutgoingContext(caller, identity.MDInternalKey, "guess"),
		"two keys":  metadata.AppendToOutgoingContext(caller, identity.MDInternalKey, "front-door-secret", identity.MDInternalKey, "x"),
	} {
		_, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"})
		if got := status.Code(err); got != codes.Unauthenticated {
			t.Errorf("%s: GetTask code = %v, want Unauthenticated", name, got)
		}
	}
	ctx := metadata.AppendToOutgoingContext(caller, identity.MDInternalKey, "front-door-secret")
	if _, err := w.client.GetTask(ctx, &taskwirev1.GetTaskRequest{Ref: "T-1"}); err != nil {
		t.Errorf("GetTask with the internal key = %v, want success", err)
	}
}
