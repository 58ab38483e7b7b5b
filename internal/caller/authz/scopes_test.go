package authz

import (
	"strings"
	"testing"
)

func TestAllows(t *testing.T) {
	tests := []struct {
		scopes []string
		need   string
		want   bool
	}{
		{[]string{"read"}, "read", true},
		{[]string{"read"}, "comment", false},
		{[]string{"read"}, "write", false},
		{[]string{"comment"}, "read", true},
		{[]string{"comment"}, "comment", true},
		{[]string{"comment"}, "write", false},
		{[]string{"write"}, "read", true},
		{[]string{"write"}, "comment", true},
		{[]string{"read", "comment"}, "comment", true},
		{nil, "read", false},
		{nil, "", true},
		{[]string{"admin"}, "read", false},
		{[]string{"read"}, "admin", false},
	}
	for _, tt := range tests {
		if got := Allows(tt.scopes, tt.need); got != tt.want {
			t.Errorf("Allows(%v, %q) = %v, want %v", tt.scopes, tt.need, got, tt.want)
		}
	}
	for _, s := range AllScopes {
		if !Valid(s) {
			t.Errorf("Valid(%q) = false, want true", s)
		}
	}
	if Valid("admin") {
		t.Error(`Valid("admin") = true, want false`)
	}
}

func TestNeeded(t *testing.T) {
	for need, want := range map[string]string{"read": "read", "comment": "read comment", "write": "read comment write", "": "", "admin": ""} {
		if got := strings.Join(Needed(need), " "); got != want {
			t.Errorf("Needed(%q) = %q, want %q", need, got, want)
		}
	}
}
