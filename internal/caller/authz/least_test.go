package authz

import "testing"

func TestAtLeast(t *testing.T) {
	tests := []struct {
		role, least string
		want        bool
	}{
		{RoleOwner, RoleAdmin, true},
		{RoleAdmin, RoleAdmin, true},
		{RoleMember, RoleAdmin, false},
		{RoleViewer, RoleAdmin, false},
		{RoleViewer, "", true},
		{RoleOwner, RoleOwner, true},
		{RoleAdmin, RoleOwner, false},
		{"", RoleViewer, false},
		{RoleOwner, "admins", false}, // an unknown least fails closed
	}
	for _, tt := range tests {
		if got := AtLeast(tt.role, tt.least); got != tt.want {
			t.Errorf("AtLeast(%q, %q) = %v, want %v", tt.role, tt.least, got, tt.want)
		}
	}
}

func TestLeastRoleSentence(t *testing.T) {
	r := Refusal{Role: RoleViewer, Tenant: "acme", Tool: "audit_list", Title: "List the audit log", Need: ScopeRead}
	want := "You are a viewer on tenant acme, and only owners and admins may list the audit log (audit_list). Ask an owner or admin of acme if you need it done."
	if got := r.LeastRoleSentence(RoleAdmin); got != want {
		t.Errorf("LeastRoleSentence(admin) =\n%q\nwant\n%q", got, want)
	}
	r.Title, r.Role = "", RoleMember
	want = "You are a member on tenant acme, and only owners may use audit_list. Ask an owner or admin of acme if you need it done."
	if got := r.LeastRoleSentence(RoleOwner); got != want {
		t.Errorf("LeastRoleSentence(owner) =\n%q\nwant\n%q", got, want)
	}
}
