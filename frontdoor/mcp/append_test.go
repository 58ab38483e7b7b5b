package mcp_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/taskwire/taskwire/frontdoor/mcp"
)

// TestCallToolResultAppendJSON: a result written by AppendJSON (and
// AppendWith) reads back as encoding/json writes it, content of every
// type included, except that no content is [] rather than null.
func TestCallToolResultAppendJSON(t *testing.T) {
	texts := []string{"", `{"ref":"T-1","title":"say \"hi\" \\ <b>"}`, "line\nbreak\ttab\x00\u2028 é \xff"}
	for _, r := range []*mcp.CallToolResult{
		{Content: []mcp.Content{mcp.TextContent(texts[1])}, StructuredContent: json.RawMessage(`{"ref":"T-1"}`)},
		{Content: []mcp.Content{mcp.TextContent(texts[0]), mcp.TextContent(texts[2]), mcp.ImageContent("aGk=", "image/png"),
			mcp.AudioContent("aGk=", "audio/wav"), mcp.ResourceContent(mcp.EmbeddedResource{URI: "taskwire://t/1", Text: texts[1]})},
			IsError: true},
		{Content: nil},
	} {
		got, err := r.AppendWith([]byte("x"), struct {
			ResultType string `json:"resultType"`
		}{"complete"})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != 'x' || !json.Valid(got[1:]) {
			t.Fatalf("AppendWith wrote %s", got)
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var gotV, wantV map[string]any
		if err := json.Unmarshal(got[1:], &gotV); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &wantV); err != nil {
			t.Fatal(err)
		}
		if wantV["content"] == nil {
			wantV["content"] = []any{}
		}
		wantV["resultType"] = "complete"
		if diff := cmp.Diff(wantV, gotV); diff != "" {
			t.Errorf("AppendWith (-encoding/json +got):\n%s", diff)
		}
		plain, err := r.AppendJSON(nil)
		if err != nil || !json.Valid(plain) {
			t.Errorf("AppendJSON = %s, %v", plain, err)
		}
	}
	if _, err := (&mcp.CallToolResult{Content: []mcp.Content{{Type: "video"}}}).AppendJSON(nil); err == nil {
		t.Error("AppendJSON of a block of unknown type succeeded")
	}
}

// AppendWith writes CallToolResult's members by name: a new member needs
// writing there too.
func TestCallToolResultMembers(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[mcp.CallToolResult]()
	for i := range rt.NumField() {
		if tag := rt.Field(i).Tag.Get("json"); tag != "-" {
			names = append(names, tag)
		}
	}
	want := []string{"content", "structuredContent,omitempty", "isError,omitempty"}
	if !slices.Equal(names, want) {
		t.Errorf("CallToolResult's JSON members are %q; AppendWith writes %q: teach it the new ones", names, want)
	}
}
