package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	conformancev1 "github.com/taskwire/taskwire/api/taskwire/conformance/v1"
	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/sealed"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

// fixtures is a ConformanceService of fixed answers, standing in for the
// real fixture service so that these tests pin the front door's side of
// the contract only.
type fixtures struct {
	conformancev1.UnimplementedConformanceServiceServer
	mu     sync.Mutex
	inputs []*mcpv1.ClientInput // as the multi-round tool received them
}

func output(isError bool, blocks ...*mcpv1.Content) *mcpv1.ToolOutput {
	return &mcpv1.ToolOutput{Content: blocks, IsError: isError}
}

func text(s string) *mcpv1.Content { return &mcpv1.Content{Block: &mcpv1.Content_Text{Text: s}} }

var png = []byte{0x89, 'P', 'N', 'G', 0, 0xff}

func (*fixtures) ImageContent(context.Context, *conformancev1.ImageContentRequest) (*conformancev1.ImageContentResponse, error) {
	img := &mcpv1.Content{Block: &mcpv1.Content_Image{Image: &mcpv1.Media{Data: png, MimeType: "image/png"}}}
	return &conformancev1.ImageContentResponse{Output: output(false, img)}, nil
}

func (*fixtures) AudioContent(context.Context, *conformancev1.AudioContentRequest) (*conformancev1.AudioContentResponse, error) {
	wav := &mcpv1.Content{Block: &mcpv1.Content_Audio{Audio: &mcpv1.Media{Data: []byte("RIFF"), MimeType: "audio/wav"}}}
	return &conformancev1.AudioContentResponse{Output: output(false, wav)}, nil
}

func (*fixtures) EmbeddedResource(context.Context, *conformancev1.EmbeddedResourceRequest) (*conformancev1.EmbeddedResourceResponse, error) {
	res := &mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{
		Uri: "test://embedded", MimeType: "text/plain", Body: &mcpv1.ResourceContents_Text{Text: ""}}}}
	return &conformancev1.EmbeddedResourceResponse{Output: output(false, res)}, nil
}

func (*fixtures) MultipleContentTypes(context.Context, *conformancev1.MultipleContentTypesRequest) (*conformancev1.MultipleContentTypesResponse, error) {
	blob := &mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{
		Uri: "test://blob", Body: &mcpv1.ResourceContents_Blob{Blob: []byte{1, 2, 3}}}}}
	return &conformancev1.MultipleContentTypesResponse{Output: output(false, text(""), blob)}, nil
}

func (*fixtures) ErrorHandling(context.Context, *conformancev1.ErrorHandlingRequest) (*conformancev1.ErrorHandlingResponse, error) {
	return &conformancev1.ErrorHandlingResponse{Output: output(true, text("This tool always fails."))}, nil
}

func (*fixtures) SimpleText(context.Context, *conformancev1.SimpleTextRequest) (*conformancev1.SimpleTextResponse, error) {
	return &conformancev1.SimpleTextResponse{}, nil // sets no output at all
}

func mustStruct(m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil {
		panic(err)
	}
	return s
}

// ask is an InputRequired of one elicitation for a string field.
func ask(key, field, state string) *mcpv1.InputRequired {
	form := mustStruct(map[string]any{"mode": "form", "message": "Your " + field + "?", "requestedSchema": map[string]any{
		"type": "object", "properties": map[string]any{field: map[string]any{"type": "string"}},
	}})
	return &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{key: {Method: "elicitation/create", Params: form}}, State: []byte(state)}
}

// answer reads field from the accepted form under key.
func answer(in *mcpv1.ClientInput, key, field string) string {
	return in.GetResponses()[key].GetFields()["content"].GetStructValue().GetFields()[field].GetStringValue()
}

// InputRequiredResultMultiRound asks for a name, then a colour, carrying
// what it learnt in its state.
func (f *fixtures) InputRequiredResultMultiRound(_ context.Context, req *conformancev1.InputRequiredResultMultiRoundRequest) (*conformancev1.InputRequiredResultMultiRoundResponse, error) {
	in := req.GetInput()
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	f.mu.Unlock()
	state := string(in.GetState())
	switch {
	case state == "":
		return &conformancev1.InputRequiredResultMultiRoundResponse{InputRequired: ask("name", "name", "round-2")}, nil
	case state == "round-2":
		return &conformancev1.InputRequiredResultMultiRoundResponse{InputRequired: ask("colour", "colour", "name="+answer(in, "name", "name"))}, nil
	}
	name, _ := strings.CutPrefix(state, "name=")
	return &conformancev1.InputRequiredResultMultiRoundResponse{Output: output(false, text(name+" likes "+answer(in, "colour", "colour")))}, nil
}

