package catalog_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
)

func newCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(taskwirev1.SourceDescriptor, taskwirev1.ToolServices...)
	if err != nil {
		t.Fatalf("catalog.New: %v", err)
	}
	return c
}

func TestCatalogueFollowsContract(t *testing.T) {
	c := newCatalog(t)
	var names []string
	for _, tool := range c.Tools() {
		names = append(names, tool.Def.Name)
	}
	want := []string{
		"boards_list", "boards_get", "boards_update", "boards_create", "members_list", "context_get", "context_add",
		"tasks_get", "tasks_list", "tasks_search", "tasks_create", "tasks_update", "tasks_move", "tasks_assign",
		"tasks_flag", "tasks_delete", "tasks_restore", "tasks_import",
		"comments_list", "comments_add", "comments_edit",
		"work_approve", "work_next", "work_heartbeat", "work_release", "work_complete",
		"whoami", "audit_list",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v (declaration order)", names, want)
	}
	get, _ := c.Lookup("tasks_get")
	if get.FullMethod != "/taskwire.v1.BoardService/GetTask" || get.Scope != "read" || get.Toolset != "tasks" {
		t.Errorf("tasks_get = %s scope %q toolset %q, want /taskwire.v1.BoardService/GetTask scope read toolset tasks", get.FullMethod, get.Scope, get.Toolset)
	}
	if audit, _ := c.Lookup("audit_list"); audit.Toolset != "audit" || audit.MinRole != "admin" {
		t.Errorf("audit_list toolset %q min role %q, want audit and admin", audit.Toolset, audit.MinRole)
	}
	if a := get.Def.Annotations; !*a.ReadOnlyHint || !*a.IdempotentHint || *a.OpenWorldHint || a.DestructiveHint != nil {
		t.Errorf("tasks_get annotations = %+v, want read-only, idempotent, closed world", a)
	}
	var in struct {
		Required   []string
		Properties map[string]struct {
			Description string
			Type        string
			Enum        []string
		}
	}
	create, _ := c.Lookup("tasks_create")
	if err := json.Unmarshal(create.Def.InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Required, []string{"title"}) {
		t.Errorf("tasks_create required = %v, want [title]", in.Required)
	}
	lane := in.Properties["lane"]
	if !slices.Equal(lane.Enum, []string{"backlog", "next", "doing", "done"}) {
		t.Errorf("lane enum = %v, want short names", lane.Enum)
	}
	if !strings.Contains(lane.Description, "The lane to start in") || !strings.Contains(lane.Description, "doing: Being worked on") {
		t.Errorf("lane description = %q, want the field comment and the value comments", lane.Description)
	}
	if _, ok := c.Lookup("tasks_frob"); ok {
		t.Error("Lookup(tasks_frob) found a tool the contract does not have")
	}
	del, _ := c.Lookup("tasks_delete")
	if del.Confirm == "" || del.ConfirmationField == nil || del.ConfirmationField.Name() != "confirmation" {
		t.Errorf("tasks_delete confirm = %q, field %v; want a question and the confirmation field", del.Confirm, del.ConfirmationField)
	}
	if strings.Contains(string(del.Def.InputSchema), "confirmation") {
		t.Errorf("tasks_delete inputSchema = %s, want no confirmation property: only the front door sets it", del.Def.InputSchema)
	}
	if _, err := del.DecodeArguments(json.RawMessage(`{"ref":"T-1","confirmation":"forged"}`)); err == nil {
		t.Error("tasks_delete accepted a confirmation from the arguments")
	}
	if create.Confirm != "" || create.ConfirmationField != nil {
		t.Error("tasks_create asks for confirmation, want none")
	}
}

