package authz

import (
	"slices"
	"strings"
	"testing"
)

func TestNormalToolsets(t *testing.T) {
	got, err := NormalToolsets([]string{"work", "tasks", "work", "context"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"context", "tasks", "work"}; !slices.Equal(got, want) {
		t.Errorf("NormalToolsets = %v, want %v (deduplicated, in catalogue order)", got, want)
	}
	if got, err := NormalToolsets(nil); err != nil || got != nil {
		t.Errorf("NormalToolsets(nil) = %v, %v; want nil (every toolset)", got, err)
	}
	for _, bad := range []string{"Tasks", "conformance", "", "admin"} {
		if _, err := NormalToolsets([]string{"tasks", bad}); err == nil || !strings.Contains(err.Error(), "context, tasks, comments, work, audit") {
			t.Errorf("NormalToolsets(tasks, %q) = %v, want an error naming the known toolsets", bad, err)
		}
	}
}

func TestToolsetAllows(t *testing.T) {
	tests := []struct {
		toolsets []string
		toolset  string
		want     bool
	}{
		{nil, "work", true},
		{nil, "", true},
		{[]string{"tasks", "comments"}, "comments", true},
		{[]string{"tasks", "comments"}, "work", false},
		{[]string{"tasks"}, "", false}, // an ungrouped tool fails closed
		{[]string{"tasks"}, ToolsetConformance, false},
	}
	for _, tt := range tests {
		if got := ToolsetAllows(tt.toolsets, tt.toolset); got != tt.want {
			t.Errorf("ToolsetAllows(%v, %q) = %v, want %v", tt.toolsets, tt.toolset, got, tt.want)
		}
	}
}
