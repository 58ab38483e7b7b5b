package conformance_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/internal/domainerr"
	"github.com/taskwire/taskwire/internal/events"
	"github.com/taskwire/taskwire/internal/progress"
	"github.com/taskwire/taskwire/services/conformance"
)

func decode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNew(t *testing.T) {
	if _, err := conformance.New(conformance.Config{}); err == nil {
		t.Error("New(no Events) = nil error, want one")
	}
}

func TestContentTools(t *testing.T) {
	svc, _ := newService(t)
	ctx := asReader()
	png := decode(t, "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	wav := decode(t, "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
	text := func(s string) *mcpv1.Content { return &mcpv1.Content{Block: &mcpv1.Content_Text{Text: s}} }
	image := &mcpv1.Content{Block: &mcpv1.Content_Image{Image: &mcpv1.Media{Data: png, MimeType: "image/png"}}}
	resource := func(uri, mime, body string) *mcpv1.Content {
		return &mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{
			Uri: uri, MimeType: mime, Body: &mcpv1.ResourceContents_Text{Text: body}}}}
	}
	for _, tc := range []struct {
		tool string
		call func() (*mcpv1.ToolOutput, error)
		want *mcpv1.ToolOutput
	}{
		{"test_simple_text", func() (*mcpv1.ToolOutput, error) {
			r, err := svc.SimpleText(ctx, &conformancev1.SimpleTextRequest{})
			return r.GetOutput(), err
		}, &mcpv1.ToolOutput{Content: []*mcpv1.Content{text("This is a simple text response for testing.")}}},
		{"test_image_content", func() (*mcpv1.ToolOutput, error) {
			r, err := svc.ImageContent(ctx, &conformancev1.ImageContentRequest{})
			return r.GetOutput(), err
		}, &mcpv1.ToolOutput{Content: []*mcpv1.Content{image}}},
		{"test_audio_content", func() (*mcpv1.ToolOutput, error) {
			r, err := svc.AudioContent(ctx, &conformancev1.AudioContentRequest{})
			return r.GetOutput(), err
		}, &mcpv1.ToolOutput{Content: []*mcpv1.Content{{Block: &mcpv1.Content_Audio{Audio: &mcpv1.Media{Data: wav, MimeType: "audio/wav"}}}}}},
		{"test_embedded_resource", func() (*mcpv1.ToolOutput, error) {
			r, err := svc.EmbeddedResource(ctx, &conformancev1.EmbeddedResourceRequest{})
			return r.GetOutput(), err
		}, &mcpv1.ToolOutput{Content: []*mcpv1.Content{
			resource("test://embedded-resource", "text/plain", "This is an embedded resource content."),
		}}},
		{"test_multiple_content_types", func() (*mcpv1.ToolOutput, error) {
			r, err := svc.MultipleContentTypes(ctx, &conformancev1.MultipleContentTypesRequest{})
			return r.GetOutput(), err
		}, &mcpv1.ToolOutput{Content: []*mcpv1.Content{
			text("Multiple content types test:"),
			image,
			resource("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
		}}},
		{"test_error_handling", func() (*mcpv1.ToolOutput, error) {
			r, err := svc.ErrorHandling(ctx, &conformancev1.ErrorHandlingRequest{})
			return r.GetOutput(), err
		}, &mcpv1.ToolOutput{IsError: true, Content: []*mcpv1.Content{text("This tool intentionally returns an error for testing")}}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			got, err := tc.call()
			if err != nil {
				t.Fatalf("%s: %v", tc.tool, err)
			}
			if diff := cmp.Diff(tc.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("%s output (-want +got):\n%s", tc.tool, diff)
			}
		})
	}
}

// recorder collects the logs and progress reports of one call.
type recorder struct {
	mu      sync.Mutex
	logs    []string
	reports []string
}

func (r *recorder) context(ctx context.Context) context.Context {
	ctx = progress.NewLogContext(ctx, func(level, text string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.logs = append(r.logs, level+": "+text)
	})
	return progress.NewContext(ctx, func(done, total float64, msg string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.reports = append(r.reports, fmt.Sprintf("%g/%g %s", done, total, msg))
	})
}