func TestDecodeArguments(t *testing.T) {
	c := newCatalog(t)
	create, _ := c.Lookup("tasks_create")
	msg, err := create.DecodeArguments(json.RawMessage(`{"title":"Fix login","lane":"doing","kind":"bug","size":"xl","assignees":["me"]}`))
	if err != nil {
		t.Fatalf("DecodeArguments: %v", err)
	}
	want := &taskwirev1.CreateTaskRequest{Title: "Fix login", Lane: taskwirev1.Lane_LANE_DOING, Kind: taskwirev1.TaskKind_TASK_KIND_BUG, Size: taskwirev1.TaskSize_TASK_SIZE_XL, Assignees: []string{"me"}}
	if !proto.Equal(msg, want) {
		t.Errorf("DecodeArguments = %v, want %v", msg, want)
	}

	bad := map[string]string{
		`{}`:                                 "title",
		`{"title":"x","lane":"LANE_DOING"}`:  "lane",
		`{"title":"x","lane":"unspecified"}`: "lane",
		`{"title":"x","colour":"red"}`:       "colour",
		`{"title":7}`:                        "title",
	}
	for args, where := range bad {
		_, err := create.DecodeArguments(json.RawMessage(args))
		var ae *catalog.ArgumentsError
		if !errors.As(err, &ae) {
			t.Errorf("DecodeArguments(%s) = %v, want *ArgumentsError", args, err)
			continue
		}
		if !strings.Contains(strings.Join(ae.Problems, " "), where) {
			t.Errorf("DecodeArguments(%s) problems = %q, want one about %s", args, ae.Problems, where)
		}
	}

	for _, args := range []string{`[1]`, `"x"`, `{"title":`} {
		if _, err := create.DecodeArguments(json.RawMessage(args)); !errors.Is(err, catalog.ErrNotObject) {
			t.Errorf("DecodeArguments(%s) = %v, want ErrNotObject", args, err)
		}
	}

	list, _ := c.Lookup("tasks_list")
	if _, err := list.DecodeArguments(nil); err != nil {
		t.Errorf("tasks_list with no arguments: %v", err)
	}
	if _, err := list.DecodeArguments(json.RawMessage(`{"limit":500}`)); err == nil {
		t.Error("tasks_list limit 500 passed, want the schema's maximum to refuse it")
	}

	// Arguments of a tool without enums go to protojson as they stand,
	// but for what protojson refuses and the schema's decoder takes: with
	// a key twice, the last wins either way.
	get, _ := c.Lookup("tasks_get")
	for args, want := range map[string]*taskwirev1.GetTaskRequest{
		`{"ref":"T-4","include_links":true}`: {Ref: "T-4", IncludeLinks: true},
		`{"ref":"T-4","ref":"T-5"}`:          {Ref: "T-5"},
	} {
		if msg, err := get.DecodeArguments(json.RawMessage(args)); err != nil || !proto.Equal(msg, want) {
			t.Errorf("tasks_get DecodeArguments(%s) = %v, %v; want %v", args, msg, err, want)
		}
	}
}

func TestEncodeResultMatchesOutputSchema(t *testing.T) {
	c := newCatalog(t)
	get, _ := c.Lookup("tasks_get")
	resp := &taskwirev1.GetTaskResponse{Task: &taskwirev1.Task{
		Ref: "T-3", Board: "main", Title: "Fix login", Lane: taskwirev1.Lane_LANE_DOING,
		Kind: taskwirev1.TaskKind_TASK_KIND_BUG, Version: 2, Assignees: []string{"alice"},
		CreatedAt: timestamppb.Now(), UpdatedAt: timestamppb.Now(),
	}}
	raw, err := get.EncodeResult(resp)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Task struct {
			Ref, Lane, Kind string
			Version         int
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Task.Ref != "T-3" || got.Task.Lane != "doing" || got.Task.Kind != "bug" || got.Task.Version != 2 {
		t.Errorf("EncodeResult = %s, want ref T-3, lane doing, kind bug, version 2", raw)
	}
	catalog.MustMatchOutputSchema(t, get, raw)
}

// BenchmarkDecodeArguments: the arguments of the call assistants make
// most, from JSON to the request message.
func BenchmarkDecodeArguments(b *testing.B) {
	get, _ := newCatalog(b).Lookup("tasks_get")
	args := json.RawMessage(`{"ref":"T-412"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := get.DecodeArguments(args); err != nil {
			b.Fatal(err)
		}
	}
}
