package content_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/content"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
	"github.com/taskwire/taskwire/services/access"
	"github.com/taskwire/taskwire/worker/workertest"
)

// fakeWorker serves ContentService with fixtures shaped like the
// conformance suite's, and refuses any call that does not carry a caller.
type fakeWorker struct {
	mcpv1.UnimplementedContentServiceServer
}

// pngBytes are the bytes of test://static-binary.
var pngBytes = []byte{0x89, 'P', 'N', 'G', 0, 1, 2}

// caller is the caller a call carries, as a worker reads it.
func caller(ctx context.Context) (identity.Caller, error) {
	c, err := identity.FromIncoming(ctx)
	if err != nil {
		return c, status.Error(codes.Unauthenticated, err.Error())
	}
	return c, nil
}

func (fakeWorker) ListResources(ctx context.Context, _ *mcpv1.ListResourcesRequest) (*mcpv1.ListResourcesResponse, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	return &mcpv1.ListResourcesResponse{
		Resources: []*mcpv1.Resource{
			{Uri: "test://static-text", Name: "static-text", MimeType: "text/plain"},
			{Uri: "test://static-binary", Name: "static-binary", MimeType: "image/png"},
			{Uri: "test://empty-text", Name: "empty-text", MimeType: "text/plain"},
			{Uri: "test://whoami", Name: "whoami"},
		},
		Templates: []*mcpv1.ResourceTemplate{{UriTemplate: "test://template/{id}/data", Name: "template", MimeType: "application/json"}},
	}, nil
}

func (fakeWorker) ReadResource(ctx context.Context, req *mcpv1.ReadResourceRequest) (*mcpv1.ReadResourceResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	text := func(uri, mime, s string) *mcpv1.ResourceContents {
		return &mcpv1.ResourceContents{Uri: uri, MimeType: mime, Body: &mcpv1.ResourceContents_Text{Text: s}}
	}
	uri := req.GetUri()
	var part *mcpv1.ResourceContents
	switch {
	case uri == "test://static-text":
		part = text(uri, "text/plain", "This is the content of the static text resource.")
	case uri == "test://static-binary":
		part = &mcpv1.ResourceContents{Uri: uri, MimeType: "image/png", Body: &mcpv1.ResourceContents_Blob{Blob: pngBytes}}
	case uri == "test://empty-text":
		part = text(uri, "text/plain", "")
	case uri == "test://whoami":
		part = text("", "text/plain", fmt.Sprintf("%s/%d", c.Tenant, c.Member)) // the URI left for the front door to fill
	case uri == "test://secret":
		return nil, status.Error(codes.PermissionDenied, "not for this token")
	case uri == "test://not-for-viewers":
		return nil, access.RoleForbids(authz.Refusal{Role: "viewer", Tenant: c.Tenant, Tool: "ReadResource", Need: "write"})
	case strings.HasPrefix(uri, "test://template/") && strings.HasSuffix(uri, "/data"):
		id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
		part = text(uri, "application/json", fmt.Sprintf(`{"id":%q}`, id))
	default:
		return nil, status.Errorf(codes.NotFound, "no resource %s", uri)
	}
	return &mcpv1.ReadResourceResponse{Contents: []*mcpv1.ResourceContents{part}}, nil
}

func (fakeWorker) ListPrompts(ctx context.Context, _ *mcpv1.ListPromptsRequest) (*mcpv1.ListPromptsResponse, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	return &mcpv1.ListPromptsResponse{Prompts: []*mcpv1.Prompt{
		{Name: "test_simple_prompt", Title: "Simple"},
		{Name: "test_prompt_with_arguments", Arguments: []*mcpv1.PromptArgument{
			{Name: "arg1", Description: "First", Required: true}, {Name: "arg2", Required: true},
		}},
		{Name: "test_prompt_with_embedded_resource"},
		{Name: "test_prompt_with_image"},
		{Name: "test_input_required_result_prompt"},
	}}, nil
}

