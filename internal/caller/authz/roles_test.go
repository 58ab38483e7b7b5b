package authz

import (
	"slices"
	"testing"
)

func TestRoleAllows(t *testing.T) {
	tests := []struct {
		role, need string
		want       bool
	}{
		{"viewer", "read", true},
		{"viewer", "comment", false},
		{"viewer", "write", false},
		{"member", "read", true},
		{"member", "comment", true},
		{"member", "write", true},
		{"admin", "write", true},
		{"owner", "write", true},
		{"owner", "comment", true},
		{"viewer", "", true},
		{"god", "", true},
		{"god", "read", false},
		{"", "read", false},
		{"owner", "admin", false}, // unknown needs are refused
	}
	for _, tt := range tests {
		if got := RoleAllows(tt.role, tt.need); got != tt.want {
			t.Errorf("RoleAllows(%q, %q) = %v, want %v", tt.role, tt.need, got, tt.want)
		}
	}
	for _, r := range AllRoles {
		if !ValidRole(r) {
			t.Errorf("ValidRole(%q) = false, want true", r)
		}
	}
	if ValidRole("god") {
		t.Error(`ValidRole("god") = true, want false`)
	}
}

func TestPermits(t *testing.T) {
	all := []string{"read", "comment", "write"}
	tests := []struct {
		role   string
		scopes []string
		need   string
		want   bool
	}{
		{"viewer", all, "read", true},
		{"viewer", all, "comment", false},
		{"viewer", all, "write", false},
		{"viewer", []string{"write"}, "write", false},
		{"member", all, "write", true},
		{"member", []string{"read"}, "write", false},
		{"member", []string{"comment"}, "comment", true},
		{"member", []string{"comment"}, "write", false},
		{"admin", []string{"write"}, "comment", true},
		{"owner", []string{"read"}, "read", true},
		{"owner", nil, "read", false},
		{"owner", nil, "", true},
		{"god", all, "read", false},
	}
	for _, tt := range tests {
		if got := Permits(tt.role, tt.scopes, tt.need); got != tt.want {
			t.Errorf("Permits(%q, %v, %q) = %v, want %v", tt.role, tt.scopes, tt.need, got, tt.want)
		}
	}
}

func TestPermitted(t *testing.T) {
	tests := []struct {
		role   string
		scopes []string
		want   []string
	}{
		{"viewer", []string{"write"}, []string{"read"}},
		{"member", []string{"write"}, []string{"read", "comment", "write"}},
		{"member", []string{"comment"}, []string{"read", "comment"}},
		{"owner", []string{"read"}, []string{"read"}},
		{"viewer", nil, nil},
		{"god", []string{"write"}, nil},
	}
	for _, tt := range tests {
		if got := Permitted(tt.role, tt.scopes); !slices.Equal(got, tt.want) {
			t.Errorf("Permitted(%q, %v) = %v, want %v", tt.role, tt.scopes, got, tt.want)
		}
	}
}

func TestRefusalSentence(t *testing.T) {
	tests := []struct {
		r    Refusal
		want string
	}{
		{Refusal{Role: "viewer", Tenant: "acme", Tool: "tasks_move", Title: "Move a task", Need: "write"},
			"You are a viewer on tenant acme, and viewers can only read: you cannot move a task (tasks_move needs write). Ask an owner or admin of acme for a role that allows write."},
		{Refusal{Role: "viewer", Tenant: "acme", Tool: "comments_add", Title: "Comment on a task", Need: "comment"},
			"You are a viewer on tenant acme, and viewers can only read: you cannot comment on a task (comments_add needs comment). Ask an owner or admin of acme for a role that allows comment."},
		{Refusal{Role: "viewer", Tenant: "acme", Tool: "tasks_import", Need: "write"},
			"You are a viewer on tenant acme, and viewers can only read: you cannot use tasks_import (it needs write). Ask an owner or admin of acme for a role that allows write."},
		{Refusal{Role: "admin", Tenant: "globex", Tool: "members_remove", Title: "Remove a member", Need: "owner"},
			"You are an admin on tenant globex, and admins can read, comment and write: you cannot remove a member (members_remove needs owner). Ask an owner or admin of globex for a role that allows owner."},
		{Refusal{Role: "ghost", Tenant: "acme", Tool: "tasks_get", Need: "read"},
			"You are a ghost on tenant acme, and ghosts can do nothing: you cannot use tasks_get (it needs read). Ask an owner or admin of acme for a role that allows read."},
	}
	for _, tt := range tests {
		if got := tt.r.Sentence(); got != tt.want {
			t.Errorf("%+v.Sentence() =\n%q\nwant\n%q", tt.r, got, tt.want)
		}
	}
}
