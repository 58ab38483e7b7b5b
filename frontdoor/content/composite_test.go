package content_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/frontdoor"
	"github.com/taskwire/taskwire/frontdoor/content"
	"github.com/taskwire/taskwire/frontdoor/jsonrpc"
	"github.com/taskwire/taskwire/frontdoor/mcp"
	"github.com/taskwire/taskwire/internal/caller/identity"
)

var _ interface {
	frontdoor.ResourceBackend
	frontdoor.PromptBackend
	frontdoor.CompletionBackend
} = (*content.Composite)(nil)

// localSource is a source in memory: what it lists it serves, saying so
// in what it returns; err, when set, is the answer to everything.
type localSource struct {
	uris, templates, prompts []string
	err                      error
}

func (s localSource) Resources(context.Context, identity.Caller) ([]mcp.Resource, error) {
	var out []mcp.Resource
	for _, u := range s.uris {
		out = append(out, mcp.Resource{URI: u, Name: "local"})
	}
	return out, s.err
}

func (s localSource) ResourceTemplates(context.Context, identity.Caller) ([]mcp.ResourceTemplate, error) {
	var out []mcp.ResourceTemplate
	for _, u := range s.templates {
		out = append(out, mcp.ResourceTemplate{URITemplate: u, Name: "local"})
	}
	return out, s.err
}

func (s localSource) ReadResource(_ context.Context, _ identity.Caller, uri string) ([]mcp.ResourceContents, error) {
	if s.err != nil {
		return nil, s.err
	}
	for _, u := range s.uris {
		if u == uri {
			return []mcp.ResourceContents{{URI: uri, Text: "local"}}, nil
		}
	}
	return nil, &mcp.ResourceNotFoundError{URI: uri}
}

func (s localSource) Prompts(context.Context, identity.Caller) ([]mcp.Prompt, error) {
	var out []mcp.Prompt
	for _, p := range s.prompts {
		out = append(out, mcp.Prompt{Name: p, Description: "local"})
	}
	return out, s.err
}

func (s localSource) GetPrompt(_ context.Context, _ identity.Caller, req *mcp.PromptRequest) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("local " + req.Name)}}}, s.err
}

func (s localSource) Complete(context.Context, identity.Caller, *mcp.CompleteRequest) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{"local"}, Total: 1}, s.err
}

func TestNewCompositeValidates(t *testing.T) {
	for _, sources := range [][]content.Source{nil, {localSource{}, nil}} {
		if _, err := content.NewComposite(sources...); err == nil {
			t.Errorf("NewComposite(%v) = nil error, want one", sources)
		}
	}
}

