package tokens_test

import (
	"testing"

	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/tokens"
)

// TestMismatchComparesSets: scopes and toolsets match their record in any
// order, and differ by any one taken, added or repeated.
func TestMismatchComparesSets(t *testing.T) {
	rec := tokens.Record{ID: "j", Tenant: "acme", Member: 7, Kind: identity.KindMCP,
		Scopes: []string{"read", "comment"}, Toolsets: []string{"tasks", "comments"}}
	caller := func(scopes, toolsets []string) identity.Caller {
		return identity.Caller{Tenant: "acme", Member: 7, TokenID: "j", Scopes: scopes, Toolsets: toolsets}
	}
	for _, tc := range []struct {
		scopes, toolsets []string
		want             string
	}{
		{[]string{"read", "comment"}, []string{"tasks", "comments"}, ""},
		{[]string{"comment", "read"}, []string{"comments", "tasks"}, ""},
		{[]string{"read"}, []string{"tasks", "comments"}, "scopes"},
		{[]string{"read", "read"}, []string{"tasks", "comments"}, "scopes"},
		{[]string{"read", "comment", "write"}, []string{"tasks", "comments"}, "scopes"},
		{[]string{"read", "comment"}, nil, "toolsets"},
		{[]string{"read", "comment"}, []string{"tasks", "work"}, "toolsets"},
	} {
		if got := rec.Mismatch(caller(tc.scopes, tc.toolsets)); got != tc.want {
			t.Errorf("Mismatch(scopes %v, toolsets %v) = %q, want %q", tc.scopes, tc.toolsets, got, tc.want)
		}
	}
	unlimited := rec
	unlimited.Toolsets = nil
	if got := unlimited.Mismatch(caller([]string{"read", "comment"}, []string{})); got != "" {
		t.Errorf("Mismatch(no toolsets, as [] and nil) = %q, want none", got)
	}
}