func (*fixtures) InputRequiredResultSampling(context.Context, *conformancev1.InputRequiredResultSamplingRequest) (*conformancev1.InputRequiredResultSamplingResponse, error) {
	return &conformancev1.InputRequiredResultSamplingResponse{InputRequired: &mcpv1.InputRequired{Requests: map[string]*mcpv1.InputRequest{
		"capital": {Method: "sampling/createMessage", Params: mustStruct(map[string]any{"maxTokens": 50, "messages": []any{}})},
	}}}, nil
}

// newFixtureBackend returns a Backend over the fixtures' catalogue, with
// state keys and a clock the test moves.
func newFixtureBackend(t *testing.T, f *fixtures) (*Backend, *time.Time) {
	t.Helper()
	conn := startServices(t, nil, func(r grpc.ServiceRegistrar) { conformancev1.RegisterConformanceServiceServer(r, f) })
	cat, err := catalog.New(nil, conformancev1.ConformanceService_ServiceDesc.ServiceName)
	if err != nil {
		t.Fatalf("catalog.New: %v", err)
	}
	box, _ := sealed.NewBox(bytes.Repeat([]byte{5}, sealed.KeySize))
	now := time.Unix(1_800_000_000, 0)
	b, err := New(Config{Catalog: cat, Conn: conn, States: box, Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b, &now
}

func TestContentBlocks(t *testing.T) {
	b, _ := newFixtureBackend(t, &fixtures{})
	for _, tc := range []struct {
		tool    string
		content string
		isError bool
	}{
		{"test_image_content", `[{"type":"image","data":"iVBORwD/","mimeType":"image/png"}]`, false},
		{"test_audio_content", `[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]`, false},
		{"test_embedded_resource", `[{"type":"resource","resource":{"uri":"test://embedded","mimeType":"text/plain","text":""}}]`, false},
		{"test_multiple_content_types", `[{"type":"text","text":""},{"type":"resource","resource":{"uri":"test://blob","blob":"AQID"}}]`, false},
		{"test_error_handling", `[{"type":"text","text":"This tool always fails."}]`, true},
		// No ToolOutput set: the response is rendered, as for any tool.
		{"test_simple_text", `[{"type":"text","text":"{}"}]`, false},
	} {
		res, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: tc.tool}, nil)
		if err != nil {
			t.Errorf("CallTool(%s) = %v", tc.tool, err)
			continue
		}
		got, err := json.Marshal(res.Content)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.content || res.IsError != tc.isError {
			t.Errorf("CallTool(%s) = content %s isError %v, want %s isError %v", tc.tool, got, res.IsError, tc.content, tc.isError)
		}
		if res.StructuredContent != nil || res.InputRequired != nil {
			t.Errorf("CallTool(%s) = structuredContent %s, inputRequired %+v; want neither: the tool has no outputSchema", tc.tool, res.StructuredContent, res.InputRequired)
		}
	}
	tools, err := b.Tools(context.Background(), reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.OutputSchema != nil {
			t.Errorf("%s outputSchema = %s, want none: its response holds only MCP shapes", tool.Name, tool.OutputSchema)
		}
	}
}

// TestInputRounds runs a call over three rounds: each answer and the
// worker's state come back, and the state changes from round to round.
func TestInputRounds(t *testing.T) {
	f := &fixtures{}
	b, _ := newFixtureBackend(t, f)
	caps := json.RawMessage(`{"elicitation":{"form":{}}}`)
	call := &mcp.ToolCall{Name: "test_input_required_result_multi_round", ClientCapabilities: caps}

	res, err := b.CallTool(context.Background(), reader, call, nil)
	if err != nil || res.InputRequired == nil {
		t.Fatalf("round 1 = %+v, %v; want input_required", res, err)
	}
	if req := res.InputRequired.InputRequests["name"]; req.Method != "elicitation/create" || req.Params.(map[string]any)["message"] != "Your name?" {
		t.Errorf("round 1 asks %+v, want the name form", req)
	}
	state1 := res.InputRequired.RequestState
	if strings.Contains(state1, "round-2") {
		t.Errorf("requestState %q shows the worker's state, want it sealed", state1)
	}

	call.InputResponses, call.RequestState = json.RawMessage(`{"name":{"action":"accept","content":{"name":"Ada"}}}`), state1
	res, err = b.CallTool(context.Background(), reader, call, nil)
	if err != nil || res.InputRequired == nil || res.InputRequired.InputRequests["colour"].Method == "" {
		t.Fatalf("round 2 = %+v, %v; want input_required for the colour", res, err)
	}
	state2 := res.InputRequired.RequestState
	if state2 == state1 {
		t.Error("round 2 requestState = round 1's, want the worker's new state")
	}

	call.InputResponses, call.RequestState = json.RawMessage(`{"colour":{"action":"accept","content":{"colour":"blue"}}}`), state2
	res, err = b.CallTool(context.Background(), reader, call, nil)
	if err != nil || res.InputRequired != nil {
		t.Fatalf("round 3 = %+v, %v; want the result", res, err)
	}
	if got := resultText(t, res); got != "Ada likes blue" {
		t.Errorf("round 3 text = %q, want %q", got, "Ada likes blue")
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	wantCaps := mustStruct(map[string]any{"elicitation": map[string]any{"form": map[string]any{}}})
	want := []*mcpv1.ClientInput{
		{Capabilities: wantCaps},
		{Capabilities: wantCaps, State: []byte("round-2"), Retry: true, Responses: map[string]*structpb.Struct{
			"name": mustStruct(map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}})}},
		{Capabilities: wantCaps, State: []byte("name=Ada"), Retry: true, Responses: map[string]*structpb.Struct{
			"colour": mustStruct(map[string]any{"action": "accept", "content": map[string]any{"colour": "blue"}})}},
	}
	if diff := cmp.Diff(want, f.inputs, protocmp.Transform()); diff != "" {
		t.Errorf("ClientInput the worker got (-want +got):\n%s", diff)
	}
}

