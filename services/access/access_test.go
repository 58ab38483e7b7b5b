package access

import (
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

func TestSummary(t *testing.T) {
	human := identity.Access{Tenant: "acme", Handle: "bob", DisplayName: "Bob", Kind: "human", Role: "member"}
	bot := identity.Access{Tenant: "acme", Handle: "claude", DisplayName: "Claude", Kind: "assistant", Role: "admin", Sponsor: "alice"}
	viewer := identity.Access{Tenant: "acme", Handle: "vic", DisplayName: "Vic", Kind: "human", Role: "viewer"}
	tests := []struct {
		a      identity.Access
		scopes []string
		want   string
	}{
		{human, []string{"write"},
			"You are bob (Bob), a member on tenant acme. Your role allows read, comment and write; your token allows read, comment and write; so you may read, comment and write."},
		{bot, []string{"comment"},
			"You are claude (Claude), an admin on tenant acme. You are an assistant sponsored by alice. Your role allows read, comment and write; your token allows read and comment; so you may read and comment."},
		{viewer, nil,
			"You are vic (Vic), a viewer on tenant acme. Your role allows read; your token allows nothing; so you may do nothing."},
	}
	for _, tt := range tests {
		if got := Summary(tt.a, tt.scopes); got != tt.want {
			t.Errorf("Summary(%s, %v) =\n%q\nwant\n%q", tt.a.Handle, tt.scopes, got, tt.want)
		}
	}
}

func TestReason(t *testing.T) {
	role := RoleForbids(authz.Refusal{Role: "viewer", Tenant: "acme", Tool: "tasks_move", Need: "write"})
	tests := []struct {
		err    error
		reason string
		scope  string
	}{
		{role, ReasonRoleForbids, "write"},
		{fmt.Errorf("wrapped: %w", role), ReasonRoleForbids, "write"},
		{InsufficientScope("tasks_move", "write", "no"), ReasonInsufficientScope, "write"},
		{status.Error(codes.PermissionDenied, "plain"), "", ""},
		{status.Error(codes.NotFound, "nope"), "", ""},
		{errors.New("not a status"), "", ""},
		{nil, "", ""},
	}
	for _, tt := range tests {
		reason, md := Reason(tt.err)
		if reason != tt.reason || md["scope"] != tt.scope {
			t.Errorf("Reason(%v) = %q %v, want %q with scope %q", tt.err, reason, md, tt.reason, tt.scope)
		}
	}
	if st := status.Convert(role); st.Code() != codes.PermissionDenied {
		t.Errorf("RoleForbids code = %v, want PermissionDenied", st.Code())
	}
}

func TestRoleName(t *testing.T) {
	for name, v := range Roles {
		if got := RoleName(v); got != name {
			t.Errorf("RoleName(%v) = %q, want %q", v, got, name)
		}
	}
	if got := RoleName(taskwirev1.MemberRole_MEMBER_ROLE_UNSPECIFIED); got != "" {
		t.Errorf("RoleName(unspecified) = %q, want empty", got)
	}
}
