package content_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/content"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/frontdoor/mrtr"
	"github.com/taskwire/taskwire/internal/caller/authz"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

var _ interface {
	frontdoor.ResourceBackend
	frontdoor.PromptBackend
	frontdoor.CompletionBackend
} = (*content.Remote)(nil)

var bob = identity.Caller{Tenant: "acme", Member: 7, Scopes: authz.AllScopes, TokenID: "t"}

func TestNewRemoteValidates(t *testing.T) {
	for _, cfg := range []content.RemoteConfig{{}, {Rounds: &mrtr.Rounds{}}} {
		if _, err := content.NewRemote(cfg); err == nil {
			t.Errorf("NewRemote(%+v) = nil error, want one about what is missing", cfg)
		}
	}
}

// invalidParams reports whether err is a -32602.
func invalidParams(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == jsonrpc.InvalidParams
}

func TestRemoteResources(t *testing.T) {
	r, _ := newRemote(t)
	ctx := context.Background()
	rs, err := r.Resources(ctx, bob)
	if err != nil || len(rs) != 4 || rs[0].URI != "test://static-text" || rs[1].MIMEType != "image/png" {
		t.Errorf("Resources() = %+v, %v", rs, err)
	}
	ts, err := r.ResourceTemplates(ctx, bob)
	if diff := cmp.Diff([]mcp.ResourceTemplate{{URITemplate: "test://template/{id}/data", Name: "template", MIMEType: "application/json"}}, ts); err != nil || diff != "" {
		t.Errorf("ResourceTemplates() = %v (-want +got):\n%s", err, diff)
	}
	tests := []struct{ uri, want string }{
		{"test://static-text", `[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]`},
		{"test://static-binary", `[{"uri":"test://static-binary","mimeType":"image/png","blob":"` + base64.StdEncoding.EncodeToString(pngBytes) + `"}]`},
		{"test://empty-text", `[{"uri":"test://empty-text","mimeType":"text/plain","text":""}]`},
		{"test://whoami", `[{"uri":"test://whoami","mimeType":"text/plain","text":"acme/7"}]`},
		{"test://template/42/data", `[{"uri":"test://template/42/data","mimeType":"application/json","text":"{\"id\":\"42\"}"}]`},
	}
	for _, tt := range tests {
		contents, err := r.ReadResource(ctx, bob, tt.uri)
		if err != nil {
			t.Errorf("ReadResource(%s) = %v", tt.uri, err)
			continue
		}
		got, _ := json.Marshal(contents)
		if string(got) != tt.want {
			t.Errorf("ReadResource(%s) = %s, want %s", tt.uri, got, tt.want)
		}
	}
}