func TestLoggingAndProgress(t *testing.T) {
	svc, _ := newService(t)
	for _, tc := range []struct {
		tool                string
		call                func(context.Context) (*mcpv1.ToolOutput, error)
		wantLogs, wantSteps []string
		wantText            string
	}{
		{
			tool: "test_tool_with_logging",
			call: func(ctx context.Context) (*mcpv1.ToolOutput, error) {
				r, err := svc.ToolWithLogging(ctx, &conformancev1.ToolWithLoggingRequest{})
				return r.GetOutput(), err
			},
			wantLogs: []string{"info: Tool execution started", "info: Tool processing data", "info: Tool execution completed"},
			wantText: "Tool with logging executed successfully",
		},
		{
			tool: "test_logging_tool",
			call: func(ctx context.Context) (*mcpv1.ToolOutput, error) {
				r, err := svc.LoggingTool(ctx, &conformancev1.LoggingToolRequest{})
				return r.GetOutput(), err
			},
			wantLogs: []string{"info: Logging diagnostic started", "info: Logging diagnostic running", "info: Logging diagnostic finished"},
			wantText: "Logging diagnostic completed",
		},
		{
			tool: "test_tool_with_progress",
			call: func(ctx context.Context) (*mcpv1.ToolOutput, error) {
				r, err := svc.ToolWithProgress(ctx, &conformancev1.ToolWithProgressRequest{})
				return r.GetOutput(), err
			},
			wantSteps: []string{"0/100 Completed step 0 of 100", "50/100 Completed step 50 of 100", "100/100 Completed step 100 of 100"},
			wantText:  "Progress reported: 0, 50 and 100 of 100 steps completed.",
		},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			var rec recorder
			start := time.Now()
			out, err := tc.call(rec.context(asReader()))
			if err != nil {
				t.Fatalf("%s: %v", tc.tool, err)
			}
			if got := onlyText(t, out); got != tc.wantText {
				t.Errorf("%s text = %q, want %q", tc.tool, got, tc.wantText)
			}
			if diff := cmp.Diff(tc.wantLogs, rec.logs); diff != "" {
				t.Errorf("%s logs (-want +got):\n%s", tc.tool, diff)
			}
			if diff := cmp.Diff(tc.wantSteps, rec.reports); diff != "" {
				t.Errorf("%s progress (-want +got):\n%s", tc.tool, diff)
			}
			if took := time.Since(start); took < 90*time.Millisecond {
				t.Errorf("%s took %v, want two pauses of about 50ms", tc.tool, took)
			}
		})
	}
}

// TestStepsStopWhenCancelled: a cancelled call stops between steps.
func TestStepsStopWhenCancelled(t *testing.T) {
	svc, _ := newService(t)
	var rec recorder
	ctx, cancel := context.WithCancel(rec.context(asReader()))
	cancel()
	if _, err := svc.ToolWithProgress(ctx, &conformancev1.ToolWithProgressRequest{}); !errors.Is(err, context.Canceled) {
		t.Errorf("ToolWithProgress(cancelled) = %v, want context.Canceled", err)
	}
	if len(rec.reports) != 1 {
		t.Errorf("reports = %q, want only the first", rec.reports)
	}
}

func TestTriggerToolChange(t *testing.T) {
	svc, pub := newService(t)
	r, err := svc.TriggerToolChange(asReader(), &conformancev1.TriggerToolChangeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := onlyText(t, r.GetOutput()); got == "" {
		t.Error("TriggerToolChange text is empty")
	}
	want := []string{"acme " + events.ToolsChanged + " 0"}
	var got []string
	for _, a := range pub.got {
		got = append(got, fmt.Sprintf("%s %s %d", a.tenant, a.ev.Kind, a.ev.Member))
	}
	if !slices.Equal(got, want) {
		t.Errorf("published %q, want %q (every member of the caller's tenant)", got, want)
	}

	if _, err := svc.TriggerToolChange(context.Background(), &conformancev1.TriggerToolChangeRequest{}); domainerr.KindOf(err) != domainerr.Unauthenticated {
		t.Errorf("TriggerToolChange(no caller) = %v, want unauthenticated", err)
	}
	noTenant := identity.NewContext(context.Background(), identity.Caller{Member: 7})
	if _, err := svc.TriggerToolChange(noTenant, &conformancev1.TriggerToolChangeRequest{}); domainerr.KindOf(err) != domainerr.Unauthenticated {
		t.Errorf("TriggerToolChange(caller without tenant) = %v, want unauthenticated", err)
	}
	pub.fail = errBusDown
	if _, err := svc.TriggerToolChange(asReader(), &conformancev1.TriggerToolChangeRequest{}); domainerr.KindOf(err) != domainerr.Unavailable || !errors.Is(err, errBusDown) {
		t.Errorf("TriggerToolChange(bus down) = %v, want unavailable wrapping the cause", err)
	}
}

func TestTriggerPromptChange(t *testing.T) {
	svc, pub := newService(t)
	r, err := svc.TriggerPromptChange(asReader(), &conformancev1.TriggerPromptChangeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := onlyText(t, r.GetOutput()); !strings.Contains(got, "notifications/prompts/list_changed") {
		t.Errorf("TriggerPromptChange text = %q, want it to name the notification", got)
	}
	if len(pub.got) != 1 || pub.got[0].tenant != "acme" || pub.got[0].ev.Kind != events.PromptsChanged {
		t.Errorf("published %+v, want one prompts change to acme", pub.got)
	}
	if len(pub.got) != 1 {
		t.Errorf("published %d events, want only the one of the verified call", len(pub.got))
	}
}
