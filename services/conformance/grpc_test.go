package conformance_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/worker"
	"github.com/taskwire/taskwire/worker/workertest"
)

// TestOverWorker serves the fixtures behind the worker's interceptor chain
// on in-memory gRPC, as a deployment does, and calls them as a reader.
func TestOverWorker(t *testing.T) {
	svc, pub := newService(t)
	conn := workertest.Start(t, worker.Config{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Register: []func(grpc.ServiceRegistrar){svc.Register},
	})
	tools := conformancev1.NewConformanceServiceClient(conn)
	content := mcpv1.NewContentServiceClient(conn)

	reader, _ := identity.FromContext(asReader())
	ctx := identity.AppendToOutgoing(context.Background(), reader)

	if _, err := tools.TriggerToolChange(ctx, &conformancev1.TriggerToolChangeRequest{}); err != nil {
		t.Fatalf("TriggerToolChange as a reader = %v", err)
	}
	if len(pub.got) != 1 || pub.got[0].tenant != "acme" || pub.got[0].ev.Kind != events.ToolsChanged {
		t.Errorf("published %v, want one tools change in acme", pub.got)
	}
	r, err := tools.InputRequiredResultSampling(ctx, &conformancev1.InputRequiredResultSamplingRequest{})
	if err != nil || r.GetInputRequired().GetRequests()["capital_question"] == nil {
		t.Errorf("InputRequiredResultSampling = %v, %v, want a sampling request", r, err)
	}
	if _, err := content.ListResources(ctx, &mcpv1.ListResourcesRequest{}); err != nil {
		t.Errorf("ListResources = %v", err)
	}

	for _, tc := range []struct {
		name string
		call func() error
		code codes.Code
	}{
		{"unknown resource", func() error {
			_, err := content.ReadResource(ctx, &mcpv1.ReadResourceRequest{Uri: "test://nothing"})
			return err
		}, codes.NotFound},
		{"unknown prompt", func() error {
			_, err := content.GetPrompt(ctx, &mcpv1.GetPromptRequest{Name: "nothing"})
			return err
		}, codes.InvalidArgument},
		{"missing argument", func() error {
			_, err := content.GetPrompt(ctx, &mcpv1.GetPromptRequest{Name: "test_prompt_with_arguments"})
			return err
		}, codes.InvalidArgument},
		{"no caller", func() error {
			_, err := tools.SimpleText(context.Background(), &conformancev1.SimpleTextRequest{})
			return err
		}, codes.Unauthenticated},
	} {
		st := status.Convert(tc.call())
		if st.Code() != tc.code || st.Message() == "" {
			t.Errorf("%s: status %v %q, want %v with a message", tc.name, st.Code(), st.Message(), tc.code)
		}
	}
}

// TestToolOptions: every RPC of ConformanceService is a tool any token can
// call, named as the suite calls it (test_…, but for the one the suite's
// json-schema-2020-12 scenario looks up and the fixtures of the MCP Tasks
// extension's scenarios, which name them otherwise), and only the triggers change
// anything.
func TestToolOptions(t *testing.T) {
	sd := conformancev1.File_taskwire_conformance_v1_conformance_proto.Services().ByName("ConformanceService")
	methods := sd.Methods()
	if want := 27 + len(tasksFixtures); methods.Len() != want {
		t.Errorf("ConformanceService has %d methods, want the suite's %d tools", methods.Len(), want)
	}
	names := map[string]bool{}
	for i := range methods.Len() {
		md := methods.Get(i)
		tool, _ := proto.GetExtension(md.Options(), mcpv1.E_Tool).(*mcpv1.Tool)
		if tool == nil {
			t.Errorf("%s has no tool option", md.Name())
			continue
		}
		suiteName := strings.HasPrefix(tool.GetName(), "test_") || tool.GetName() == "json_schema_2020_12_tool" || tasksFixtures[tool.GetName()]
		if !suiteName || names[tool.GetName()] {
			t.Errorf("%s: tool name %q, want a new test_ name", md.Name(), tool.GetName())
		}
		names[tool.GetName()] = true
		if tool.GetScope() != authz.ScopeRead || tool.GetDescription() == "" || tool.GetTitle() == "" || tool.GetConfirm() != "" {
			t.Errorf("%s: scope %q, title %q, description %q, confirm %q: want read, a title, a description and no confirmation",
				tool.GetName(), tool.GetScope(), tool.GetTitle(), tool.GetDescription(), tool.GetConfirm())
		}
		if want := !strings.HasPrefix(tool.GetName(), "test_trigger_"); tool.GetReadOnly() != want || tool.GetDestructive() || tool.GetOpenWorld() {
			t.Errorf("%s: read_only %v destructive %v open_world %v, want read_only %v and neither other",
				tool.GetName(), tool.GetReadOnly(), tool.GetDestructive(), tool.GetOpenWorld(), want)
		}
	}
}

// tasksFixtures are the tools the MCP Tasks extension's scenarios add
// (true: named without the test_ prefix).
var tasksFixtures = map[string]bool{"greet": true, "slow_compute": true, "failing_job": true, "protocol_error_job": true, "confirm_delete": true, "multi_input": true, "test_tool_with_task": false}