func TestRemoteErrors(t *testing.T) {
	r, _ := newRemote(t)
	ctx := context.Background()
	_, err := r.ReadResource(ctx, bob, "test://nothing")
	var nf *mcp.ResourceNotFoundError
	if !errors.As(err, &nf) || nf.URI != "test://nothing" {
		t.Errorf("ReadResource(nothing) = %v, want ResourceNotFoundError", err)
	}
	_, err = r.ReadResource(ctx, bob, "test://secret")
	var se *mcp.ScopeError
	if !errors.As(err, &se) {
		t.Errorf("ReadResource(secret) = %v, want ScopeError", err)
	}
	// A role's refusal is no token's: no 403 challenge, the sentence as is.
	_, err = r.ReadResource(ctx, bob, "test://not-for-viewers")
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.InvalidRequest || !strings.HasPrefix(je.Message, "You are a viewer on tenant ") {
		t.Errorf("ReadResource(not-for-viewers) = %v, want Invalid Request with the worker's sentence", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.ReadResource(cancelled, bob, "test://static-text"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadResource(cancelled) = %v, want context.Canceled", err)
	}
	// Without a caller the worker refuses: an internal error, not one the
	// client is told about in detail.
	if _, err := r.Prompts(ctx, identity.Caller{}); err == nil || invalidParams(err) {
		t.Errorf("Prompts(no caller) = %v, want an internal error", err)
	}
}

func TestRemotePrompts(t *testing.T) {
	r, _ := newRemote(t)
	ctx := context.Background()
	ps, err := r.Prompts(ctx, bob)
	if err != nil || len(ps) != 5 || ps[1].Name != "test_prompt_with_arguments" ||
		!cmp.Equal(ps[1].Arguments, []mcp.PromptArgument{{Name: "arg1", Description: "First", Required: true}, {Name: "arg2", Required: true}}) {
		t.Errorf("Prompts() = %+v, %v", ps, err)
	}
	tests := []struct {
		req  mcp.PromptRequest
		want string
	}{
		{mcp.PromptRequest{Name: "test_simple_prompt"}, `[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]`},
		{mcp.PromptRequest{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}},
			`[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='a', arg2='b'"}}]`},
		{mcp.PromptRequest{Name: "test_prompt_with_embedded_resource"},
			`[{"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}}]`},
		{mcp.PromptRequest{Name: "test_prompt_with_image"},
			`[{"role":"user","content":{"type":"image","data":"` + base64.StdEncoding.EncodeToString(pngBytes) + `","mimeType":"image/png"}}]`},
	}
	for _, tt := range tests {
		res, err := r.GetPrompt(ctx, bob, &tt.req)
		if err != nil {
			t.Errorf("GetPrompt(%s) = %v", tt.req.Name, err)
			continue
		}
		got, _ := json.Marshal(res.Messages)
		if string(got) != tt.want || res.InputRequired != nil {
			t.Errorf("GetPrompt(%s) messages = %s, want %s", tt.req.Name, got, tt.want)
		}
	}
	for _, req := range []mcp.PromptRequest{
		{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a"}},
		{Name: "retro"},
	} {
		if _, err := r.GetPrompt(ctx, bob, &req); !invalidParams(err) {
			t.Errorf("GetPrompt(%s, %v) = %v, want -32602", req.Name, req.Arguments, err)
		}
	}
}

// TestRemoteInputRounds runs a prompt that asks for input: the worker's
// request goes out with a sealed state, the retry's answer and the
// worker's state come back to it, and a state that was altered, expired
// or issued for another call is refused.
func TestRemoteInputRounds(t *testing.T) {
	r, clock := newRemote(t)
	ctx := context.Background()
	caps := json.RawMessage(`{"elicitation":{}}`)
	first := mcp.PromptRequest{Name: "test_input_required_result_prompt", ClientCapabilities: caps}
	_, err := r.GetPrompt(ctx, bob, &mcp.PromptRequest{Name: first.Name, ClientCapabilities: json.RawMessage(`{}`)})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.MissingRequiredClientCapability {
		t.Errorf("GetPrompt without elicitation = %v, want -32021", err)
	}
	res, err := r.GetPrompt(ctx, bob, &first)
	if err != nil || res.InputRequired == nil || res.InputRequired.RequestState == "" || len(res.Messages) != 0 {
		t.Fatalf("GetPrompt(first) = %+v, %v; want input required", res, err)
	}
	if ask := res.InputRequired.InputRequests["name"]; ask.Method != "elicitation/create" {
		t.Errorf("input requests = %+v, want an elicitation/create under name", res.InputRequired.InputRequests)
	}
	state := res.InputRequired.RequestState
	answer := json.RawMessage(`{"name":{"action":"accept","content":{"name":"Ada"}}}`)
	retry := func(c identity.Caller, args map[string]string, state string) (*mcp.PromptResult, error) {
		return r.GetPrompt(ctx, c, &mcp.PromptRequest{Name: first.Name, Arguments: args, ClientCapabilities: caps, InputResponses: answer, RequestState: state})
	}
	res, err = retry(bob, map[string]string{}, state) // {} is no arguments, as first sent
	if err != nil || res.InputRequired != nil || len(res.Messages) != 1 || res.Messages[0].Content.Text != "Hello, Ada." {
		t.Errorf("GetPrompt(retry) = %+v, %v; want the greeting", res, err)
	}
	tampered := []byte(state)
	tampered[len(tampered)-3] ^= 1
	other := bob
	other.Member = 8
	refused := []struct {
		name   string
		caller identity.Caller
		args   map[string]string
		state  string
	}{
		{"tampered", bob, nil, string(tampered)},
		{"other caller", other, nil, state},
		{"other arguments", bob, map[string]string{"x": "y"}, state},
		{"not a state", bob, nil, "v1.nonsense"},
	}
	for _, tt := range refused {
		if _, err := retry(tt.caller, tt.args, tt.state); !invalidParams(err) {
			t.Errorf("GetPrompt(retry, %s) = %v, want -32602", tt.name, err)
		}
	}
	clock.now = clock.now.Add(mrtr.DefaultTTL + time.Minute)
	if _, err := retry(bob, nil, state); !invalidParams(err) {
		t.Errorf("GetPrompt(retry, expired) = %v, want -32602", err)
	}
}

func TestRemoteComplete(t *testing.T) {
	r, _ := newRemote(t)
	ctx := context.Background()
	got, err := r.Complete(ctx, bob, &mcp.CompleteRequest{RefType: mcp.RefPrompt, RefName: "test_prompt_with_arguments", Argument: "arg1", Value: "par"})
	if err != nil || !cmp.Equal(got, &mcp.Completion{Values: []string{"paris", "park", "party"}, Total: 3}) {
		t.Errorf("Complete(par) = %+v, %v", got, err)
	}
	_, err = r.Complete(ctx, bob, &mcp.CompleteRequest{RefType: mcp.RefPrompt, RefName: "retro", Argument: "x"})
	if !invalidParams(err) {
		t.Errorf("Complete(retro) = %v, want -32602", err)
	}
}
