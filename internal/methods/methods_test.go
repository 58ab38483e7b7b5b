package methods_test

import (
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/methods"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		method      string
		scope, tool string
		wantErr     bool
	}{
		{taskwirev1.BoardService_CreateTask_FullMethodName, "write", "tasks_create", false},
		{taskwirev1.BoardService_ListBoards_FullMethodName, "read", "boards_list", false},
		{taskwirev1.BoardService_AddComment_FullMethodName, "comment", "comments_add", false},
		{healthpb.Health_Check_FullMethodName, "", "Check", false}, // no tool option
		{"/taskwire.v1.BoardService/Nope", "", "", true},
		{"/taskwire.v1.BoardService", "", "", true},
	}
	for _, tc := range tests {
		for range 2 { // the second time from the cache
			r, err := methods.Lookup(tc.method)
			if (err != nil) != tc.wantErr || r.Scope != tc.scope || r.Name != tc.tool {
				t.Errorf("Lookup(%q) = %+v, %v, want scope %q tool %q (error: %v)", tc.method, r, err, tc.scope, tc.tool, tc.wantErr)
			}
		}
	}
}

func TestLookupToolset(t *testing.T) {
	for method, want := range map[string]string{
		taskwirev1.BoardService_GetTask_FullMethodName:    "tasks",
		taskwirev1.BoardService_AddComment_FullMethodName: "comments",
		taskwirev1.BoardService_ListBoards_FullMethodName: "context",
		taskwirev1.WorkService_NextWork_FullMethodName:    "work",
	} {
		if r, _ := methods.Lookup(method); !r.IsTool || r.Toolset != want {
			t.Errorf("Lookup(%s) = %+v, want a tool of toolset %q", method, r, want)
		}
	}
	if r, _ := methods.Lookup(taskwirev1.BoardService_GetBoardContext_FullMethodName); r.IsTool || r.Tool() != "" {
		t.Errorf("Lookup(GetBoardContext) = %+v, want no tool", r)
	}
}

// TestMinRoleAndTitle: the rules the services check a second time come
// from the proto.
func TestMinRoleAndTitle(t *testing.T) {
	for method, want := range map[string]methods.Rule{
		taskwirev1.BoardService_UpdateBoard_FullMethodName: {Name: "boards_update", Title: "Update a board", Scope: "write", MinRole: "admin"},
		taskwirev1.AuditService_ListAudit_FullMethodName:   {Name: "audit_list", Title: "List the audit log", Scope: "read", MinRole: "admin"},
	} {
		r := methods.Must(method)
		if r.Name != want.Name || r.Title != want.Title || r.Scope != want.Scope || r.MinRole != want.MinRole {
			t.Errorf("Must(%s) = %+v, want %+v", method, r, want)
		}
	}
}

func TestMustPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Must(unknown method) did not panic")
		}
	}()
	methods.Must("/taskwire.v1.BoardService/Nope")
}