func (fakeWorker) GetPrompt(ctx context.Context, req *mcpv1.GetPromptRequest) (*mcpv1.GetPromptResponse, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	user := func(c *mcpv1.Content) *mcpv1.GetPromptResponse {
		return &mcpv1.GetPromptResponse{Messages: []*mcpv1.PromptMessage{{Role: "user", Content: c}}}
	}
	text := func(s string) *mcpv1.Content { return &mcpv1.Content{Block: &mcpv1.Content_Text{Text: s}} }
	switch req.GetName() {
	case "test_simple_prompt":
		return user(text("This is a simple prompt for testing.")), nil
	case "test_prompt_with_arguments":
		a := req.GetArguments()
		if a["arg1"] == "" || a["arg2"] == "" {
			return nil, status.Error(codes.InvalidArgument, "arg1 and arg2 are required")
		}
		return user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))), nil
	case "test_prompt_with_embedded_resource":
		return user(&mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{
			Uri: "test://example-resource", MimeType: "text/plain", Body: &mcpv1.ResourceContents_Text{Text: "Embedded resource content for testing."},
		}}}), nil
	case "test_prompt_with_image":
		return user(&mcpv1.Content{Block: &mcpv1.Content_Image{Image: &mcpv1.Media{Data: pngBytes, MimeType: "image/png"}}}), nil
	case "test_input_required_result_prompt":
		return askName(req.GetInput())
	}
	return nil, status.Errorf(codes.InvalidArgument, "unknown prompt %s", req.GetName())
}

// askName asks for a name with a form, then greets whoever answered; the
// state it carries across is checked on the way back.
func askName(in *mcpv1.ClientInput) (*mcpv1.GetPromptResponse, error) {
	answer := in.GetResponses()["name"]
	if !in.GetRetry() || answer == nil {
		form, err := structpb.NewStruct(map[string]any{
			"mode": "form", "message": "Who is asking?",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return nil, err
		}
		return &mcpv1.GetPromptResponse{InputRequired: &mcpv1.InputRequired{
			Requests: map[string]*mcpv1.InputRequest{"name": {Method: "elicitation/create", Params: form}},
			State:    []byte("round-1"),
		}}, nil
	}
	if !bytes.Equal(in.GetState(), []byte("round-1")) {
		return nil, status.Errorf(codes.InvalidArgument, "state %q is not this prompt's", in.GetState())
	}
	name := answer.GetFields()["content"].GetStructValue().GetFields()["name"].GetStringValue()
	return &mcpv1.GetPromptResponse{
		Description: "A greeting",
		Messages:    []*mcpv1.PromptMessage{{Role: "user", Content: &mcpv1.Content{Block: &mcpv1.Content_Text{Text: "Hello, " + name + "."}}}},
	}, nil
}

func (fakeWorker) Complete(ctx context.Context, req *mcpv1.CompleteRequest) (*mcpv1.CompleteResponse, error) {
	if _, err := caller(ctx); err != nil {
		return nil, err
	}
	var all []string
	switch {
	case req.GetRefType() == "ref/prompt" && req.GetRefName() == "test_prompt_with_arguments":
		all = []string{"paris", "park", "party"}
	case req.GetRefType() == "ref/resource" && req.GetRefName() == "test://template/{id}/data":
		all = []string{"1", "2", "3"}
	default:
		return nil, status.Errorf(codes.InvalidArgument, "no completion for %s", req.GetRefName())
	}
	out := &mcpv1.CompleteResponse{}
	for _, v := range all {
		if strings.HasPrefix(v, req.GetValue()) {
			out.Values = append(out.Values, v)
		}
	}
	out.Total = int32(len(out.Values))
	return out, nil
}

// testClock is the clock of the test rounds; tests move it.
type testClock struct{ now time.Time }

func (c *testClock) Now() time.Time { return c.now }

// newRemote returns a Remote over a fakeWorker on an in-memory gRPC
// server, and the clock of its rounds.
func newRemote(t *testing.T) (*content.Remote, *testClock) {
	t.Helper()
	srv := grpc.NewServer()
	mcpv1.RegisterContentServiceServer(srv, fakeWorker{})
	conn := workertest.Dial(t, srv.Serve, srv.Stop)
	box, err := sealed.NewBox(bytes.Repeat([]byte{3}, sealed.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)}
	r, err := content.NewRemote(content.RemoteConfig{Conn: conn, Rounds: &mrtr.Rounds{Box: box, Now: clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	return r, clock
}