// TestInputRoundsRefused: a retry whose state was altered, comes from
// another caller or another tool, or came too late, is a protocol error,
// and the worker never sees it; so is a round the client cannot answer.
func TestInputRoundsRefused(t *testing.T) {
	f := &fixtures{}
	b, now := newFixtureBackend(t, f)
	caps := json.RawMessage(`{"elicitation":{}}`)
	first, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: "test_input_required_result_multi_round", ClientCapabilities: caps}, nil)
	if err != nil || first.InputRequired == nil {
		t.Fatalf("round 1 = %+v, %v; want input_required", first, err)
	}
	state := first.InputRequired.RequestState
	tampered := state[:len(state)-4] + "AAAA"
	if tampered == state {
		tampered = state[:len(state)-4] + "BBBB"
	}
	other := reader
	other.Member = 8
	start := *now

	for _, tc := range []struct {
		name   string
		tool   string
		caller identity.Caller
		state  string
		at     time.Duration
	}{
		{"tampered", "test_input_required_result_multi_round", reader, tampered, 0},
		{"another member", "test_input_required_result_multi_round", other, state, 0},
		{"another tool", "test_input_required_result_elicitation", reader, state, 0},
		{"expired", "test_input_required_result_multi_round", reader, state, 11 * time.Minute},
	} {
		*now = start.Add(tc.at)
		f.mu.Lock()
		f.inputs = nil
		f.mu.Unlock()
		res, err := b.CallTool(context.Background(), tc.caller, &mcp.ToolCall{
			Name: tc.tool, ClientCapabilities: caps, RequestState: tc.state,
			InputResponses: json.RawMessage(`{"name":{"action":"accept","content":{"name":"Ada"}}}`),
		}, nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams || !strings.Contains(je.Message, "requestState") {
			t.Errorf("%s: CallTool = %+v, %v; want -32602 about the requestState", tc.name, res, err)
		}
		f.mu.Lock()
		if len(f.inputs) != 0 {
			t.Errorf("%s: the worker was called", tc.name)
		}
		f.mu.Unlock()
	}
	*now = start

	res, err := b.CallTool(context.Background(), reader, &mcp.ToolCall{Name: "test_input_required_result_sampling", ClientCapabilities: caps}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.MissingRequiredClientCapability {
		t.Fatalf("sampling round without the capability = %+v, %v; want -32021", res, err)
	}
	data, _ := json.Marshal(je.Data)
	if string(data) != `{"requiredCapabilities":{"sampling":{}}}` || !strings.Contains(je.Message, "sampling") {
		t.Errorf("-32021 = %q data %s, want it to name sampling, with data {\"requiredCapabilities\":{\"sampling\":{}}}", je.Message, data)
	}
}

// TestInputNeedsStates: a catalogue with tools that take the client's
// input cannot run without keys for their request states.
func TestInputNeedsStates(t *testing.T) {
	cat, err := catalog.New(nil, conformancev1.ConformanceService_ServiceDesc.ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Config{Catalog: cat, Conn: startServices(t, nil, func(grpc.ServiceRegistrar) {}), Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "States") {
		t.Errorf("New without States = %v, want an error asking for them", err)
	}
}

// TestNewNeedsLogger: a backend without a logger would hide what it works
// around, so New refuses it.
func TestNewNeedsLogger(t *testing.T) {
	cat, err := testCatalog()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Config{Catalog: cat, Conn: startServices(t, nil, func(grpc.ServiceRegistrar) {})})
	if err == nil || !strings.Contains(err.Error(), "logger") {
		t.Errorf("New without Logger = %v, want an error asking for one", err)
	}
}
