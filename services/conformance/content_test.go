package conformance_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	mcpv1 "github.com/taskwire/taskwire/api/taskwire/mcp/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

func TestListResources(t *testing.T) {
	svc, _ := newService(t)
	resp, err := svc.ListResources(asReader(), &mcpv1.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range resp.GetResources() {
		uris = append(uris, r.GetUri()+" "+r.GetMimeType())
		if r.GetName() == "" || r.GetDescription() == "" {
			t.Errorf("resource %s has no name or description", r.GetUri())
		}
	}
	want := []string{"test://static-text text/plain", "test://static-binary image/png", "test://watched-resource text/plain"}
	if diff := cmp.Diff(want, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	wantTemplates := []*mcpv1.ResourceTemplate{{
		UriTemplate: "test://template/{id}/data", Name: "template", Title: "Resource Template",
		Description: "A resource template with parameter substitution: test://template/{id}/data is JSON naming the id",
		MimeType:    "application/json",
	}}
	if diff := cmp.Diff(wantTemplates, resp.GetTemplates(), protocmp.Transform()); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

func TestReadResource(t *testing.T) {
	svc, _ := newService(t)
	png := decode(t, "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	text := func(uri, mime, body string) *mcpv1.ResourceContents {
		return &mcpv1.ResourceContents{Uri: uri, MimeType: mime, Body: &mcpv1.ResourceContents_Text{Text: body}}
	}
	for _, tc := range []struct {
		uri  string
		want *mcpv1.ResourceContents // nil: not found
	}{
		{"test://static-text", text("test://static-text", "text/plain", "This is the content of the static text resource.")},
		{"test://static-binary", &mcpv1.ResourceContents{Uri: "test://static-binary", MimeType: "image/png", Body: &mcpv1.ResourceContents_Blob{Blob: png}}},
		{"test://watched-resource", text("test://watched-resource", "text/plain", "Watched resource content")},
		{"test://template/123/data", text("test://template/123/data", "application/json", `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`)},
		{"test://template/a<b/data", text("test://template/a<b/data", "application/json", `{"id":"a<b","templateTest":true,"data":"Data for ID: a<b"}`)},
		{"test://template//data", nil},
		{"test://template/1/2/data", nil},
		{"test://template/123", nil},
		{"test://template/123/data/more", nil},
		{"test://nothing", nil},
		{"", nil},
	} {
		resp, err := svc.ReadResource(asReader(), &mcpv1.ReadResourceRequest{Uri: tc.uri})
		if tc.want == nil {
			if domainerr.KindOf(err) != domainerr.NotFound {
				t.Errorf("ReadResource(%q) = %v, %v, want not found", tc.uri, resp, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ReadResource(%q) = %v", tc.uri, err)
			continue
		}
		if diff := cmp.Diff([]*mcpv1.ResourceContents{tc.want}, resp.GetContents(), protocmp.Transform()); diff != "" {
			t.Errorf("ReadResource(%q) (-want +got):\n%s", tc.uri, diff)
		}
	}
}

func TestListPrompts(t *testing.T) {
	svc, _ := newService(t)
	resp, err := svc.ListPrompts(asReader(), &mcpv1.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range resp.GetPrompts() {
		if p.GetDescription() == "" {
			t.Errorf("prompt %s has no description", p.GetName())
		}
		args := []string{}
		for _, a := range p.GetArguments() {
			if !a.GetRequired() || a.GetDescription() == "" {
				t.Errorf("argument %s of %s is optional or undescribed", a.GetName(), p.GetName())
			}
			args = append(args, a.GetName())
		}
		got[p.GetName()] = args
	}
	want := map[string][]string{
		"test_simple_prompt":                 {},
		"test_prompt_with_arguments":         {"arg1", "arg2"},
		"test_prompt_with_embedded_resource": {"resourceUri"},
		"test_prompt_with_image":             {},
		"test_input_required_result_prompt":  {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
}

func TestGetPrompt(t *testing.T) {
	svc, _ := newService(t)
	png := decode(t, "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	user := func(c *mcpv1.Content) *mcpv1.PromptMessage { return &mcpv1.PromptMessage{Role: "user", Content: c} }
	text := func(s string) *mcpv1.Content { return &mcpv1.Content{Block: &mcpv1.Content_Text{Text: s}} }
	for _, tc := range []struct {
		name string
		args map[string]string
		in   *mcpv1.ClientInput
		want []*mcpv1.PromptMessage
	}{
		{name: "test_simple_prompt", want: []*mcpv1.PromptMessage{user(text("This is a simple prompt for testing."))}},
		{name: "test_prompt_with_arguments", args: map[string]string{"arg1": "hello", "arg2": "world"},
			want: []*mcpv1.PromptMessage{user(text("Prompt with arguments: arg1='hello', arg2='world'"))}},
		{name: "test_prompt_with_embedded_resource", args: map[string]string{"resourceUri": "test://example-resource"},
			want: []*mcpv1.PromptMessage{
				user(&mcpv1.Content{Block: &mcpv1.Content_Resource{Resource: &mcpv1.ResourceContents{
					Uri: "test://example-resource", MimeType: "text/plain",
					Body: &mcpv1.ResourceContents_Text{Text: "Embedded resource content for testing."},
				}}}),
				user(text("Please process the embedded resource above.")),
			}},
		{name: "test_prompt_with_image", want: []*mcpv1.PromptMessage{
			user(&mcpv1.Content{Block: &mcpv1.Content_Image{Image: &mcpv1.Media{Data: png, MimeType: "image/png"}}}),
			user(text("Please analyze the image above.")),
		}},
		{name: "test_input_required_result_prompt",
			in:   answers(t, "", map[string]map[string]any{"user_context": accept(map[string]any{"context": "test context"})}),
			want: []*mcpv1.PromptMessage{user(text("Answer with this context in mind: test context"))}},
	} {
		resp, err := svc.GetPrompt(asReader(), &mcpv1.GetPromptRequest{Name: tc.name, Arguments: tc.args, Input: tc.in})
		if err != nil {
			t.Errorf("GetPrompt(%s) = %v", tc.name, err)
			continue
		}
		if resp.GetDescription() == "" || resp.GetInputRequired() != nil {
			t.Errorf("GetPrompt(%s) description %q, input required %v: want a description and no question", tc.name, resp.GetDescription(), resp.GetInputRequired())
		}
		if diff := cmp.Diff(tc.want, resp.GetMessages(), protocmp.Transform()); diff != "" {
			t.Errorf("GetPrompt(%s) messages (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestGetPromptAsks(t *testing.T) {
	svc, _ := newService(t)
	for _, in := range []*mcpv1.ClientInput{
		nil,
		answers(t, "", map[string]map[string]any{"other": accept(map[string]any{"context": "x"})}),
		answers(t, "", map[string]map[string]any{"user_context": accept(map[string]any{})}),
	} {
		resp, err := svc.GetPrompt(asReader(), &mcpv1.GetPromptRequest{Name: "test_input_required_result_prompt", Input: in})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.GetMessages()) != 0 {
			t.Errorf("GetPrompt(input %v) messages = %v, want none while asking", in, resp.GetMessages())
		}
		want := map[string]any{"message": "What context should the prompt use?", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"context": map[string]any{"type": "string"}}, "required": []any{"context"},
		}}
		r := resp.GetInputRequired().GetRequests()["user_context"]
		if r.GetMethod() != "elicitation/create" || len(resp.GetInputRequired().GetRequests()) != 1 {
			t.Fatalf("GetPrompt(input %v) asked %v, want one elicitation under user_context", in, resp.GetInputRequired())
		}
		if diff := cmp.Diff(want, r.GetParams().AsMap()); diff != "" {
			t.Errorf("user_context params (-want +got):\n%s", diff)
		}
	}
}

func TestGetPromptInvalid(t *testing.T) {
	svc, _ := newService(t)
	for _, req := range []*mcpv1.GetPromptRequest{
		{Name: "no_such_prompt"},
		{Name: ""},
		{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "only one"}},
		{Name: "test_prompt_with_embedded_resource"},
	} {
		_, err := svc.GetPrompt(asReader(), req)
		if domainerr.KindOf(err) != domainerr.Invalid || domainerr.Message(err) == "" {
			t.Errorf("GetPrompt(%s, %v) = %v, want invalid with a message", req.GetName(), req.GetArguments(), err)
		}
	}
}

func TestComplete(t *testing.T) {
	svc, _ := newService(t)
	for _, tc := range []struct {
		refType, refName, argument, value string
		want                              []string
	}{
		{"ref/prompt", "test_prompt_with_arguments", "arg1", "", []string{"paris", "park", "party"}},
		{"ref/prompt", "test_prompt_with_arguments", "arg1", "par", []string{"paris", "park", "party"}},
		{"ref/prompt", "test_prompt_with_arguments", "arg1", "PART", []string{"party"}},
		{"ref/prompt", "test_prompt_with_arguments", "arg1", "x", nil},
		{"ref/prompt", "test_prompt_with_arguments", "arg2", "g", []string{"green"}},
		{"ref/resource", "test://template/{id}/data", "id", "1", []string{"1", "123"}},
		{"ref/resource", "test://template/{id}/data", "other", "", nil},
		{"ref/prompt", "test_simple_prompt", "arg1", "", nil},
		{"ref/resource", "test_prompt_with_arguments", "arg1", "", nil},
	} {
		resp, err := svc.Complete(asReader(), &mcpv1.CompleteRequest{RefType: tc.refType, RefName: tc.refName, Argument: tc.argument, Value: tc.value})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, resp.GetValues()); diff != "" || int(resp.GetTotal()) != len(tc.want) || resp.GetHasMore() {
			t.Errorf("Complete(%s %s %s %q) = %v total %d more %v, want %v",
				tc.refType, tc.refName, tc.argument, tc.value, resp.GetValues(), resp.GetTotal(), resp.GetHasMore(), tc.want)
		}
	}
}