// TestComposite checks the routing of a Composite of a source in memory
// and a worker's: lists in order with the first of each key, each request
// to the source that has what it names.
func TestComposite(t *testing.T) {
	remote, _ := newRemote(t)
	local := localSource{
		uris:      []string{"taskwire://boards/main/context", "test://static-text"},
		templates: []string{"taskwire://boards/{board}/context"},
		prompts:   []string{"standup", "test_simple_prompt"},
	}
	cs, err := content.NewComposite(local, remote)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	rs, _ := cs.Resources(ctx, bob)
	var uris []string
	for _, r := range rs {
		uris = append(uris, r.URI+" "+r.Name)
	}
	want := []string{"taskwire://boards/main/context local", "test://static-text local", "test://static-binary static-binary", "test://empty-text empty-text", "test://whoami whoami"}
	if diff := cmp.Diff(want, uris); diff != "" {
		t.Errorf("Resources() (-want +got):\n%s", diff)
	}
	ts, _ := cs.ResourceTemplates(ctx, bob)
	if len(ts) != 2 || ts[0].URITemplate != "taskwire://boards/{board}/context" || ts[1].URITemplate != "test://template/{id}/data" {
		t.Errorf("ResourceTemplates() = %+v", ts)
	}
	ps, _ := cs.Prompts(ctx, bob)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name+" "+p.Description)
	}
	want = []string{"standup local", "test_simple_prompt local", "test_prompt_with_arguments ", "test_prompt_with_embedded_resource ", "test_prompt_with_image ", "test_input_required_result_prompt "}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Prompts() (-want +got):\n%s", diff)
	}

	for uri, text := range map[string]string{
		"taskwire://boards/main/context": "local",
		"test://static-text":             "local", // listed by both: the first serves it
		"test://template/7/data":         `{"id":"7"}`,
	} {
		contents, err := cs.ReadResource(ctx, bob, uri)
		if err != nil || len(contents) != 1 || contents[0].Text != text {
			t.Errorf("ReadResource(%s) = %+v, %v; want %s", uri, contents, err, text)
		}
	}
	_, err = cs.ReadResource(ctx, bob, "test://nothing")
	var nf *mcp.ResourceNotFoundError
	if !errors.As(err, &nf) || nf.URI != "test://nothing" {
		t.Errorf("ReadResource(nothing) = %v, want ResourceNotFoundError", err)
	}
	if _, err := cs.ReadResource(ctx, bob, "test://secret"); !errors.As(err, new(*mcp.ScopeError)) {
		t.Errorf("ReadResource(secret) = %v, want the worker's ScopeError", err)
	}

	for name, text := range map[string]string{
		"standup":                "local standup",
		"test_simple_prompt":     "local test_simple_prompt",
		"test_prompt_with_image": "",
	} {
		res, err := cs.GetPrompt(ctx, bob, &mcp.PromptRequest{Name: name})
		if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.Text != text {
			t.Errorf("GetPrompt(%s) = %+v, %v; want text %q", name, res, err, text)
		}
	}
	_, err = cs.GetPrompt(ctx, bob, &mcp.PromptRequest{Name: "retro"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams || je.Message != "Unknown prompt: retro" {
		t.Errorf("GetPrompt(retro) = %v, want -32602 Unknown prompt", err)
	}

	completions := []struct {
		req  mcp.CompleteRequest
		want []string
	}{
		{mcp.CompleteRequest{RefType: mcp.RefPrompt, RefName: "standup", Argument: "board"}, []string{"local"}},
		{mcp.CompleteRequest{RefType: mcp.RefResource, RefName: "taskwire://boards/{board}/context", Argument: "board"}, []string{"local"}},
		{mcp.CompleteRequest{RefType: mcp.RefPrompt, RefName: "test_prompt_with_arguments", Argument: "arg1", Value: "pari"}, []string{"paris"}},
		{mcp.CompleteRequest{RefType: mcp.RefResource, RefName: "test://template/{id}/data", Argument: "id", Value: "2"}, []string{"2"}},
	}
	for _, tt := range completions {
		got, err := cs.Complete(ctx, bob, &tt.req)
		if err != nil || !cmp.Equal(got.Values, tt.want) {
			t.Errorf("Complete(%+v) = %+v, %v; want %v", tt.req, got, err, tt.want)
		}
	}
	for _, req := range []mcp.CompleteRequest{
		{RefType: mcp.RefPrompt, RefName: "retro", Argument: "x"},
		{RefType: mcp.RefResource, RefName: "test://other/{id}", Argument: "id"},
	} {
		if _, err := cs.Complete(ctx, bob, &req); !invalidParams(err) {
			t.Errorf("Complete(%+v) = %v, want -32602", req, err)
		}
	}
}

// TestCompositeSourceFails checks that a failing source fails what needs
// it: a list is never served in part.
func TestCompositeSourceFails(t *testing.T) {
	remote, _ := newRemote(t)
	down := errors.New("worker down")
	cs, err := content.NewComposite(remote, localSource{err: down})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if rs, err := cs.Resources(ctx, bob); !errors.Is(err, down) || rs != nil {
		t.Errorf("Resources() = %v, %v; want the source's error", rs, err)
	}
	if _, err := cs.ReadResource(ctx, bob, "test://nothing"); !errors.Is(err, down) {
		t.Errorf("ReadResource(nothing) = %v, want the second source's error", err)
	}
	if _, err := cs.GetPrompt(ctx, bob, &mcp.PromptRequest{Name: "retro"}); !errors.Is(err, down) {
		t.Errorf("GetPrompt(retro) = %v, want the second source's error", err)
	}
	if res, err := cs.GetPrompt(ctx, bob, &mcp.PromptRequest{Name: "test_simple_prompt"}); err != nil || len(res.Messages) != 1 {
		t.Errorf("GetPrompt(test_simple_prompt) = %+v, %v; the first source has it", res, err)
	}
}
